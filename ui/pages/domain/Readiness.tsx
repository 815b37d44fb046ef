import { useQuery } from "@tanstack/react-query";
import { AlertTriangle, CheckCircle2, ChevronRight, ShieldCheck } from "lucide-react";
import { Fragment, useEffect, useRef } from "react";
import { Link, useLocation } from "react-router";
import type { DomainSourcesView, EnforcementView } from "../../../src/features/domains/readiness";
import type { SourceExplanation } from "../../../src/lib/readiness/explain";
import { CopyButton } from "../../components/CopyButton";
import { Panel } from "../../components/Panel";
import { ErrorState, LoadingState } from "../../components/QueryStates";
import { formatCount, formatPercent, passRateClass } from "../../lib/format";
import { keepInView } from "../../lib/anchor";
import { ScrollArea } from "../../components/ScrollArea";

export const enforcementKey = (id: string) => [`/api/domains/${encodeURIComponent(id)}/enforcement`];
export const sourcesKey = (id: string) => [`/api/domains/${encodeURIComponent(id)}/sources`];

const STAGES = ["missing", "none", "quarantine", "reject"] as const;
const STAGE_LABEL: Record<(typeof STAGES)[number], string> = { missing: "No record", none: "p=none", quarantine: "p=quarantine", reject: "p=reject" };

/** Text with `code` spans, as the fixes are written. */
export function FixText({ text }: { text: string }) {
  return (
    <>
      {text.split("`").map((part, i) =>
        i % 2 ? (
          <code key={i} className="rounded bg-base-200 px-1 font-mono text-xs break-words">
            {part}
          </code>
        ) : (
          <Fragment key={i}>{part}</Fragment>
        ),
      )}
    </>
  );
}

/** The readiness panel: stage → next stage, the blockers with their fix, the projection and the record to publish. */
export function ReadinessPanel({ id }: { id: string }) {
  const q = useQuery<EnforcementView>({ queryKey: enforcementKey(id) });
  const { hash } = useLocation();
  const ref = useRef<HTMLElement>(null);
  // opened from a task or a wizard (…#readiness): bring the panel into view once it has its content
  useEffect(() => {
    if (hash === "#readiness" && q.isSuccess) return keepInView(ref.current);
  }, [hash, q.isSuccess]);
  return (
    <section id="readiness" ref={ref} className="scroll-mt-24">
      <Panel title="Readiness for p=reject">
        {q.isPending ? (
          <LoadingState text="Working out readiness..." />
        ) : q.isError ? (
          <ErrorState error={q.error} onRetry={() => q.refetch()} />
        ) : (
          <ReadinessBody e={q.data} />
        )}
      </Panel>
    </section>
  );
}

function ReadinessBody({ e }: { e: EnforcementView }) {
  const current = STAGES.indexOf(e.stage);
  const verb = e.nextStage === "reject" ? "rejected" : "quarantined";
  return (
    <div className="grid gap-4" data-stage={e.stage} data-next-stage={e.nextStage ?? ""}>
      {e.analysisError ? (
        <p role="status" className="text-sm text-warning">
          {e.analysisError}
        </p>
      ) : null}
      <ol className="steps steps-horizontal w-full text-xs" aria-label="Stages">
        {STAGES.map((s, i) => (
          <li key={s} className={`step ${i <= current ? "step-primary" : ""}`} aria-current={i === current ? "step" : undefined}>
            <span>
              {STAGE_LABEL[s]}
              {i === current && s !== "missing" && e.pct !== null && e.pct < 100 ? ` (pct=${e.pct})` : ""}
            </span>
          </li>
        ))}
      </ol>
      <div className={`alert alert-soft items-start ${e.ready ? "alert-success" : "alert-warning"}`} role="status">
        {e.ready ? <CheckCircle2 className="h-5 w-5" aria-hidden /> : <AlertTriangle className="h-5 w-5" aria-hidden />}
        <div className="grid gap-1 text-sm">
          <p className="font-semibold">
            {e.nextStage === null ? "At p=reject" : `Next: ${STAGE_LABEL[e.nextStage]}`}
            {e.nextStage !== null ? (e.ready ? " — ready" : ` — ${e.blockers.length} blocker${e.blockers.length === 1 ? "" : "s"}`) : ""}
          </p>
          <p>{e.recommendation.words}</p>
        </div>
      </div>
      {e.nextStage !== "none" ? (
        <div className="grid grid-cols-1 gap-3 sm:grid-cols-2" aria-label="Projection">
          <div className="rounded-box border border-base-300 p-3">
            <p className="text-xs opacity-70">Yours, not yet authenticated</p>
            <p className="text-2xl font-bold tabular-nums" data-projection="yours">
              {formatCount(e.projection.yoursUnauthenticated)}
            </p>
            <p className="text-xs opacity-70">
              messages in {e.projection.days} days that would have been {e.nextStage ? verb : "rejected"}
            </p>
          </div>
          <div className="rounded-box border border-base-300 p-3">
            <p className="text-xs opacity-70">Not yours</p>
            <p className="text-2xl font-bold tabular-nums" data-projection="not-yours">
              {formatCount(e.projection.notYours)}
            </p>
            <p className="text-xs opacity-70">spoofed or unknown messages it would stop</p>
          </div>
        </div>
      ) : null}
      {e.blockers.length ? (
        <div className="grid gap-2">
          <h3 className="text-sm font-semibold">Blockers</h3>
          <ul className="grid gap-2">
            {e.blockers.map((b) => (
              <li key={b.senderKey} className="rounded-box border border-warning/40 p-3 text-sm" data-blocker={b.source}>
                <div className="flex flex-wrap items-baseline justify-between gap-2">
                  <Link to={`/app/senders/${encodeURIComponent(b.senderKey)}`} className="link font-semibold break-all">
                    {b.source}
                  </Link>
                  <span className="tabular-nums opacity-80">
                    {formatCount(b.messages)} of {formatCount(b.totalMessages)} messages fail
                  </span>
                </div>
                <p className="mt-1 text-xs break-all opacity-70">{b.ips.slice(0, 5).join(", ") + (b.ips.length > 5 ? ` and ${b.ips.length - 5} more` : "")}</p>
                <p className="mt-2">
                  <span className="font-medium">Fix: </span>
                  <FixText text={b.fix} />
                </p>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {e.recommendation.record ? (
        <div className="grid gap-1">
          <p className="text-sm font-medium">{e.recommendation.ramp.length ? "First step of the ramp" : "Record to publish"} at _dmarc</p>
          <div className="flex items-start gap-2">
            <code className="min-w-0 flex-1 rounded bg-base-200 px-2 py-1 font-mono text-xs break-all" data-recommended-record>
              {e.recommendation.record}
            </code>
            <CopyButton value={e.recommendation.record} what="DMARC record" />
          </div>
          {e.recommendation.ramp.length > 1 ? (
            <ol className="mt-1 grid gap-1 text-xs opacity-80">
              {e.recommendation.ramp.map((s) => (
                <li key={s.pct} className="flex items-center gap-1">
                  <ChevronRight className="h-3 w-3 shrink-0" aria-hidden /> pct={s.pct}: <code className="break-all">{s.record}</code>
                </li>
              ))}
            </ol>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

const RESULT_CLASS = (ok: boolean) => (ok ? "badge-success" : "badge-error");

/** Every source of the last 30 days against the live DNS, with the one fix. */
export function SourcesPanel({ id }: { id: string }) {
  const q = useQuery<DomainSourcesView>({ queryKey: sourcesKey(id) });
  return (
    <Panel title="Sources: explain and fix (30 days)">
      {q.isPending ? (
        <LoadingState text="Checking sources against DNS..." />
      ) : q.isError ? (
        <ErrorState error={q.error} onRetry={() => q.refetch()} />
      ) : q.data.sources.length === 0 ? (
        <p className="py-6 text-center text-sm opacity-70">No mail reported for this domain in the last 30 days.</p>
      ) : (
        <ul className="grid gap-2" aria-label="Sources">
          {q.data.sources.slice(0, 50).map((s) => (
            <SourceItem key={s.ip} s={s} />
          ))}
        </ul>
      )}
    </Panel>
  );
}

function SourceItem({ s }: { s: SourceExplanation }) {
  return (
    <li className="rounded-box border border-base-300 text-sm" data-explained-source={s.ip}>
      <details>
        <summary className="flex cursor-pointer flex-wrap items-center gap-x-3 gap-y-1 p-3">
          <span className="min-w-[10rem] flex-1">
            <span className="block font-medium break-words">{s.sender}</span>
            {s.sender !== s.ip ? <span className="block font-mono text-xs break-all opacity-70">{s.ip}</span> : null}
          </span>
          <span className="flex flex-wrap items-center gap-1">
            <span className={`badge badge-sm ${RESULT_CLASS(s.spf.aligned && s.spf.result === "pass")}`}>SPF</span>
            <span className={`badge badge-sm ${RESULT_CLASS(s.dkim.aligned)}`}>DKIM</span>
            {s.yours ? <span className="badge badge-sm badge-ghost">yours</span> : <span className="badge badge-sm badge-outline">not yours</span>}
          </span>
          <span className={`w-16 text-right tabular-nums ${passRateClass(s.passRate)}`}>{formatPercent(s.passRate)}</span>
        </summary>
        <div className="grid gap-2 border-t border-base-300 p-3">
          <p>
            <span className="font-medium">Fix: </span>
            <FixText text={s.fix} />
          </p>
          <dl className="grid gap-1 text-xs sm:grid-cols-[6rem_1fr]">
            <dt className="font-medium">SPF now</dt>
            <dd className="break-words">
              <FixText text={s.spf.live.words} />
            </dd>
            <dt className="font-medium">SPF reported</dt>
            <dd className="break-words">{s.spf.domain ? `${s.spf.result} for ${s.spf.domain}: ${s.spf.alignment}` : s.spf.alignment}</dd>
            <dt className="font-medium">DKIM</dt>
            <dd className="grid gap-0.5 break-words">
              {s.dkim.signatures.length === 0 ? "no signature reported" : null}
              {s.dkim.signatures.map((g) => (
                <span key={`${g.domain}|${g.selector}`}>
                  d={g.domain}
                  {g.selector ? `, s=${g.selector}` : ""}: {g.result}, {g.alignment}
                  {g.key ? ` — key ${g.key.status === "missing" ? "not published" : g.key.status}${g.key.bits ? ` (${g.key.bits} bits)` : ""}` : ""}
                </span>
              ))}
            </dd>
            <dt className="font-medium">Messages</dt>
            <dd>
              {formatCount(s.messages)} ({formatCount(s.failing)} failing DMARC)
            </dd>
          </dl>
        </div>
      </details>
    </li>
  );
}

/** The SPF terms crossed with the reports: used, unused, lookups saved, a rewrite when over 10. */
export function SpfUsagePanel({ id }: { id: string }) {
  const q = useQuery<DomainSourcesView>({ queryKey: sourcesKey(id) });
  return (
    <Panel title="SPF that is used (30 days)">
      {q.isPending ? (
        <LoadingState text="Comparing SPF with the reports..." />
      ) : q.isError ? (
        <ErrorState error={q.error} onRetry={() => q.refetch()} />
      ) : (
        <SpfUsageBody u={q.data.spfUsage} />
      )}
    </Panel>
  );
}

function SpfUsageBody({ u }: { u: DomainSourcesView["spfUsage"] }) {
  if (!u.record) return <p className="text-sm opacity-70">{u.words}</p>;
  return (
    <div className="grid gap-3 text-sm">
      <p>
        <span className={u.lookups > u.limit ? "font-semibold text-error" : "font-semibold"}>
          {u.lookups} of {u.limit} DNS lookups.
        </span>{" "}
        {u.words}
      </p>
      <ScrollArea label="Senders table">
        <table className="table table-sm">
          <thead>
            <tr>
              <th>Term</th>
              <th className="text-right">Lookups</th>
              <th className="text-right">Messages</th>
            </tr>
          </thead>
          <tbody>
            {u.terms.map((t) => (
              <tr key={t.term} data-spf-term={t.term} data-used={t.messages > 0 ? "yes" : "no"}>
                <td className="font-mono text-xs break-all">
                  {t.term} {u.unused.includes(t.term) ? <span className="badge badge-warning badge-xs ml-1 font-sans">unused</span> : null}
                </td>
                <td className="text-right tabular-nums">{t.lookups}</td>
                <td className="text-right tabular-nums">{t.kind === "all" ? "—" : formatCount(t.messages)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollArea>
      {u.rewrite ? (
        <div className="grid gap-2 rounded-box border border-base-300 p-3">
          <p className="flex items-center gap-1 font-medium">
            <ShieldCheck className="h-4 w-4" aria-hidden /> A record within the limit ({u.rewrite.lookups} lookups)
          </p>
          <p>{u.rewrite.words}</p>
          <div className="flex items-start gap-2">
            <code className="min-w-0 flex-1 rounded bg-base-200 px-2 py-1 font-mono text-xs break-all">{u.rewrite.record}</code>
            <CopyButton value={u.rewrite.record} what="SPF record" />
          </div>
          {u.rewrite.flatten.map((f) => (
            <p key={f.term} className="text-xs text-warning">
              {f.cost}
            </p>
          ))}
        </div>
      ) : null}
    </div>
  );
}
