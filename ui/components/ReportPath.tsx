import { useIsFetching, useQuery } from "@tanstack/react-query";
import { Inbox, Mail, Upload } from "lucide-react";
import { useEffect, useRef, type ReactNode } from "react";
import { Link, useLocation } from "react-router";
import type { ExternalAuthorization, ReportPath, ReportRoute } from "../../src/lib/report-path";
import { errorMessage } from "../lib/api";
import { keepInView } from "../lib/anchor";
import { CopyButton } from "./CopyButton";

export type { ReportPath };

export const reportPathKey = (domain: string) => [`/api/report-path?domain=${encodeURIComponent(domain)}`] as const;

/** Where reports for `domain` should go on this deployment (GET /api/report-path); off while `enabled` is false. */
export function useReportPath(domain: string, enabled = true) {
  return useQuery<ReportPath>({ queryKey: reportPathKey(domain), enabled: enabled && domain.trim() !== "" });
}

/** The DMARC record a new domain starts with: monitoring only, reports to the path's first address. */
export function startingDmarcRecord(path: ReportPath): string {
  return `v=DMARC1; p=none; rua=${path.routes[0]!.rua}`;
}

function CopyLine({ value, what, testId }: { value: string; what: string; testId?: string }) {
  return (
    <div className="flex items-center gap-2">
      <code className="min-w-0 flex-1 break-all rounded-field border border-base-300 bg-base-200 px-3 py-2 font-mono text-sm" data-testid={testId}>
        {value}
      </code>
      <CopyButton value={value} what={what} />
    </div>
  );
}

/** RFC 7489 §7.1: the record the report address's domain must publish. */
function ExternalRecord({ external, domain, receiver }: { external: ExternalAuthorization; domain: string; receiver: boolean }) {
  return (
    <div className="grid gap-1.5 rounded-box border border-warning/40 bg-warning/5 p-3 text-sm" data-external-record>
      <p>
        <strong>{external.host}</strong> is outside {domain}, so receivers send reports there only when {external.host} allows it (RFC 7489 §7.1) with this TXT
        record{receiver ? " — the operator of this server publishes it (a wildcard *._report._dmarc." + external.host + " covers every domain)" : ", published by whoever runs " + external.host}:
      </p>
      <CopyLine value={`${external.name} TXT "${external.value}"`} what="Authorization record" testId="external-record" />
    </div>
  );
}

const ROUTE_TEXT: Record<ReportRoute["kind"], { icon: typeof Mail; title: string }> = {
  receiver: { icon: Mail, title: "Your organization's report address" },
  mailbox: { icon: Inbox, title: "Connect a mailbox (IMAP)" },
  upload: { icon: Upload, title: "Upload reports" },
};

function RouteCard({ route, path, children }: { route: ReportRoute; path: ReportPath; children: ReactNode }) {
  const { icon: Icon, title } = ROUTE_TEXT[route.kind];
  return (
    <div className="grid min-w-0 content-start gap-2 rounded-box border border-base-300 p-4" data-route={route.kind}>
      <h3 className="flex items-center gap-2 font-semibold">
        <Icon className="h-4 w-4 shrink-0 text-primary" aria-hidden /> {title}
      </h3>
      <div className="grid gap-2 text-sm opacity-90">{children}</div>
      <p className="text-xs font-medium opacity-70">rua value to publish</p>
      <CopyLine value={route.rua} what="rua value" testId={`rua-${route.kind}`} />
      {route.external && <ExternalRecord external={route.external} domain={path.domain} receiver={route.kind === "receiver"} />}
    </div>
  );
}

/**
 * Where the domain's aggregate reports should go, and how they reach dmarcwarden: the
 * organization's own address when this server receives mail, the connected mailbox, or a
 * choice between connecting a mailbox and uploading — each with its exact rua value.
 */
export function ReportPathView({ path, mailboxBelow = false }: { path: ReportPath; /** shown in Settings above the mailbox form: "connect it below" */ mailboxBelow?: boolean }) {
  const [first] = path.routes;
  return (
    <div className="grid gap-3" data-report-path={path.mode}>
      {path.mode === "receiver" ? (
        <RouteCard route={first!} path={path}>
          <p>
            Reports sent to <strong className="break-all">{first!.address}</strong> appear in dmarcwarden by themselves, within minutes of arriving.
          </p>
        </RouteCard>
      ) : path.mode === "mailbox" ? (
        <RouteCard route={first!} path={path}>
          <p>
            dmarcwarden reads the report mailbox connected in{" "}
            <Link to="/app/settings#report-mail" className="link link-primary">
              Settings › Report mail
            </Link>{" "}
            every few minutes. Publish its address, <strong className="break-all">{first!.address}</strong>, in the DMARC record of {path.domain}.
          </p>
        </RouteCard>
      ) : (
        <>
          <p className="text-sm opacity-80">
            This server does not receive report mail itself (its SMTP receiver is off). Choose how the reports for {path.domain} reach dmarcwarden:
          </p>
          <div className="grid gap-3 md:grid-cols-2">
            {path.routes.map((route) => (
              <RouteCard key={route.kind} route={route} path={path}>
                {route.kind === "mailbox" ? (
                  <p>
                    Create the mailbox <strong className="break-all">{route.address}</strong>, publish it as below, then connect it{" "}
                    {mailboxBelow ? (
                      "in Report mailbox (IMAP) below"
                    ) : (
                      <>
                        in{" "}
                        <Link to="/app/settings#report-mail" className="link link-primary">
                          Settings › Report mail
                        </Link>
                      </>
                    )}
                    : dmarcwarden fetches new reports every few minutes.
                  </p>
                ) : (
                  <p>
                    Publish the same address, read its mail yourself, and upload the report attachments (.xml, .zip, .gz) on{" "}
                    <Link to="/app/reports" className="link link-primary">
                      DMARC Reports
                    </Link>
                    .
                  </p>
                )}
              </RouteCard>
            ))}
          </div>
          <p className="text-xs opacity-60">
            An administrator can instead start dmarcwarden with <code className="font-mono">--smtp-port</code> and <code className="font-mono">--smtp-domain</code>: each
            organization then gets a report address that needs neither.
          </p>
        </>
      )}
    </div>
  );
}

/** ReportPathView for one domain, fetched; opened at …#report-path (the checklist links there), it is brought into view once loaded. */
export function DomainReportPath({ domain, mailboxBelow = false }: { domain: string; mailboxBelow?: boolean }) {
  const query = useReportPath(domain);
  const { hash } = useLocation();
  // once nothing on the page is loading any more, so the panels above it have their height
  const loading = useIsFetching();
  const following = useRef<(() => void) | null>(null);
  useEffect(() => {
    if (hash !== "#report-path" || !query.isSuccess || loading > 0 || following.current) return;
    following.current = keepInView(document.getElementById("report-path"));
  }, [hash, query.isSuccess, loading]);
  useEffect(() => () => following.current?.(), []);
  if (query.isPending) return <span className="loading loading-dots loading-sm" aria-label="Loading where reports go" />;
  if (query.isError) return <p className="text-sm text-error">Could not load where reports go: {errorMessage(query.error)}</p>;
  return <ReportPathView path={query.data} mailboxBelow={mailboxBelow} />;
}
