/**
 * The audit log: the actions of a session land in the organisation's log with who, what, when and
 * from where; admins page through it newest first and filter it; nothing in the API changes it;
 * secrets never reach it; another organisation never sees it.
 */
import { afterEach, expect, test } from "bun:test";
import { recordAudit, scrubAuditData } from "../../src/features/audit/service";
import { hashToken } from "../../src/lib/tokens";
import { makeTestApp, type TestApp } from "../support/app";
import { addMember, createUser, signedInMember, signIn } from "../support/fixtures";

let t: TestApp;
afterEach(() => t?.close());

const FROM = { "x-forwarded-for": "203.0.113.45" };

async function setup() {
  t = await makeTestApp({ config: { trustProxy: true } });
  const owner = await signedInMember(t.deps.store, "owner", "Audit Org");
  return owner;
}

test("domain, member, settings, retention and export actions are recorded with actor, target and address", async () => {
  const owner = await setup();
  const c = owner.cookie;
  const added = await t.json("POST", "/api/domains", { cookie: c, headers: FROM, body: { name: "audited.example" } });
  expect(added.status).toBe(201);
  expect((await t.json("DELETE", `/api/domains/${added.body.id}`, { cookie: c, headers: FROM })).status).toBe(200);
  expect((await t.json("POST", "/api/members/invitations", { cookie: c, headers: FROM, body: { email: "new-person@example.test", role: "viewer" } })).status).toBe(201);
  const otherId = await createUser(t.deps.store, "colleague@example.test", "Colleague");
  await addMember(t.deps.store, owner.orgId, otherId, "viewer");
  const members = (await t.json("GET", "/api/members", { cookie: c })).body.members as { id: string; email: string }[];
  const colleague = members.find((m) => m.email === "colleague@example.test")!;
  expect((await t.json("PATCH", `/api/members/${colleague.id}`, { cookie: c, headers: FROM, body: { role: "member" } })).status).toBe(200);
  expect((await t.json("DELETE", `/api/members/${colleague.id}`, { cookie: c, headers: FROM })).status).toBe(200);
  const settings = (await t.json("GET", "/api/settings", { cookie: c })).body;
  const saved = await t.json("PUT", "/api/settings", { cookie: c, headers: FROM, body: { ...settings, dnsCaching: false, retentionAggregateDays: 200, retentionFailureDays: 30 } });
  expect(saved.status).toBe(200);
  expect((await t.request("GET", "/api/records.csv?days=7", { cookie: c, headers: FROM })).status).toBe(200);

  const log = await t.json("GET", "/api/audit", { cookie: c });
  expect(log.status).toBe(200);
  const entries = log.body.entries as any[];
  expect(entries.map((e) => e.action)).toEqual([
    "data.exported",
    "retention.changed",
    "settings.changed",
    "member.removed",
    "member.role_changed",
    "member.invited",
    "domain.removed",
    "domain.added",
  ]);
  for (const e of entries) {
    expect(e.actorKind).toBe("user");
    expect(e.actorId).toBe(owner.userId);
    expect(e.address).toBe("203.0.113.45");
    expect(Number.isNaN(Date.parse(e.at))).toBe(false);
  }
  const by = (action: string) => entries.find((e) => e.action === action);
  expect(by("domain.added").target).toBe("audited.example");
  expect(by("domain.removed").target).toBe("audited.example");
  expect(by("member.invited").target).toBe("new-person@example.test");
  expect(by("member.role_changed")).toMatchObject({ target: "colleague@example.test", data: { role: "member" } });
  expect(by("member.removed").target).toBe("colleague@example.test");
  expect(by("settings.changed").data).toEqual({ dnsCaching: false });
  expect(by("retention.changed").data).toEqual({ retentionAggregateDays: { from: 400, to: 200 }, retentionFailureDays: { from: 90, to: 30 } });
  expect(by("data.exported").target).toMatch(/\.csv$/);
  expect(log.body.actions["domain.added"]).toBe("Domain added");
});

test("pages newest first with a cursor, filters by action and by actor", async () => {
  const owner = await setup();
  const base = Date.UTC(2026, 0, 10, 12);
  let clock = base;
  const ctx = { store: t.deps.store, now: () => new Date(clock) };
  for (let i = 0; i < 7; i++) {
    clock = base + i * 60_000;
    await recordAudit(ctx, { orgId: owner.orgId, actor: { kind: "user", id: owner.userId, label: "owner@example.test" }, action: i % 2 ? "domain.added" : "domain.removed", target: `d${i}.example` });
  }
  // two records in the same second keep a stable order across pages
  clock = base + 3600_000;
  await recordAudit(ctx, { orgId: owner.orgId, actor: { kind: "token", id: "tok-1", label: "CI token" }, action: "data.exported", target: "same-second-a" });
  await recordAudit(ctx, { orgId: owner.orgId, actor: { kind: "system", id: null, label: "system" }, action: "retention.purged", target: "same-second-b" });

  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const page: { status: number; body: any } = await t.json("GET", `/api/audit?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, { cookie: owner.cookie });
    expect(page.status).toBe(200);
    expect(page.body.entries.length).toBeLessThanOrEqual(3);
    seen.push(...page.body.entries.map((e: any) => e.target));
    cursor = page.body.nextCursor;
  } while (cursor);
  expect(seen.slice(2)).toEqual(["d6.example", "d5.example", "d4.example", "d3.example", "d2.example", "d1.example", "d0.example"]);
  expect(new Set(seen.slice(0, 2))).toEqual(new Set(["same-second-a", "same-second-b"]));

  const added = await t.json("GET", "/api/audit?action=domain.added", { cookie: owner.cookie });
  expect(added.body.entries.map((e: any) => e.target)).toEqual(["d5.example", "d3.example", "d1.example"]);
  const byToken = await t.json("GET", "/api/audit?actor=tok-1", { cookie: owner.cookie });
  expect(byToken.body.entries.map((e: any) => [e.actorKind, e.actorLabel])).toEqual([["token", "CI token"]]);
});

test("bad filters get a clear error", async () => {
  const owner = await setup();
  const bad = await t.json("GET", "/api/audit?action=everything", { cookie: owner.cookie });
  expect(bad.status).toBe(400);
  expect(bad.body.error.message).toContain("action must be one of");
  const limit = await t.json("GET", "/api/audit?limit=5000", { cookie: owner.cookie });
  expect(limit.status).toBe(400);
  expect(limit.body.error.message).toContain("limit must be a whole number from 1 to 200");
});

test("the API cannot change or delete records", async () => {
  const owner = await setup();
  await recordAudit(t.deps, { orgId: owner.orgId, actor: { kind: "system", id: null, label: "system" }, action: "retention.purged" });
  const [entry] = (await t.json("GET", "/api/audit", { cookie: owner.cookie })).body.entries;
  for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
    for (const path of ["/api/audit", `/api/audit/${entry.id}`]) {
      const res = await t.json(method, path, { cookie: owner.cookie, body: method === "DELETE" ? undefined : { action: "auth.sign_in" } });
      expect(res.status).toBe(404);
    }
  }
  expect((await t.json("GET", "/api/audit", { cookie: owner.cookie })).body.entries).toHaveLength(1);
});

test("secrets never reach the log: the mailbox password and secret-named fields are left out", async () => {
  const owner = await setup();
  expect(scrubAuditData({ password: "hunter2", token: "dw_abc", nested: { clientSecret: "s", totpSecret: "t", host: "imap.example" }, tokenName: "CI" })).toEqual({
    password: "[redacted]",
    token: "[redacted]",
    nested: { clientSecret: "[redacted]", totpSecret: "[redacted]", host: "imap.example" },
    tokenName: "CI",
  });
  await recordAudit(t.deps, { orgId: owner.orgId, actor: { kind: "user", id: owner.userId, label: "o@example.test" }, action: "mailbox.changed", data: { host: "imap.example", password: "hunter2-secret" } });
  const text = JSON.stringify((await t.json("GET", "/api/audit", { cookie: owner.cookie })).body);
  expect(text).not.toContain("hunter2-secret");
  expect(text).toContain("imap.example");
});

test("members and viewers may not read the log", async () => {
  const owner = await setup();
  const viewerId = await createUser(t.deps.store, "viewer-audit@example.test");
  await addMember(t.deps.store, owner.orgId, viewerId, "member");
  const res = await t.json("GET", "/api/audit", { cookie: await signIn(t.deps.store, viewerId, owner.orgId) });
  expect(res.status).toBe(403);
});

test("an action done with an API token names the token as its actor; the token itself is not in the log", async () => {
  const owner = await setup();
  const created = await t.json("POST", "/api/tokens", { cookie: owner.cookie, body: { name: "CI deploy", role: "admin" } });
  expect(created.status).toBe(201);
  const bearer = { authorization: `Bearer ${created.body.token}`, ...FROM };
  expect((await t.json("POST", "/api/domains", { headers: bearer, body: { name: "by-token.example" } })).status).toBe(201);
  // a token may read the log when its role allows
  const log = await t.json("GET", "/api/audit?action=domain.added", { headers: bearer });
  expect(log.status).toBe(200);
  expect(log.body.entries[0]).toMatchObject({ actorKind: "token", actorId: created.body.id, actorLabel: "CI deploy", target: "by-token.example", address: "203.0.113.45" });
  const all = JSON.stringify((await t.json("GET", "/api/audit", { cookie: owner.cookie })).body);
  expect(all).not.toContain(created.body.token);
});

test("accepting an invitation records the member joining, in the organization joined", async () => {
  const owner = await setup();
  const { store } = t.deps;
  await store.write((tx) =>
    tx.insert(store.t.invitations).values({ orgId: owner.orgId, email: "joiner@example.test", role: "viewer", tokenHash: hashToken("join-token-123456"), expiresAt: new Date(Date.now() + 86_400_000) }),
  );
  const joinerId = await createUser(store, "joiner@example.test", "Joiner");
  const cookie = await signIn(store, joinerId, null);
  expect((await t.json("POST", "/api/invitations/accept", { cookie, headers: FROM, body: { token: "join-token-123456" } })).status).toBe(200);
  const log = await t.json("GET", "/api/audit?action=member.joined", { cookie: owner.cookie });
  expect(log.body.entries).toHaveLength(1);
  expect(log.body.entries[0]).toMatchObject({ actorKind: "user", actorId: joinerId, target: "joiner@example.test", address: "203.0.113.45" });
});
