/**
 * GET /metrics: off unless turned on, behind its Bearer token when one is set, and in the
 * Prometheus text format 0.0.4 — read here by a strict parser — with figures that move when the
 * server does things (requests by route pattern, reports and records ingested, refused files,
 * DNS checks, mailbox polls, kept answers, the database size).
 */
import { afterEach, expect, test } from "bun:test";
import { ingestFile } from "../../src/features/reports/ingest";
import { runDomainCheck } from "../../src/features/domains/status";
import { makeTestApp, type TestApp } from "../support/app";
import { signedInMember } from "../support/fixtures";
import { sampleAggregate, xmlBytes } from "../support/report-fixtures";

let t: TestApp;
afterEach(() => t?.close());

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}
interface Family {
  type: string;
  help: string;
  samples: Sample[];
}

/** Parses the text exposition format 0.0.4 strictly; throws on anything it does not allow. */
function parseExposition(text: string): Map<string, Family> {
  if (!text.endsWith("\n")) throw new Error("the exposition must end with a newline");
  const families = new Map<string, Family>();
  const seen = new Set<string>();
  const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
  const lines = text.slice(0, -1).split("\n");
  for (const [i, line] of lines.entries()) {
    const where = `line ${i + 1}: ${line}`;
    let m: RegExpExecArray | null;
    if ((m = new RegExp(`^# HELP (${NAME}) (.*)$`).exec(line))) {
      if (families.has(m[1]!)) throw new Error(`HELP after samples or twice, ${where}`);
      families.set(m[1]!, { type: "", help: m[2]!, samples: [] });
      continue;
    }
    if ((m = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`).exec(line))) {
      const family = families.get(m[1]!);
      if (!family || family.type || family.samples.length) throw new Error(`TYPE without HELP, twice or after samples, ${where}`);
      family.type = m[2]!;
      continue;
    }
    if (line.startsWith("#")) throw new Error(`unknown comment, ${where}`);
    m = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (-?(?:\\d+(?:\\.\\d+)?(?:e[+-]?\\d+)?|\\+Inf|-Inf|NaN))$`).exec(line);
    if (!m) throw new Error(`not a sample, ${where}`);
    const [, name, labelText, valueText] = m;
    const labels: Record<string, string> = {};
    if (labelText) {
      const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\["\\n])*)"(,|$)/y;
      let pos = 0;
      while (pos < labelText.length) {
        re.lastIndex = pos;
        const lm = re.exec(labelText);
        if (!lm) throw new Error(`bad labels, ${where}`);
        if (lm[1]! in labels) throw new Error(`label twice, ${where}`);
        labels[lm[1]!] = lm[2]!.replace(/\\(["\\n])/g, (_, c: string) => (c === "n" ? "\n" : c));
        pos = re.lastIndex;
      }
    }
    const base = [...families.keys()].find((f) => name === f || (families.get(f)!.type === "histogram" && [`${f}_bucket`, `${f}_sum`, `${f}_count`].includes(name!)));
    if (!base || !families.get(base)!.type) throw new Error(`sample of an undeclared family, ${where}`);
    const series = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seen.has(series)) throw new Error(`series twice, ${where}`);
    seen.add(series);
    const value = valueText === "+Inf" ? Infinity : valueText === "-Inf" ? -Infinity : Number(valueText);
    if (families.get(base)!.type === "counter" && !(value >= 0)) throw new Error(`negative counter, ${where}`);
    families.get(base)!.samples.push({ name: name!, labels, value });
  }
  // histograms: cumulative buckets ending in +Inf equal to _count
  for (const [name, family] of families) {
    if (family.type !== "histogram") continue;
    const groups = new Map<string, Sample[]>();
    for (const s of family.samples.filter((s) => s.name === `${name}_bucket`)) {
      const { le, ...rest } = s.labels;
      if (le === undefined) throw new Error(`${name}: bucket without le`);
      const key = JSON.stringify(Object.entries(rest).sort());
      groups.set(key, [...(groups.get(key) ?? []), s]);
    }
    for (const [key, buckets] of groups) {
      const les = buckets.map((b) => (b.labels.le === "+Inf" ? Infinity : Number(b.labels.le)));
      for (let i = 1; i < buckets.length; i++) {
        if (!(les[i]! > les[i - 1]!) || buckets[i]!.value < buckets[i - 1]!.value) throw new Error(`${name}: buckets not cumulative`);
      }
      if (les[les.length - 1] !== Infinity) throw new Error(`${name}: no +Inf bucket`);
      const count = family.samples.find((s) => s.name === `${name}_count` && JSON.stringify(Object.entries(s.labels).sort()) === key);
      if (!count || count.value !== buckets[buckets.length - 1]!.value) throw new Error(`${name}: _count differs from the +Inf bucket`);
    }
  }
  return families;
}

/** The sum of every sample of `name` whose labels include `labels` (other labels, such as a reason, may vary). */
function value(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const family = families.get(name.replace(/_(bucket|sum|count)$/, "")) ?? families.get(name);
  const samples = family?.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)) ?? [];
  return samples.reduce((sum, s) => sum + s.value, 0);
}

async function scrape(headers: Record<string, string> = {}) {
  const res = await t.request("GET", "/metrics", { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  return parseExposition(await res.text());
}

test("off unless --metrics: 404 with a plain answer, never the web app's page", async () => {
  t = await makeTestApp();
  const res = await t.request("GET", "/metrics");
  expect(res.status).toBe(404);
  expect(await res.text()).toContain("Metrics are off");
});

test("with --metrics-token only a scraper with the Bearer token gets them", async () => {
  t = await makeTestApp({ config: { metricsToken: "scrape-token-0123456789" } });
  expect((await t.request("GET", "/metrics")).status).toBe(401);
  expect((await t.request("GET", "/metrics", { headers: { authorization: "Bearer wrong-token-0123456789" } })).status).toBe(401);
  const { cookie } = await signedInMember(t.deps.store, "owner");
  // a session is not the metrics door
  expect((await t.request("GET", "/metrics", { cookie })).status).toBe(401);
  const families = await scrape({ authorization: "Bearer scrape-token-0123456789" });
  expect(families.get("dmarcwarden_http_requests_total")?.type).toBe("counter");
});

test("figures move after requests, ingestion, refused files and DNS checks", async () => {
  t = await makeTestApp({ config: { metrics: true } });
  const owner = await signedInMember(t.deps.store, "owner");
  const before = await scrape();

  // requests are counted by route pattern, never by raw path
  const added = await t.json("POST", "/api/domains", { cookie: owner.cookie, body: { name: "metrics.example" } });
  expect(added.status).toBe(201);
  await t.json("GET", `/api/domains/${added.body.id}`, { cookie: owner.cookie });
  await t.json("GET", "/api/domains/no-such-id", { cookie: owner.cookie });
  await t.json("GET", "/api/domains");

  const ok = await ingestFile(t.deps, { orgId: owner.orgId, fileName: "a.xml", bytes: xmlBytes(sampleAggregate("metrics.example")), source: "upload" });
  expect(ok.status).toBe("ingested");
  const bad = await ingestFile(t.deps, { orgId: owner.orgId, fileName: "b.xml", bytes: new TextEncoder().encode("not a report"), source: "cli" });
  expect(bad.status).toBe("rejected");
  // the Senders list: computed once, then served kept while nothing changes
  for (let i = 0; i < 2; i++) expect((await t.json("GET", "/api/senders", { cookie: owner.cookie })).status).toBe(200);
  const gone = await runDomainCheck({ store: t.deps.store, resolver: undefined as never, now: () => new Date() }, "no-such-domain");
  expect(gone.outcome).toBe("gone");

  const after = await scrape();
  const delta = (name: string, labels: Record<string, string> = {}) => value(after, name, labels) - value(before, name, labels);
  expect(delta("dmarcwarden_http_requests_total", { method: "POST", route: "/api/domains", status: "201" })).toBe(1);
  expect(delta("dmarcwarden_http_requests_total", { method: "GET", route: "/api/domains/:id", status: "200" })).toBe(1);
  expect(delta("dmarcwarden_http_requests_total", { method: "GET", route: "/api/domains/:id", status: "404" })).toBe(1);
  expect(delta("dmarcwarden_http_requests_total", { method: "GET", route: "/api/domains", status: "401" })).toBe(1);
  expect(delta("dmarcwarden_http_request_duration_seconds_count", { method: "POST", route: "/api/domains" })).toBe(1);
  expect(JSON.stringify(after.get("dmarcwarden_http_requests_total")!.samples)).not.toContain(added.body.id);
  expect(delta("dmarcwarden_reports_ingested_total", { kind: "aggregate", source: "upload" })).toBe(1);
  expect(delta("dmarcwarden_records_ingested_total", { source: "upload" })).toBe(2);
  expect(delta("dmarcwarden_ingest_failures_total", { source: "cli" })).toBe(1);
  expect(delta("dmarcwarden_dns_checks_total", { outcome: "gone" })).toBe(1);
  expect(delta("dmarcwarden_kept_answers_total", { outcome: "computed" })).toBe(1);
  expect(delta("dmarcwarden_kept_answers_total", { outcome: "hit" })).toBe(1);
  expect(value(after, "dmarcwarden_database_size_bytes")).toBeGreaterThan(0);
  for (const name of ["dmarcwarden_mailbox_polls_total", "dmarcwarden_alerts_sent_total", "dmarcwarden_scheduler_lag_seconds", "dmarcwarden_dns_check_duration_seconds"]) {
    expect(after.has(name)).toBe(true);
  }
});

test("the parser refuses what the format does not allow", () => {
  expect(() => parseExposition("x 1")).toThrow("newline");
  expect(() => parseExposition("x 1\n")).toThrow("undeclared");
  expect(() => parseExposition("# HELP x h\n# TYPE x counter\nx{a=\"1\",a=\"2\"} 1\n")).toThrow("label twice");
  expect(() => parseExposition("# HELP x h\n# TYPE x counter\nx -1\n")).toThrow("negative");
  expect(() => parseExposition("# HELP h h\n# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n")).toThrow("cumulative");
});
