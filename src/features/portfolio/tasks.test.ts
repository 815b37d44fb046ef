import { describe, expect, test } from "bun:test";
import { rowsOf, rowsPerClient, taskCountOf } from "./tasks";

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

describe("taskCountOf", () => {
  const count = (read: Parameters<typeof rowsPerClient>[0], id = "a") => taskCountOf(rowsOf(rowsPerClient(read), id), now);

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
});
