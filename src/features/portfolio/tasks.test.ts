import { describe, expect, test } from "bun:test";
import { failingSenders, markedIpsOf, withMarks } from "../../lib/task-inputs";
import { deriveTasks } from "../../lib/tasks";
import { rowsOf, rowsPerClient, taskCounts } from "./tasks";

const now = new Date("2025-06-01T12:00:00Z");
const days = (n: number) => new Date(now.getTime() - n * 86_400_000);
const domain = (orgId: string, id: string, over: Record<string, unknown> = {}) => ({
  orgId,
  id,
  name: `${id}.example`,
  dmarcPolicy: "reject",
  spfStatus: "valid",
  dkimStatus: "valid",
  overallStatus: "protected",
  createdAt: days(30),
  lastReportAt: days(1),
  dmarcRecord: `v=DMARC1; p=reject; rua=mailto:dmarc@${id}.example`,
  ...over,
});
const failing = (orgId: string, domainId: string, ip: string, n: number, name?: { service: string | null; baseDomain: string | null }) => ({ orgId, domainId, ip, failing: n, delivered: n, firstSeen: Math.floor(days(2).getTime() / 1000), name });

describe("rowsPerClient", () => {
  test("each client's rows, in the order they came, whether or not a client's rows come together", () => {
    const grouped = rowsPerClient({
      domains: [domain("a", "a1"), domain("b", "b1"), domain("a", "a2")],
      failing: [failing("b", "b1", "203.0.113.1", 5), failing("a", "a1", "203.0.113.2", 3), failing("b", "b1", "203.0.113.3", 1)],
      marks: [{ orgId: "c", key: "ip:203.0.113.9", verdict: "approved" as const }],
    });
    expect(rowsOf(grouped, "a").domains.map((d) => d.id)).toEqual(["a1", "a2"]);
    expect(rowsOf(grouped, "b").failing.map((r) => r.ip)).toEqual(["203.0.113.1", "203.0.113.3"]);
    expect(rowsOf(grouped, "c")).toMatchObject({ domains: [], failing: [], marks: [{ key: "ip:203.0.113.9" }] });
    expect(rowsOf(grouped, "nobody")).toEqual({ domains: [], failing: [], marks: [] });
  });
});

describe("taskCounts", () => {
  const count = (read: Parameters<typeof rowsPerClient>[0], id = "a") => taskCounts(rowsPerClient(read), [id], now).get(id);

  test("a domain added after the moment counted has no task yet", () => {
    expect(count({ domains: [domain("a", "a1", { dmarcPolicy: "missing", dmarcRecord: null, createdAt: new Date(now.getTime() + 1000) })], failing: [], marks: [] })).toBe(0);
    expect(count({ domains: [domain("a", "a1", { dmarcPolicy: "missing", dmarcRecord: null })], failing: [], marks: [] })).toBe(1);
  });

  test("failing mail: a known service is a set-up task, spoofing a review task; marks move a sender between them", () => {
    const rows = [failing("a", "a1", "167.89.0.1", 4, { service: "Twilio SendGrid", baseDomain: "sendgrid.net" }), failing("a", "a1", "203.0.113.7", 30)];
    // Authenticate Twilio SendGrid, Review unrecognised senders
    expect(count({ domains: [domain("a", "a1")], failing: rows, marks: [] })).toBe(2);
    // the service marked not ours: spoofing, one review task
    expect(count({ domains: [domain("a", "a1")], failing: rows, marks: [{ orgId: "a", key: "service:Twilio SendGrid", verdict: "not_ours" }] })).toBe(1);
    // the address approved one by one: a second sender of yours, and too little spoofing left to review
    expect(count({ domains: [domain("a", "a1")], failing: rows, marks: [{ orgId: "a", key: "ip:203.0.113.7", verdict: "approved" }] })).toBe(2);
    // another client's marks change nothing
    expect(count({ domains: [domain("a", "a1")], failing: rows, marks: [{ orgId: "b", key: "service:Twilio SendGrid", verdict: "not_ours" }] })).toBe(2);
  });

  test("every client counted at once has as many tasks as its own list, whether its failing mail is named, marked or neither", () => {
    const sendgrid = { service: "Twilio SendGrid", baseDomain: "sendgrid.net" };
    const read = {
      domains: [
        domain("plain1", "p1a", { dmarcPolicy: "none", dmarcRecord: "v=DMARC1; p=none; rua=mailto:x@p1a.example" }),
        domain("plain1", "p1b"),
        domain("plain2", "p2a", { dmarcPolicy: "quarantine", dmarcRecord: "v=DMARC1; p=quarantine; pct=50" }),
        domain("named", "na", { dkimStatus: "missing" }),
        domain("marked", "ma"),
        domain("quiet", "qa", { spfStatus: "missing", createdAt: new Date(now.getTime() + 60_000) }),
        domain("quiet", "qb", { lastReportAt: days(9) }),
      ],
      failing: [
        failing("plain1", "p1a", "203.0.113.1", 25),
        failing("plain2", "p2a", "203.0.113.1", 6),
        failing("plain1", "p1b", "203.0.113.2", 4),
        failing("plain2", "p2a", "203.0.113.3", 6),
        failing("plain1", "p1b", "203.0.113.4", 7),
        failing("named", "na", "167.89.0.1", 3, sendgrid),
        failing("named", "na", "203.0.113.5", 12),
        failing("marked", "ma", "203.0.113.6", 30),
        failing("marked", "ma", "203.0.113.7", 2),
      ],
      marks: [{ orgId: "marked", key: "ip:203.0.113.6", verdict: "approved" as const }],
    };
    const ids = ["plain1", "plain2", "named", "marked", "quiet", "empty"];
    const grouped = rowsPerClient(read);
    // each client's own list: its rows alone, through the inputs the dashboard builds
    const own = ids.map((id) => {
      const rows = rowsOf(grouped, id);
      const marks = new Map(rows.marks.map((m) => [m.key, m.verdict]));
      const names = new Map(rows.failing.filter((r) => r.name).map((r) => [r.ip, r.name!]));
      const senders = withMarks(failingSenders(rows.failing, (ip) => names.get(ip), markedIpsOf(marks)), marks);
      return deriveTasks({ now, domains: rows.domains.filter((d) => d.createdAt <= now), failing: senders }).length;
    });
    expect(ids.map((id) => taskCounts(grouped, ids, now).get(id))).toEqual(own);
    expect(own).toEqual([2, 4, 3, 1, 1, 0]);
  });
});
