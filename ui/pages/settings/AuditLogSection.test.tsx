import { describe, expect, test } from "bun:test";
import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { cleanUpAfterEach, json, renderWithProviders, withFetch } from "../../../tests/support/ui";
import { AuditLogSection } from "./AuditLogSection";

cleanUpAfterEach();

const me = (role: string) => ({ user: { id: "u", name: "U", email: "u@example.test" }, currentOrg: { id: "o", name: "Org", role } });
const entry = (id: string, action: string, target: string, extra: object = {}) => ({
  id,
  at: "2026-03-01T10:00:00.000Z",
  actorKind: "user",
  actorId: "u1",
  actorLabel: "ann@example.test",
  action,
  target,
  address: "203.0.113.9",
  data: null,
  ...extra,
});

describe("Settings › Audit log", () => {
  test("admins see who did what from where, filter by action and user, and page to older records", async () => {
    const stub = withFetch((url) => {
      if (url === "/api/auth/me") return json(me("admin"));
      if (url === "/api/members") return json({ members: [{ id: "m1", userId: "u1", name: "Ann", email: "ann@example.test", role: "owner", joinedAt: "2026-01-01T00:00:00Z" }], invitations: [] });
      const u = new URL(url, "http://x");
      if (u.pathname === "/api/audit") {
        if (u.searchParams.get("action") === "domain.removed") return json({ entries: [entry("e9", "domain.removed", "old.example")], nextCursor: null, actions: {} });
        if (u.searchParams.get("cursor") === "c2") return json({ entries: [entry("e3", "domain.added", "first.example")], nextCursor: null, actions: {} });
        return json({
          entries: [entry("e1", "retention.changed", "", { target: null, data: { retentionAggregateDays: { from: 400, to: 200 } } }), entry("e2", "member.invited", "new@example.test")],
          nextCursor: "c2",
          actions: {},
        });
      }
      return json({ error: { code: "not_found", message: "No such endpoint." } }, 404);
    });
    renderWithProviders(<AuditLogSection />);
    const user = userEvent.setup();
    const list = () => within(screen.getByRole("list", { name: "Audit records" }));
    await screen.findByRole("list", { name: "Audit records" });
    expect(list().getByText("Retention changed")).toBeTruthy();
    expect(screen.getByText(/Aggregate reports kept \(days\): 400 → 200/)).toBeTruthy();
    expect(screen.getByText(/new@example\.test/)).toBeTruthy();
    expect(screen.getAllByText("from 203.0.113.9")).toHaveLength(2);

    await user.click(screen.getByRole("button", { name: "Show older" }));
    expect(await screen.findByText(/first\.example/)).toBeTruthy();

    await user.selectOptions(screen.getByLabelText("Action"), "domain.removed");
    expect(await screen.findByText(/old\.example/)).toBeTruthy();
    await waitFor(() => expect(list().queryByText("Retention changed")).toBeNull());

    await user.selectOptions(screen.getByLabelText("User"), "u1");
    await waitFor(() => expect(stub.calls.some((c) => c.url.includes("actor=u1") && c.url.includes("action=domain.removed"))).toBe(true));
  });

  test("members and viewers do not see it", async () => {
    const stub = withFetch((url) => (url === "/api/auth/me" ? json(me("member")) : json({ error: { code: "forbidden", message: "No" } }, 403)));
    renderWithProviders(<AuditLogSection />);
    await waitFor(() => expect(stub.calls.some((c) => c.url === "/api/auth/me")).toBe(true));
    expect(screen.queryByText("Audit log")).toBeNull();
    expect(stub.calls.some((c) => c.url.startsWith("/api/audit"))).toBe(false);
  });
});
