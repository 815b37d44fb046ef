import { describe, expect, test } from "bun:test";
import type { ContactSubmission } from "../../../src/features/admin/contract";
import { countSubmissions, filterSubmissions, requestTypeBadgeClass } from "./submissions";

const base: ContactSubmission = { id: "1", name: "Ann Lee", email: "ann@acme.test", phone: null, company: "Acme", domains: null, requestType: "sales", subject: "Pricing", message: "m".repeat(30), isRead: false, submittedAt: "2025-03-01T10:00:00.000Z" };
const list: ContactSubmission[] = [
  base,
  { ...base, id: "2", name: "Bob Stone", email: "bob@zeta.test", company: "Zeta Dental", requestType: "support", subject: "SPF broken", isRead: true },
  { ...base, id: "3", name: "Cy Park", email: "cy@omega.test", company: "Omega", requestType: "demo", subject: "See a DEMO please", isRead: false },
  { ...base, id: "4", name: "Di Ray", email: "di@acme.test", company: "Acme", requestType: "support", subject: "Help", isRead: false },
];
const ids = (l: ContactSubmission[]) => l.map((s) => s.id);

describe("admin console list logic (SPEC §5 Admin filter)", () => {
  test("counters", () => {
    expect(countSubmissions(list)).toEqual({ total: 4, unread: 3, sales: 1, support: 2 });
    expect(countSubmissions([])).toEqual({ total: 0, unread: 0, sales: 0, support: 0 });
  });

  test.each([
    ["all", ["1", "2", "3", "4"]],
    ["unread", ["1", "3", "4"]],
    ["sales", ["1"]],
    ["support", ["2", "4"]],
  ] as const)("filter %p", (filter, expected) => {
    expect(ids(filterSubmissions(list, "", filter))).toEqual([...expected]);
  });

  test.each([
    ["ACME", ["1", "4"]], // company (and email)
    ["bob@", ["2"]], // email
    ["demo", ["3"]], // subject, case-insensitive
    ["stone", ["2"]], // name
    ["  park ", ["3"]], // trimmed
    ["mmmm", []], // the message is not searched
  ] as const)("search %p", (search, expected) => {
    expect(ids(filterSubmissions(list, search, "all"))).toEqual([...expected]);
  });

  test("search and filter combine", () => {
    expect(ids(filterSubmissions(list, "acme", "support"))).toEqual(["4"]);
  });

  test("request type badges: sales, support, demo styled; others share one style", () => {
    const classes = ["sales", "support", "demo"].map(requestTypeBadgeClass);
    expect(new Set(classes).size).toBe(3);
    expect(requestTypeBadgeClass("billing")).toBe(requestTypeBadgeClass("other"));
    expect(classes).not.toContain(requestTypeBadgeClass("other"));
  });
});
