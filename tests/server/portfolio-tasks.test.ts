/**
 * The portfolio's open tasks, counted for every client at once (src/features/portfolio/tasks.ts:
 * each input of the task rules read with one statement over all client ids), are exactly as many
 * as each client's own Tasks screen lists (GET /api/tasks acting in the client). Clients in many
 * situations: every
 * DMARC policy (missing, invalid, none, quarantine, reject, not checked yet), pct below 100, no
 * rua, broken SPF and DKIM, failing known services, spoofing, senders marked approved, not ours
 * and one by one by IP, a report address in the settings, IMAP and OAuth mailboxes, no domains,
 * domains of different ages, reports stale and never received, and DNS check history; with this
 * server's SMTP receiver off and on (the suggested rua follows the report path).
 */
import { afterEach, expect, test } from "bun:test";
import { strToU8 } from "fflate";
import { domainRecordHistory, domains, oauthMailboxes, organizationSettings, reportMailboxes, senderMarks } from "../../src/db/schema";
import { ingestFile } from "../../src/features/reports/ingest";
import { reverseDnsSettled } from "../../src/features/reports/reverse-dns";
import type { Config } from "../../src/config";
import { aggregateXml, type GeneratedRecord } from "../../src/lib/reports/generate";
import { makeTestApp, type TestApp } from "../support/app";
import { signIn, signedInMember, type SignedIn } from "../support/fixtures";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = new Date(Math.floor(Date.now() / 1000) * 1000 + 437);
const ago = (ms: number) => new Date(NOW.getTime() - ms);
/** as stored: whole seconds */
const stored = (at: Date) => new Date(Math.floor(at.getTime() / 1000) * 1000).toISOString();

/** PTR names of the senders: two known services and one provider without a service name */
const reverse = async (ip: string) => (ip.startsWith("167.89.") ? ["o1.ptr1.sendgrid.net"] : ip.startsWith("209.85.") ? ["mail-ed1-f41.google.com"] : ip.startsWith("198.18.5.") ? [`h${ip.split(".")[3]}.bulk-esp.example`] : []);

let t: TestApp;
let msp: SignedIn;
let clock = NOW;
let seq = 0;

async function setUp(config: Partial<Config> = {}) {
  clock = NOW;
  t = await makeTestApp({ config, deps: { now: () => clock, resolver: { reverse } as never } });
  msp = await signedInMember(t.deps.store, "owner", "Northwind IT");
}
afterEach(() => t.close());

async function client(name: string): Promise<string> {
  const res = await t.json("POST", "/api/orgs/clients", { cookie: msp.cookie, body: { name } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

interface DomainSpec {
  name: string;
  policy: string | null;
  record?: string;
  spf?: string;
  dkim?: string;
  createdAgo?: number;
  /** DNS check rows (policy, spf, dkim, record), oldest first, at these times ago */
  history?: [number, string, string, string, string | null][];
}

async function domain(orgId: string, spec: DomainSpec): Promise<string> {
  const spf = spec.spf ?? "valid";
  const dkim = spec.dkim ?? "valid";
  const [row] = await t.deps.store.db
    .insert(domains)
    .values({ orgId, name: spec.name, dmarcPolicy: spec.policy, spfStatus: spec.policy === null ? null : spf, dkimStatus: spec.policy === null ? null : dkim, overallStatus: spec.policy === null ? "pending" : "partial", createdAt: ago(spec.createdAgo ?? 40 * DAY), lastCheckedAt: spec.policy === null ? null : ago(HOUR) })
    .returning({ id: domains.id });
  const history = spec.history ?? (spec.policy === null ? [] : [[20 * DAY, spec.policy, spf, dkim, spec.record ?? null]]);
  for (const [at, policy, s, k, record] of history) {
    await t.deps.store.db.insert(domainRecordHistory).values({ orgId, domainId: row!.id, checkedAt: ago(at), dmarcPolicy: policy, spfStatus: s, dkimStatus: k, overallStatus: "partial", dmarcRecord: record });
  }
  return row!.id;
}

/** A report whose period ended `endedAgo` before now, received an hour after that. */
async function report(orgId: string, name: string, records: GeneratedRecord[], endedAgo: number) {
  const end = ago(endedAgo);
  clock = new Date(end.getTime() + HOUR);
  const xml = aggregateXml({ orgName: "google.com", reportId: `r-${++seq}`, begin: new Date(end.getTime() - DAY), end, domain: name, p: "none", records });
  const result = await ingestFile(t.deps, { orgId, fileName: `r${seq}.xml`, bytes: strToU8(xml), source: "upload" });
  clock = NOW;
  expect(result.status).toBe("ingested");
}

const mark = (orgId: string, senderKey: string, verdict: "approved" | "not_ours") => t.deps.store.db.insert(senderMarks).values({ orgId, senderKey, verdict, markedAt: NOW } as never);

/** Mail of a domain over the window: passing mail, a known service failing, spoofing delivered, an ESP without a service name, IPs of no name. */
const mixedMail = (c: number, spoofed: number): GeneratedRecord[] => [
  { sourceIp: `10.9.${c}.1`, count: 400, dkim: "pass", spf: "pass" },
  { sourceIp: `167.89.${c}.10`, count: 12, dkim: "fail", spf: "fail", disposition: "none" },
  { sourceIp: `167.89.${c}.11`, count: 4, dkim: "fail", spf: "fail", disposition: "quarantine" },
  { sourceIp: `209.85.${c}.3`, count: 2, dkim: "fail", spf: "fail", disposition: "none" },
  { sourceIp: `198.18.5.${c}`, count: 6, dkim: "fail", spf: "fail", disposition: "none" },
  { sourceIp: `203.0.113.${c}`, count: spoofed, dkim: "fail", spf: "fail", disposition: "none" },
  { sourceIp: `203.0.113.${100 + c}`, count: 9, dkim: "fail", spf: "fail", disposition: "reject" },
];

/** The clients and their situations; their ids by name. */
async function world(): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  const add = async (name: string) => {
    const id = await client(name);
    ids.set(name, id);
    return id;
  };

  // every policy and status, history of different shapes, domains of different ages
  const a = await add("A policies");
  await domain(a, { name: "missing.a.example", policy: "missing", spf: "missing", dkim: "missing", history: [] });
  await domain(a, { name: "invalid.a.example", policy: "invalid", spf: "invalid", dkim: "invalid", record: "v=DMARC1; p=sometimes" });
  await domain(a, { name: "none.a.example", policy: "none", spf: "too many lookups", dkim: "weak key", history: [[30 * DAY, "missing", "valid", "weak key", null], [12 * DAY, "none", "valid", "weak key", "v=DMARC1; p=none"], [5 * DAY, "none", "too many lookups", "weak key", "v=DMARC1; p=none; rua=mailto:x@none.a.example"]] });
  await domain(a, { name: "quarantine.a.example", policy: "quarantine", record: "v=DMARC1; p=quarantine; pct=50" });
  await domain(a, { name: "reject.a.example", policy: "reject", record: "v=DMARC1; p=reject; pct=100; rua=mailto:r@reject.a.example", createdAgo: 3 * DAY });
  await domain(a, { name: "new.a.example", policy: "reject", record: "v=DMARC1; p=reject; rua=mailto:r@new.a.example", createdAgo: HOUR });
  await domain(a, { name: "future.a.example", policy: "missing", createdAgo: -HOUR });
  await domain(a, { name: "unchecked.a.example", policy: null });
  // the row changed after the last history row (statuses written without a history row)
  await domain(a, { name: "moved.a.example", policy: "reject", record: "v=DMARC1; p=reject; rua=mailto:m@moved.a.example", history: [[9 * DAY, "none", "valid", "missing", "v=DMARC1; p=none; pct=50; rua=mailto:m@moved.a.example"]] });
  const stale = await domain(a, { name: "stale.a.example", policy: "quarantine", record: "v=DMARC1; p=quarantine; rua=mailto:s@stale.a.example" });
  await report(a, "stale.a.example", [{ sourceIp: "10.1.1.1", count: 50, dkim: "pass", spf: "pass" }], 10 * DAY);
  expect(stale).toBeTruthy();

  // failing services and spoofing, without marks: at p=none (urgent spoofing), quarantine and reject
  const b = await add("B failing");
  await domain(b, { name: "none.b.example", policy: "none", record: "v=DMARC1; p=none; rua=mailto:b@none.b.example" });
  await domain(b, { name: "quarantine.b.example", policy: "quarantine", record: "v=DMARC1; p=quarantine; rua=mailto:b@quarantine.b.example" });
  await domain(b, { name: "reject.b.example", policy: "reject", record: "v=DMARC1; p=reject; rua=mailto:b@reject.b.example" });
  for (const [i, name] of ["none.b.example", "quarantine.b.example", "reject.b.example"].entries()) {
    await report(b, name, mixedMail(10 + i, 30), 2 * DAY);
    await report(b, name, mixedMail(10 + i, 5), 4 * DAY);
    // failing first seen earlier from an unnamed address, and from a known service's second address
    await report(b, name, [{ sourceIp: `203.0.113.${200 + i}`, count: 2, dkim: "fail", spf: "fail", disposition: "none" }, { sourceIp: `167.89.${10 + i}.11`, count: 1, dkim: "fail", spf: "fail", disposition: "none" }], 5 * DAY);
    // outside the report window: long ago, and on the day just before it (its period began 7 days ago)
    await report(b, name, [{ sourceIp: "198.51.100.77", count: 500, dkim: "fail", spf: "fail", disposition: "none" }], 12 * DAY);
    await report(b, name, [{ sourceIp: "198.51.100.66", count: 40, dkim: "fail", spf: "fail", disposition: "none" }, { sourceIp: "167.89.99.1", count: 40, dkim: "fail", spf: "fail", disposition: "none" }], 6 * DAY);
  }

  // the same mail, with marks: a service not ours, a provider approved, one IP approved, one IP not ours
  const c = await add("C marks");
  await domain(c, { name: "none.c.example", policy: "none", record: "v=DMARC1; p=none; rua=mailto:c@none.c.example" });
  await domain(c, { name: "reject.c.example", policy: "reject", record: "v=DMARC1; p=reject; rua=mailto:c@reject.c.example" });
  for (const [i, name] of ["none.c.example", "reject.c.example"].entries()) {
    await report(c, name, mixedMail(20 + i, 8), 3 * DAY);
  }
  await mark(c, "service:Twilio SendGrid", "not_ours");
  await mark(c, "domain:bulk-esp.example", "approved");
  await mark(c, "ip:203.0.113.20", "approved");
  await mark(c, "ip:203.0.113.121", "not_ours");

  // p=none with nearly all mail passing and nothing of its own failing: ready to enforce
  const r = await add("R ready");
  await domain(r, { name: "ready.r.example", policy: "none", record: "v=DMARC1; p=none; rua=mailto:r@ready.r.example" });
  await report(r, "ready.r.example", [{ sourceIp: "10.7.7.7", count: 1000, dkim: "pass", spf: "pass" }, { sourceIp: "203.0.113.250", count: 3, dkim: "fail", spf: "fail", disposition: "none" }], DAY);
  await report(r, "ready.r.example", [{ sourceIp: "10.7.7.7", count: 10, dkim: "pass", spf: "pass" }, { sourceIp: "203.0.113.251", count: 300, dkim: "fail", spf: "fail", disposition: "quarantine" }], 6 * DAY);

  // where reports go: the settings' rua, an IMAP mailbox (an address, and a user name that is not one), OAuth mailboxes
  const d = await add("D settings rua");
  await domain(d, { name: "missing.d.example", policy: "missing", history: [] });
  await domain(d, { name: "norua.d.example", policy: "none", record: "v=DMARC1; p=none" });
  await t.deps.store.db.insert(organizationSettings).values({ orgId: d, dmarcRua: "mailto:dmarc@msp-reports.example" } as never);
  const e = await add("E imap");
  await domain(e, { name: "missing.e.example", policy: "missing", history: [] });
  await t.deps.store.db.insert(reportMailboxes).values({ orgId: e, host: "imap.e.example", port: 993, username: "reports@e.example", passwordEncrypted: "v1.x.y.z" });
  const e2 = await add("E2 imap user");
  await domain(e2, { name: "missing.e2.example", policy: "missing", history: [] });
  await t.deps.store.db.insert(reportMailboxes).values({ orgId: e2, host: "imap.e2.example", port: 993, username: "dmarc-reader", passwordEncrypted: "v1.x.y.z" });
  const f = await add("F oauth");
  await domain(f, { name: "missing.f.example", policy: "missing", history: [] });
  await t.deps.store.db.insert(oauthMailboxes).values([
    { orgId: f, provider: "microsoft", email: "gone@f.example", status: "reconnect", refreshTokenEncrypted: "v1.x", createdAt: ago(9 * DAY) },
    { orgId: f, provider: "google", email: "zz@f.example", status: "active", refreshTokenEncrypted: "v1.x", createdAt: ago(5 * DAY) },
    { orgId: f, provider: "microsoft", email: "aa@f.example", status: "active", refreshTokenEncrypted: "v1.x", createdAt: ago(5 * DAY) },
  ] as never);
  const f2 = await add("F2 oauth withdrawn");
  await domain(f2, { name: "missing.f2.example", policy: "missing", history: [] });
  await t.deps.store.db.insert(oauthMailboxes).values({ orgId: f2, provider: "google", email: "old@f2.example", status: "reconnect", refreshTokenEncrypted: "v1.x" } as never);

  await add("G no domains");
  await reverseDnsSettled();
  return ids;
}

/** Every client's open tasks in the portfolio against its own Tasks screen's; the screens' lists. */
async function compare(ids: Map<string, string>) {
  const portfolio = await t.json("GET", "/api/portfolio", { cookie: msp.cookie });
  expect(portfolio.status).toBe(200);
  const openTasks = new Map((portfolio.body.clients as { id: string; openTasks: number }[]).map((c) => [c.id, c.openTasks]));
  const own = new Map<string, any[]>();
  for (const [name, id] of ids) {
    const res = await t.json("GET", "/api/tasks", { cookie: await signIn(t.deps.store, msp.userId, id) });
    expect(res.status).toBe(200);
    own.set(name, res.body);
    expect({ client: name, openTasks: openTasks.get(id) }).toEqual({ client: name, openTasks: res.body.length });
  }
  return own;
}

/** The kinds of task (the code before the domain id) a client's list holds. */
const codes = (tasks: { id: string }[]) => new Set(tasks.map((task) => task.id.replace(/:[^:]*$/, "")));

test("each client's open tasks in the portfolio are exactly its own Tasks screen's (SMTP receiver off)", async () => {
  await setUp();
  const ids = await world();
  const own = await compare(ids);

  // the world is not trivial: every kind of task, and the inputs that shape them
  const all = codes([...own.values()].flat());
  for (const code of ["dmarc-missing", "dmarc-invalid", "dmarc-none", "dmarc-quarantine", "dmarc-no-rua", "dmarc-pct", "spf-missing", "spf-invalid", "spf-lookups", "dkim-missing", "dkim-weak", "dkim-invalid", "sender-twilio-sendgrid", "sender-google-including-gmail-and-google-workspace", "senders-review", "reports-none", "reports-stale"]) {
    expect({ code, present: all.has(code) }).toEqual({ code, present: true });
  }
  const a = own.get("A policies")!;
  expect(a.some((task) => task.domain === "future.a.example" || task.domain === "unchecked.a.example")).toBe(false);
  expect(a.some((task) => task.domain === "new.a.example")).toBe(false);
  // the history dates a status; a row changed without a history row dates from the domain's creation
  expect(a.find((task) => task.id.startsWith("spf-lookups:"))!.createdAt).toBe(stored(ago(5 * DAY)));
  expect(a.find((task) => task.id.startsWith("dkim-weak:"))!.createdAt).toBe(stored(ago(30 * DAY)));
  expect(a.find((task) => task.id.startsWith("dmarc-pct:") && task.domain === "moved.a.example")!.createdAt).toBe(stored(ago(40 * DAY)));
  // marks: SendGrid not ours is spoofing for C, an approved provider and an approved IP are its own senders
  expect(codes(own.get("C marks")!).has("sender-twilio-sendgrid")).toBe(false);
  expect(codes(own.get("C marks")!).has("sender-bulk-esp-example")).toBe(true);
  expect(codes(own.get("C marks")!).has("sender-203-0-113-20")).toBe(true);
  expect(codes(own.get("B failing")!).has("sender-bulk-esp-example")).toBe(false);
  expect(own.get("B failing")!.find((task) => task.id.startsWith("dmarc-none:"))!.priority).toBe("high");
  expect(own.get("R ready")!.find((task) => task.id.startsWith("dmarc-none:"))!.description).toContain("so it is ready");
  // where reports go shapes the suggested rua
  expect(own.get("D settings rua")!.find((task) => task.id.startsWith("dmarc-missing:"))!.description).toContain("rua=mailto:dmarc@msp-reports.example");
  expect(own.get("E imap")!.find((task) => task.id.startsWith("dmarc-missing:"))!.description).toContain("rua=mailto:reports@e.example");
  expect(own.get("F oauth")!.find((task) => task.id.startsWith("dmarc-missing:"))!.description).toContain("rua=mailto:aa@f.example");
  expect(own.get("G no domains")).toEqual([]);
});

test("each client's open tasks in the portfolio are exactly its own Tasks screen's (SMTP receiver on)", async () => {
  await setUp({ smtpDomain: "Reports.MSP.example", smtpPort: 2525 });
  const ids = await world();
  const own = await compare(ids);
  // this server's report address (the client's own token) is the suggested rua
  const description = own.get("E imap")!.find((task) => task.id.startsWith("dmarc-missing:"))!.description as string;
  expect(description).toMatch(/rua=mailto:[a-z0-9]+@reports\.msp\.example/);
});
