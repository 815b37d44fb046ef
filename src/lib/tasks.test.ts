import { describe, expect, test } from "bun:test";
import { deriveTasks, statusSince, type DomainState } from "./tasks";
import { threatLevel } from "./threat-level";

const now = new Date("2025-06-01T12:00:00Z");
const days = (n: number) => new Date(now.getTime() - n * 86_400_000);
const domain = (over: Partial<DomainState> = {}): DomainState => ({
  id: "d1",
  name: "acme.example",
  dmarcPolicy: "reject",
  spfStatus: "valid",
  dkimStatus: "valid",
  dmarcRecord: "v=DMARC1; p=reject; rua=mailto:dmarc@acme.example",
  createdAt: days(30),
  lastReportAt: days(1),
  ...over,
});
const titles = (d: DomainState, extra = {}) => deriveTasks({ now, domains: [d], ...extra }).map((t) => `${t.priority}: ${t.title}`);

describe("deriveTasks", () => {
  test("a protected domain with reports flowing has no task", () => {
    expect(titles(domain())).toEqual([]);
  });

  test("an unchecked domain (statuses null) has no task yet", () => {
    expect(titles(domain({ dmarcPolicy: null, spfStatus: null, dkimStatus: null, dmarcRecord: null }))).toEqual([]);
  });

  test.each([
    [{ dmarcPolicy: "missing", dmarcRecord: null }, "high: Publish a DMARC record for acme.example"],
    [{ dmarcPolicy: "invalid", dmarcRecord: "v=DMARC1; p=maybe" }, "high: Fix the DMARC record for acme.example"],
    [{ dmarcPolicy: "none", dmarcRecord: "v=DMARC1; p=none; rua=mailto:d@acme.example" }, "medium: Move acme.example from p=none to quarantine"],
    [{ dmarcPolicy: "quarantine", dmarcRecord: "v=DMARC1; p=quarantine; rua=mailto:d@acme.example" }, "low: Move acme.example from quarantine to reject"],
    [{ dmarcRecord: "v=DMARC1; p=reject" }, "medium: Receive DMARC reports for acme.example"],
    [{ dmarcRecord: "v=DMARC1; p=reject; pct=25; rua=mailto:d@acme.example" }, "low: Apply acme.example's DMARC policy to all mail"],
    [{ spfStatus: "missing" }, "high: Publish an SPF record for acme.example"],
    [{ spfStatus: "invalid" }, "high: Fix the SPF record for acme.example"],
    [{ spfStatus: "too many lookups" }, "high: Cut the SPF DNS lookups of acme.example to 10 or fewer"],
    [{ dkimStatus: "missing" }, "medium: Set up DKIM for acme.example"],
    [{ dkimStatus: "weak key" }, "medium: Replace the weak DKIM key of acme.example"],
    [{ dkimStatus: "invalid" }, "high: Fix the DKIM record of acme.example"],
    [{ lastReportAt: days(9) }, "medium: No DMARC reports for acme.example in 7 days"],
    [{ lastReportAt: null, createdAt: days(3) }, "medium: No DMARC reports received yet for acme.example"],
  ] as [Partial<DomainState>, string][])("%p → %s", (over, expected) => {
    expect(titles(domain(over))).toEqual([expected]);
  });

  test("a new domain gets 48 hours before 'no reports yet'", () => {
    expect(titles(domain({ lastReportAt: null, createdAt: new Date(now.getTime() - 47 * 3_600_000) }))).toEqual([]);
  });

  test("a named service failing DMARC is high once the policy is enforced, medium before", () => {
    const failing = [{ domainId: "d1", service: "Twilio SendGrid", sources: 2, messages: 40, delivered: 0, firstSeenAt: days(2) }];
    expect(titles(domain(), { failing })).toEqual(["high: Authenticate Twilio SendGrid for acme.example"]);
    expect(titles(domain({ dmarcPolicy: "none", dmarcRecord: "v=DMARC1; p=none; rua=mailto:d@acme.example" }), { failing })).toContain("medium: Authenticate Twilio SendGrid for acme.example");
  });

  test("p=none becomes high when 20+ spoofed messages reached inboxes; says when it is ready to enforce", () => {
    const none = domain({ dmarcPolicy: "none", dmarcRecord: "v=DMARC1; p=none; rua=mailto:d@acme.example" });
    const spoof = [{ domainId: "d1", service: null, sources: 3, messages: 25, delivered: 25, firstSeenAt: days(1) }];
    const [task] = deriveTasks({ now, domains: [none], failing: spoof, traffic: [{ domainId: "d1", messages: 10_000, passing: 9_975 }] });
    expect(task!.priority).toBe("high");
    expect(task!.description).toContain("25 messages from 3 unrecognised sources");
    expect(task!.description).toContain("99.8% of its mail passed DMARC");
  });

  test("tasks come from the readiness blockers: p=none names the senders of yours that would be quarantined and links to the domain's readiness panel", () => {
    const none = domain({ dmarcPolicy: "none", dmarcRecord: "v=DMARC1; p=none; rua=mailto:d@acme.example" });
    const failing = [
      { domainId: "d1", service: "Twilio SendGrid", sources: 1, messages: 40, delivered: 40, firstSeenAt: days(2) },
      { domainId: "d1", service: null, sender: "office.example", senderKey: "domain:office.example", mark: "approved" as const, sources: 1, messages: 60, delivered: 60, firstSeenAt: days(2) },
      { domainId: "d1", service: "Google", mark: "not_ours" as const, sources: 1, messages: 5, delivered: 5, firstSeenAt: days(2) },
    ];
    const tasks = deriveTasks({ now, domains: [none], failing, traffic: [{ domainId: "d1", messages: 10_000, passing: 9_895 }] });
    const move = tasks.find((t) => t.id === "dmarc-none:d1")!;
    expect(move.description).toContain("2 senders of yours (office.example, Twilio SendGrid) would be quarantined: fix them first; the readiness panel of acme.example says how.");
    expect(move.description).not.toContain("so it is ready");
    expect(move.link).toBe("/app/domains/d1#readiness");
    expect(tasks.filter((t) => t.category === "senders" && t.title.startsWith("Authenticate")).map((t) => [t.title, t.link])).toEqual([
      ["Authenticate office.example for acme.example", "/app/domains/d1#readiness"],
      ["Authenticate Twilio SendGrid for acme.example", "/app/domains/d1#readiness"],
    ]);
  });

  test("unrecognised senders under an enforced policy are a low review task", () => {
    const failing = [{ domainId: "d1", service: null, sources: 4, messages: 12, delivered: 0, firstSeenAt: days(1) }];
    expect(titles(domain(), { failing })).toEqual(["low: Review unrecognised senders for acme.example"]);
  });

  test("sorted high, medium, low; the suggested rua is the organization's address", () => {
    const tasks = deriveTasks({ now, domains: [domain({ dmarcPolicy: "missing", dmarcRecord: null, dkimStatus: "missing" }), domain({ id: "d2", name: "b.example", dmarcPolicy: "quarantine", dmarcRecord: "v=DMARC1; p=quarantine; rua=mailto:x@b.example" })], ruaAddress: "org@reports.test" });
    expect(tasks.map((t) => t.priority)).toEqual(["high", "medium", "low"]);
    expect(tasks[0]!.description).toContain("rua=mailto:org@reports.test");
    expect(new Set(tasks.map((t) => t.id)).size).toBe(tasks.length);
  });

  test("a domain's changed DMARC record is read again: adding rua= closes the report task, removing it opens it", () => {
    const without = domain({ dmarcRecord: "v=DMARC1; p=reject" });
    const withRua = domain({ dmarcRecord: "v=DMARC1; p=reject; rua=mailto:dmarc@acme.example" });
    expect(titles(without)).toEqual(["medium: Receive DMARC reports for acme.example"]);
    expect(titles(withRua)).toEqual([]);
    expect(titles(without)).toEqual(["medium: Receive DMARC reports for acme.example"]);
    expect(titles(domain({ dmarcRecord: "v=DMARC1; p=reject; pct=40; rua=mailto:dmarc@acme.example" }))).toEqual(["low: Apply acme.example's DMARC policy to all mail"]);
    expect(titles(withRua)).toEqual([]);
  });

  test("counts are written with thousands separators, as en-US writes them", () => {
    const none = domain({ dmarcPolicy: "none", dmarcRecord: "v=DMARC1; p=none; rua=mailto:d@acme.example" });
    const failing = [
      { domainId: "d1", service: "Twilio SendGrid", sources: 1, messages: 1_234_567, delivered: 0, firstSeenAt: days(2) },
      { domainId: "d1", service: null, sources: 1_000, messages: 999, delivered: 12_345, firstSeenAt: days(1) },
    ];
    const text = deriveTasks({ now, domains: [none], failing }).map((t) => t.description).join("\n");
    expect(text).toContain("Twilio SendGrid sent 1,234,567 messages as acme.example");
    expect(text).toContain("12,345 messages from 1,000 unrecognised sources failed DMARC and reached inboxes");
  });

  test("within a priority the newest cause comes first, then by id", () => {
    const failing = [
      { domainId: "d1", service: "Mailgun", sources: 1, messages: 5, delivered: 0, firstSeenAt: days(3) },
      { domainId: "d1", service: "Brevo", sources: 1, messages: 4, delivered: 0, firstSeenAt: days(1) },
      { domainId: "d1", service: "Amazon SES", sources: 1, messages: 3, delivered: 0, firstSeenAt: days(3) },
    ];
    const tasks = deriveTasks({ now, domains: [domain({ spfStatus: "missing", since: { spf: days(2) } })], failing });
    expect(tasks.map((t) => t.title)).toEqual([
      "Authenticate Brevo for acme.example",
      "Publish an SPF record for acme.example",
      "Authenticate Amazon SES for acme.example",
      "Authenticate Mailgun for acme.example",
    ]);
  });
});

test("statusSince: the start of the last unbroken run of each status", () => {
  const row = (day: number, dmarcPolicy: string, spfStatus: string) => ({ domainId: "d1", checkedAt: days(day), dmarcPolicy, spfStatus, dkimStatus: "valid", dmarcRecord: null });
  const since = statusSince([row(10, "none", "valid"), row(6, "quarantine", "valid"), row(3, "quarantine", "invalid"), row(1, "quarantine", "invalid")]);
  expect(since).toEqual({ dmarc: days(6), spf: days(3), dkim: days(10) });
  expect(statusSince([])).toEqual({});
});

describe("threatLevel", () => {
  test.each([
    [{ attempts: 100, delivered: 0 }, "high"],
    [{ attempts: 20, delivered: 20 }, "high"],
    [{ attempts: 99, delivered: 0 }, "medium"],
    [{ attempts: 10, delivered: 0 }, "medium"],
    [{ attempts: 2, delivered: 1 }, "medium"],
    [{ attempts: 9, delivered: 0 }, "low"],
    [{ attempts: 500, delivered: 0, knownService: "Google" }, "medium"],
    [{ attempts: 3, delivered: 0, knownService: "Google" }, "low"],
  ] as const)("%p → %s", (input, level) => {
    expect(threatLevel(input)).toBe(level);
  });
});
