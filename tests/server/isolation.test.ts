/**
 * Tenant isolation: every tenant-scoped endpoint, run as each role of the organisation that
 * owns the rows ("home") and as each role of another organisation ("foreign"), and signed out.
 * A foreign actor never gets the home organisation's rows (404 by id, only their own data in
 * lists) and never changes them; viewers (and members, for admin actions) get 403 on writes.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { alertChannels, alertDeliveries, apiTokens, clientReportSettings, domains, eventReads, invitations, memberships, organizationSettings, organizations, orgEvents, senderMarks, sessions, type Role } from "../../src/db/schema";
import { hashToken } from "../../src/lib/tokens";
import { recordAudit } from "../../src/features/audit/service";
import { makeTestApp, type TestApp } from "../support/app";
import { addMember, createOrg, createUser, signIn } from "../support/fixtures";

const ROLES: Role[] = ["owner", "admin", "member", "viewer"];

interface World {
  t: TestApp;
  home: { orgId: string; domainId: string; memberIds: Record<Role, string>; invitationId: string; cookies: Record<Role, string>; tokens: Record<Role, string> };
  foreign: { orgId: string; cookies: Record<Role, string>; tokens: Record<Role, string> };
  /** strings that must never appear in an answer to a foreign actor */
  secrets: string[];
}

let world: World | null = null;
afterEach(() => world?.t.close());

async function orgWithEveryRole(t: TestApp, name: string, emailPrefix: string) {
  const db = t.deps.store.db;
  const orgId = await createOrg(t.deps.store, name);
  const cookies = {} as Record<Role, string>;
  const memberIds = {} as Record<Role, string>;
  const tokens = {} as Record<Role, string>;
  let ownerId = "";
  for (const role of ROLES) {
    const userId = await createUser(t.deps.store, `${emailPrefix}-${role}@example.test`, `${emailPrefix} ${role}`);
    await addMember(t.deps.store, orgId, userId, role);
    memberIds[role] = (await db.select().from(memberships).where(eq(memberships.userId, userId)))[0]!.id;
    cookies[role] = await signIn(t.deps.store, userId, orgId);
    if (role === "owner") ownerId = userId;
    // an API token of this role, made by the organisation's owner
    tokens[role] = `Bearer dwt_${emailPrefix}-${role}-${crypto.randomUUID()}`;
    await db.insert(apiTokens).values({ orgId, name: `${emailPrefix} ${role} token`, role, tokenHash: hashToken(tokens[role].slice(7)), createdBy: ownerId });
  }
  return { orgId, cookies, memberIds, tokens };
}

async function build(): Promise<World> {
  const t = await makeTestApp();
  const db = t.deps.store.db;
  const home = await orgWithEveryRole(t, "Homestead Clinic", "homer");
  const foreign = await orgWithEveryRole(t, "Faraway Agency", "farah");
  const domainId = (await db.insert(domains).values({ orgId: home.orgId, name: "homestead-secret.example" }).returning())[0]!.id;
  const invitationId = (
    await db
      .insert(invitations)
      .values({ orgId: home.orgId, email: "pending-homer@example.test", role: "member", tokenHash: hashToken("tok-home"), expiresAt: new Date(Date.now() + 86400_000) })
      .returning()
  )[0]!.id;
  world = {
    t,
    home: { ...home, domainId, invitationId },
    foreign,
    secrets: ["homestead-secret.example", "Homestead Clinic", "homer-", "pending-homer", home.orgId, domainId, invitationId, ...Object.values(home.memberIds)],
  };
  return world;
}

type Who = { side: "home" | "foreign"; role: Role } | "signed out";

interface Case {
  name: string;
  run(w: World, cookie: string | undefined): Promise<{ status: number; body: any }>;
  /** status by role when acting in the home organisation */
  home: Record<Role, number>;
  /** status by role when acting from the foreign organisation */
  foreign: Record<Role, number>;
  /** with an API token of each role instead of a session (default: as home / foreign): signed-in user routes refuse tokens */
  homeToken?: Record<Role, number>;
  foreignToken?: Record<Role, number>;
  /** after a foreign attempt: the home organisation's rows are untouched */
  unchanged?(w: World): void | Promise<void>;
  /** status signed out (default 401): routes that answer the signed-out pages too */
  signedOut?: number;
}

const all = (status: number): Record<Role, number> => ({ owner: status, admin: status, member: status, viewer: status });
const adminsOnly = (ok: number): Record<Role, number> => ({ owner: ok, admin: ok, member: 403, viewer: 403 });

const homeDomainStillThere = async (w: World) => expect((await w.t.deps.store.db.select().from(domains).where(eq(domains.id, w.home.domainId)))[0]).toBeTruthy();
const homeMembersUnchanged = async (w: World) => {
  const rows = (await w.t.deps.store.db.select().from(memberships).where(eq(memberships.orgId, w.home.orgId)));
  expect(rows.map((r) => r.role).sort()).toEqual([...ROLES].sort());
};

/** The id of the home organisation's owner-role API token (its id is a secret to foreigners). */
async function homeToken(w: World): Promise<string> {
  const [row] = await w.t.deps.store.db.select().from(apiTokens).where(eq(apiTokens.name, "homer owner token"));
  if (!w.secrets.includes(row!.id)) w.secrets.push(row!.id, "homer owner token");
  return row!.id;
}

/** A client organisation of the home organisation, created once per world (its id and name are secrets to foreigners). */
const clientRows = new WeakMap<World, string>();
async function homeClient(w: World): Promise<string> {
  let id = clientRows.get(w);
  if (!id) {
    id = await createOrg(w.t.deps.store, "Homestead Client Dental", w.home.orgId);
    clientRows.set(w, id);
    w.secrets.push(id, "Homestead Client Dental");
  }
  return id;
}

/** The home organisation's alert channel and event, created once per world. */
const alertRows = new WeakMap<World, { channelId: string; eventId: string }>();
async function homeAlerts(w: World): Promise<{ channelId: string; eventId: string }> {
  let rows = alertRows.get(w);
  if (!rows) {
    const { store } = w.t.deps;
    const [channel] = await store.db.insert(alertChannels).values({ orgId: w.home.orgId, type: "email", name: "Homestead ops", target: "ops@homestead-secret.example" }).returning();
    const [event] = await store.db
      .insert(orgEvents)
      .values({ orgId: w.home.orgId, type: "reports.stopped", domain: "homestead-secret.example", data: JSON.stringify({ silentHours: 80 }), dedupeKey: "k", occurredAt: new Date() })
      .returning();
    rows = { channelId: channel!.id, eventId: event!.id };
    alertRows.set(w, rows);
    w.secrets.push(rows.channelId, rows.eventId);
  }
  return rows;
}
const homeChannelUnchanged = async (w: World) => {
  const rows = await w.t.deps.store.db.select().from(alertChannels).where(eq(alertChannels.orgId, w.home.orgId));
  expect(rows.map((r) => [r.name, r.enabled])).toEqual([["Homestead ops", true]]);
};

/** The home organisation's single sign-on connection, created once per world (its issuer and client id are secrets to foreigners). */
const HOME_ISSUER = "https://idp.homestead-secret.example";
const ssoRows = new WeakSet<World>();
async function homeSso(w: World): Promise<void> {
  if (ssoRows.has(w)) return;
  ssoRows.add(w);
  // the store's own table (its PostgreSQL twin there: a boolean column)
  await w.t.deps.store.db
    .insert(w.t.deps.store.t.ssoConnections)
    .values({ orgId: w.home.orgId, issuer: HOME_ISSUER, clientId: "homestead-client", clientSecretEncrypted: "v1.aaaa.bbbb.cccc", allowedDomains: '["homestead-secret.example"]', newUserRole: "viewer", enabled: true, updatedAt: new Date() });
  w.secrets.push("homestead-client");
}
const homeSsoUnchanged = async (w: World) => {
  const { ssoConnections } = w.t.deps.store.t;
  const rows = await w.t.deps.store.db.select().from(ssoConnections).where(eq(ssoConnections.orgId, w.home.orgId));
  expect(rows.map((r) => [r.issuer, r.enabled])).toEqual([[HOME_ISSUER, true]]);
};

/** The home organisation's OAuth2 report mailbox, created once per world (its id and address are secrets to foreigners). */
const oauthRows = new WeakMap<World, string>();
async function homeOAuthMailbox(w: World): Promise<string> {
  let id = oauthRows.get(w);
  if (!id) {
    const { store } = w.t.deps;
    const [row] = await store.db
      .insert(store.t.oauthMailboxes)
      .values({ orgId: w.home.orgId, provider: "google", email: "dmarc@homestead-secret.example", refreshTokenEncrypted: "v1.aaaa.bbbb.cccc", updatedAt: new Date() })
      .returning();
    id = row!.id;
    oauthRows.set(w, id);
    w.secrets.push(id);
  }
  // a configured client, so starting a connection gets as far as the provider's address (no network)
  Object.assign(w.t.deps.config, { googleClientId: "isolation-client", googleClientSecret: "isolation-secret" });
  return id;
}
const homeOAuthMailboxUnchanged = async (w: World) => {
  const { store } = w.t.deps;
  const rows = await store.db.select().from(store.t.oauthMailboxes).where(eq(store.t.oauthMailboxes.orgId, w.home.orgId));
  expect(rows.map((r) => [r.email, r.status, r.lastPolledAt])).toEqual([["dmarc@homestead-secret.example", "active", null]]);
};

/** The home organisation's white-label branding, created once per world (its product name is a secret to foreigners). */
const BRAND_PNG = Uint8Array.from(Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64"));
const brandingRows = new WeakSet<World>();
async function homeBranding(w: World): Promise<void> {
  if (brandingRows.has(w)) return;
  brandingRows.add(w);
  const { store } = w.t.deps;
  await store.db
    .insert(store.t.organizationBranding)
    .values({ orgId: w.home.orgId, productName: "Homestead Brand Secret", primaryColor: "#123456", supportEmail: "help@homestead-secret.example", logoType: "image/png", logoBase64: Buffer.from(BRAND_PNG).toString("base64"), logoUpdatedAt: new Date(), updatedAt: new Date(), customHostname: "dmarc.homestead-secret.example" });
  w.secrets.push("Homestead Brand Secret");
}
const homeBrandingUnchanged = async (w: World) => {
  const { store } = w.t.deps;
  const rows = await store.db.select().from(store.t.organizationBranding).where(eq(store.t.organizationBranding.orgId, w.home.orgId));
  expect(rows.map((r) => [r.productName, r.primaryColor, r.logoType])).toEqual([["Homestead Brand Secret", "#123456", "image/png"]]);
};
const brandLogoForm = () => {
  const form = new FormData();
  form.append("logo", new File([BRAND_PNG], "logo.png", { type: "image/png" }));
  return form;
};

const CASES: Case[] = [
  { name: "GET /api/domains", run: (w, c) => w.t.json("GET", "/api/domains", { cookie: c }), home: all(200), foreign: all(200) },
  {
    name: "POST /api/domains",
    run: (w, c) => w.t.json("POST", "/api/domains", { cookie: c, body: { name: "brand-new.example" } }),
    home: adminsOnly(201),
    foreign: adminsOnly(201),
    unchanged: async (w) => expect((await w.t.deps.store.db.select().from(domains).where(eq(domains.orgId, w.home.orgId))).map((d) => d.name)).toEqual(["homestead-secret.example"]),
  },
  {
    name: "DELETE /api/domains/:id",
    run: (w, c) => w.t.json("DELETE", `/api/domains/${w.home.domainId}`, { cookie: c }),
    home: adminsOnly(200),
    foreign: adminsOnly(404),
    unchanged: homeDomainStillThere,
  },
  { name: "GET /api/members", run: (w, c) => w.t.json("GET", "/api/members", { cookie: c }), home: all(200), foreign: all(200) },
  {
    name: "POST /api/members/invitations",
    run: (w, c) => w.t.json("POST", "/api/members/invitations", { cookie: c, body: { email: "someone-new@example.test", role: "viewer" } }),
    home: adminsOnly(201),
    foreign: adminsOnly(201),
    unchanged: async (w) => expect((await w.t.deps.store.db.select().from(invitations).where(eq(invitations.orgId, w.home.orgId)))).toHaveLength(1),
  },
  {
    name: "DELETE /api/members/invitations/:id",
    run: (w, c) => w.t.json("DELETE", `/api/members/invitations/${w.home.invitationId}`, { cookie: c }),
    home: adminsOnly(200),
    foreign: adminsOnly(404),
    unchanged: async (w) => expect((await w.t.deps.store.db.select().from(invitations).where(eq(invitations.id, w.home.invitationId)))[0]).toBeTruthy(),
  },
  {
    name: "PATCH /api/members/:id (the home viewer's membership → member)",
    run: (w, c) => w.t.json("PATCH", `/api/members/${w.home.memberIds.viewer}`, { cookie: c, body: { role: "member" } }),
    home: adminsOnly(200),
    foreign: adminsOnly(404),
    unchanged: homeMembersUnchanged,
  },
  {
    name: "DELETE /api/members/:id (the home member's membership)",
    run: (w, c) => w.t.json("DELETE", `/api/members/${w.home.memberIds.member}`, { cookie: c }),
    // a member may remove themselves; viewers may not remove others
    home: { owner: 200, admin: 200, member: 200, viewer: 403 },
    foreign: all(404),
    // a member's token is not the member (the tokens were made by the owner)
    homeToken: { owner: 200, admin: 200, member: 403, viewer: 403 },
    unchanged: homeMembersUnchanged,
  },
  {
    name: "POST /api/orgs/:id/switch (to the home organization)",
    run: (w, c) => w.t.json("POST", `/api/orgs/${w.home.orgId}/switch`, { cookie: c }),
    home: all(200),
    foreign: all(404),
    homeToken: all(401),
    foreignToken: all(401),
    unchanged: async (w) => {
      const current = (await w.t.deps.store.db.select().from(sessions)).filter((s) => s.currentOrgId === w.home.orgId);
      expect(current).toHaveLength(ROLES.length);
    },
  },
  {
    name: "POST /api/orgs/clients",
    run: (w, c) => w.t.json("POST", "/api/orgs/clients", { cookie: c, body: { name: "New Client Co" } }),
    home: adminsOnly(201),
    foreign: adminsOnly(201),
    unchanged: async (w) => expect((await w.t.deps.store.db.select().from(organizations).where(eq(organizations.parentId, w.home.orgId)))).toHaveLength(0),
  },
  // the MSP portfolio: owners and admins of the organization read its own clients only (none here)
  { name: "GET /api/portfolio", run: (w, c) => w.t.json("GET", "/api/portfolio", { cookie: c }), home: adminsOnly(200), foreign: adminsOnly(200) },
  // a client's report contacts: the managing organization's owners and admins; another organization's owners and admins find no such client
  { name: "GET /api/portfolio/clients/:id/report", run: async (w, c) => w.t.json("GET", `/api/portfolio/clients/${await homeClient(w)}/report`, { cookie: c }), home: adminsOnly(200), foreign: adminsOnly(404) },
  {
    name: "PUT /api/portfolio/clients/:id/report",
    run: async (w, c) => w.t.json("PUT", `/api/portfolio/clients/${await homeClient(w)}/report`, { cookie: c, body: { contacts: ["isolation-contact@example.test"], enabled: true } }),
    home: adminsOnly(200),
    foreign: adminsOnly(404),
    unchanged: async (w) => expect(await w.t.deps.store.db.select().from(clientReportSettings)).toHaveLength(0),
  },
  {
    name: "POST /api/portfolio/import",
    run: (w, c) => w.t.json("POST", "/api/portfolio/import", { cookie: c, body: { csv: "Imported Client Co, imported-client.example", dryRun: false } }),
    home: adminsOnly(200),
    foreign: adminsOnly(200),
    unchanged: async (w) => expect((await w.t.deps.store.db.select().from(organizations).where(eq(organizations.parentId, w.home.orgId)))).toHaveLength(0),
  },
  { name: "GET /api/trends", run: (w, c) => w.t.json("GET", "/api/trends?days=7", { cookie: c }), home: all(200), foreign: all(200) },
  { name: "GET /api/trends?domain= (the home domain)", run: (w, c) => w.t.json("GET", "/api/trends?domain=homestead-secret.example", { cookie: c }), home: all(200), foreign: all(404) },
  { name: "GET /api/trends/sources?domain= (the home domain)", run: (w, c) => w.t.json("GET", "/api/trends/sources?domain=homestead-secret.example", { cookie: c }), home: all(200), foreign: all(404) },
  { name: "GET /api/domains/:id", run: (w, c) => w.t.json("GET", `/api/domains/${w.home.domainId}`, { cookie: c }), home: all(200), foreign: all(404) },
  { name: "GET /api/domains/:id/history", run: (w, c) => w.t.json("GET", `/api/domains/${w.home.domainId}/history`, { cookie: c }), home: all(200), foreign: all(404) },
  { name: "GET /api/domains/:id/enforcement", run: (w, c) => w.t.json("GET", `/api/domains/${w.home.domainId}/enforcement`, { cookie: c }), home: all(200), foreign: all(404) },
  { name: "GET /api/domains/:id/sources", run: (w, c) => w.t.json("GET", `/api/domains/${w.home.domainId}/sources`, { cookie: c }), home: all(200), foreign: all(404) },
  // senders and the threat map: a sender key names no row, so a foreign caller gets its own (empty) organisation's answer
  { name: "GET /api/senders/:key", run: (w, c) => w.t.json("GET", `/api/senders/${encodeURIComponent("ip:203.0.113.77")}`, { cookie: c }), home: all(200), foreign: all(200) },
  {
    name: "PUT /api/senders/:key/mark",
    run: (w, c) => w.t.json("PUT", `/api/senders/${encodeURIComponent("ip:203.0.113.77")}/mark`, { cookie: c, body: { verdict: "approved" } }),
    home: adminsOnly(200),
    foreign: adminsOnly(200),
    unchanged: async (w) => expect(await w.t.deps.store.db.select().from(senderMarks).where(eq(senderMarks.orgId, w.home.orgId))).toHaveLength(0),
  },
  { name: "GET /api/threats/countries", run: (w, c) => w.t.json("GET", "/api/threats/countries?range=7d", { cookie: c }), home: all(200), foreign: all(200) },
  { name: "GET /api/records.csv?domain= (the home domain)", run: async (w, c) => { const res = await w.t.request("GET", "/api/records.csv?domain=homestead-secret.example", { cookie: c }); const text = await res.text(); return { status: res.status, body: res.status === 200 ? text : JSON.parse(text) }; }, home: all(200), foreign: all(404) },
  // the audit log: admins read their own organisation's records only (a home record names the home domain)
  {
    name: "GET /api/audit",
    run: async (w, c) => {
      await recordAudit(w.t.deps, { orgId: w.home.orgId, actor: { kind: "user", id: w.home.memberIds.owner, label: "homer-owner@example.test" }, action: "domain.added", target: "homestead-secret.example", address: "198.51.100.9" });
      return w.t.json("GET", "/api/audit", { cookie: c });
    },
    home: adminsOnly(200),
    foreign: adminsOnly(200),
  },
  // a signed-in user's own routes: an API token is not a user
  { name: "GET /api/auth/me", run: (w, c) => w.t.json("GET", "/api/auth/me", { cookie: c }), home: all(200), foreign: all(200), homeToken: all(401), foreignToken: all(401) },
  { name: "GET /api/orgs", run: (w, c) => w.t.json("GET", "/api/orgs", { cookie: c }), home: all(200), foreign: all(200), homeToken: all(401), foreignToken: all(401) },
  { name: "POST /api/auth/2fa/setup", run: (w, c) => w.t.json("POST", "/api/auth/2fa/setup", { cookie: c }), home: all(200), foreign: all(200), homeToken: all(401), foreignToken: all(401) },
  { name: "POST /api/auth/2fa/enable", run: (w, c) => w.t.json("POST", "/api/auth/2fa/enable", { cookie: c, body: { code: "123456" } }), home: all(409), foreign: all(409), homeToken: all(401), foreignToken: all(401) },
  { name: "POST /api/auth/2fa/disable", run: (w, c) => w.t.json("POST", "/api/auth/2fa/disable", { cookie: c, body: { code: "123456" } }), home: all(409), foreign: all(409), homeToken: all(401), foreignToken: all(401) },
  // API tokens: admins and owners, signed in; a token never manages tokens
  { name: "GET /api/tokens", run: async (w, c) => (await homeToken(w), w.t.json("GET", "/api/tokens", { cookie: c })), home: adminsOnly(200), foreign: adminsOnly(200), homeToken: all(403), foreignToken: all(403) },
  {
    name: "POST /api/tokens",
    run: (w, c) => w.t.json("POST", "/api/tokens", { cookie: c, body: { name: "New token", role: "viewer" } }),
    home: adminsOnly(201),
    foreign: adminsOnly(201),
    homeToken: all(403),
    foreignToken: all(403),
    unchanged: async (w) => expect((await w.t.deps.store.db.select().from(apiTokens).where(eq(apiTokens.orgId, w.home.orgId))).map((r) => r.name).sort()).toEqual(ROLES.map((r) => `homer ${r} token`).sort()),
  },
  {
    name: "DELETE /api/tokens/:id",
    run: async (w, c) => w.t.json("DELETE", `/api/tokens/${await homeToken(w)}`, { cookie: c }),
    home: adminsOnly(200),
    foreign: adminsOnly(404),
    homeToken: all(403),
    foreignToken: all(403),
    unchanged: async (w) => expect(await w.t.deps.store.db.select().from(apiTokens).where(eq(apiTokens.id, await homeToken(w)))).toHaveLength(1),
  },
  // single sign-on: admins and owners, signed in; API tokens never read or change it
  { name: "GET /api/sso", run: async (w, c) => (await homeSso(w), w.t.json("GET", "/api/sso", { cookie: c })), home: adminsOnly(200), foreign: adminsOnly(200), homeToken: all(403), foreignToken: all(403) },
  {
    // the same provider with only the switch changed: saved at home without a new discovery; a foreign organisation has no connection to keep a secret of
    name: "PUT /api/sso",
    run: async (w, c) => (await homeSso(w), w.t.json("PUT", "/api/sso", { cookie: c, body: { issuer: HOME_ISSUER, clientId: "homestead-client", allowedDomains: "homestead-secret.example", newUserRole: "viewer", enabled: false } })),
    home: adminsOnly(200),
    foreign: adminsOnly(400),
    homeToken: all(403),
    foreignToken: all(403),
    unchanged: homeSsoUnchanged,
  },
  {
    // the home connection's pending domains checked (none proved here); a foreign organisation has no connection
    name: "POST /api/sso/domains/check",
    run: async (w, c) => (await homeSso(w), w.t.json("POST", "/api/sso/domains/check", { cookie: c })),
    home: adminsOnly(200),
    foreign: adminsOnly(404),
    homeToken: all(403),
    foreignToken: all(403),
    unchanged: homeSsoUnchanged,
  },
  {
    name: "DELETE /api/sso",
    run: async (w, c) => (await homeSso(w), w.t.json("DELETE", "/api/sso", { cookie: c })),
    home: adminsOnly(200),
    foreign: adminsOnly(404),
    homeToken: all(403),
    foreignToken: all(403),
    unchanged: homeSsoUnchanged,
  },
  // OAuth2 report mailboxes (the home organisation's, created on first use, see homeOAuthMailbox)
  { name: "GET /api/settings/oauth-mailboxes", run: async (w, c) => (await homeOAuthMailbox(w), w.t.json("GET", "/api/settings/oauth-mailboxes", { cookie: c })), home: all(200), foreign: all(200) },
  {
    name: "POST /api/settings/oauth-mailboxes/connect",
    run: async (w, c) => (await homeOAuthMailbox(w), w.t.json("POST", "/api/settings/oauth-mailboxes/connect", { cookie: c, body: { provider: "google", folder: "INBOX" } })),
    home: adminsOnly(200),
    foreign: adminsOnly(200),
    // the consent needs a person: API tokens are refused
    homeToken: all(403),
    foreignToken: all(403),
    unchanged: homeOAuthMailboxUnchanged,
  },
  {
    // without the flow cookie the callback connects nothing and sends the browser back to Settings
    name: "GET /api/settings/oauth-mailboxes/callback",
    run: async (w, c) => (await homeOAuthMailbox(w), w.t.json("GET", "/api/settings/oauth-mailboxes/callback?code=x&state=y", { cookie: c })),
    home: adminsOnly(302),
    foreign: adminsOnly(302),
    unchanged: homeOAuthMailboxUnchanged,
  },
  {
    name: "POST /api/settings/oauth-mailboxes/:id/poll",
    run: async (w, c) => w.t.json("POST", `/api/settings/oauth-mailboxes/${await homeOAuthMailbox(w)}/poll`, { cookie: c }),
    home: adminsOnly(200),
    foreign: adminsOnly(404),
    unchanged: homeOAuthMailboxUnchanged,
  },
  {
    name: "DELETE /api/settings/oauth-mailboxes/:id",
    run: async (w, c) => w.t.json("DELETE", `/api/settings/oauth-mailboxes/${await homeOAuthMailbox(w)}`, { cookie: c }),
    home: adminsOnly(200),
    foreign: adminsOnly(404),
    unchanged: homeOAuthMailboxUnchanged,
  },
  // the owner's two-factor rule
  { name: "GET /api/settings/two-factor", run: (w, c) => w.t.json("GET", "/api/settings/two-factor", { cookie: c }), home: all(200), foreign: all(200) },
  { name: "GET /api/onboarding", run: (w, c) => w.t.json("GET", "/api/onboarding", { cookie: c }), home: all(200), foreign: all(200) },
  { name: "GET /api/report-path", run: (w, c) => w.t.json("GET", "/api/report-path?domain=planned-domain.example", { cookie: c }), home: all(200), foreign: all(200) },
  {
    // the home checklist is not complete (no report, no enforcement): refused at home, and a foreign one never touches the home row
    name: "POST /api/onboarding/dismiss",
    run: (w, c) => w.t.json("POST", "/api/onboarding/dismiss", { cookie: c }),
    home: all(409),
    foreign: all(409),
    unchanged: async (w) => expect((await w.t.deps.store.db.select().from(organizationSettings).where(eq(organizationSettings.orgId, w.home.orgId)))[0]?.onboardingDismissedAt ?? null).toBeNull(),
  },
  {
    name: "PUT /api/settings/two-factor (off)",
    run: (w, c) => w.t.json("PUT", "/api/settings/two-factor", { cookie: c, body: { required: false } }),
    home: { owner: 200, admin: 403, member: 403, viewer: 403 },
    foreign: { owner: 200, admin: 403, member: 403, viewer: 403 },
    homeToken: all(403),
    foreignToken: all(403),
  },
  // alerts: the home organisation's channel and event (created on first use, see homeAlerts)
  { name: "GET /api/alerts/channels", run: async (w, c) => (await homeAlerts(w), w.t.json("GET", "/api/alerts/channels", { cookie: c })), home: all(200), foreign: all(200) },
  {
    name: "POST /api/alerts/channels",
    run: async (w, c) => (await homeAlerts(w), w.t.json("POST", "/api/alerts/channels", { cookie: c, body: { type: "email", name: "New", target: "new@example.test" } })),
    home: adminsOnly(201),
    foreign: adminsOnly(201),
    unchanged: homeChannelUnchanged,
  },
  {
    name: "PATCH /api/alerts/channels/:id",
    run: async (w, c) => w.t.json("PATCH", `/api/alerts/channels/${(await homeAlerts(w)).channelId}`, { cookie: c, body: { name: "Renamed", enabled: false } }),
    home: adminsOnly(200),
    foreign: adminsOnly(404),
    unchanged: homeChannelUnchanged,
  },
  {
    name: "DELETE /api/alerts/channels/:id",
    run: async (w, c) => w.t.json("DELETE", `/api/alerts/channels/${(await homeAlerts(w)).channelId}`, { cookie: c }),
    home: adminsOnly(200),
    foreign: adminsOnly(404),
    unchanged: homeChannelUnchanged,
  },
  {
    name: "POST /api/alerts/channels/:id/test",
    run: async (w, c) => w.t.json("POST", `/api/alerts/channels/${(await homeAlerts(w)).channelId}/test`, { cookie: c }),
    home: adminsOnly(200),
    foreign: adminsOnly(404),
    unchanged: async (w) => expect(await w.t.deps.store.db.select().from(alertDeliveries).where(eq(alertDeliveries.orgId, w.home.orgId))).toHaveLength(0),
  },
  { name: "GET /api/alerts/channels/:id/deliveries", run: async (w, c) => w.t.json("GET", `/api/alerts/channels/${(await homeAlerts(w)).channelId}/deliveries`, { cookie: c }), home: all(200), foreign: all(404) },
  { name: "GET /api/alerts/thresholds", run: (w, c) => w.t.json("GET", "/api/alerts/thresholds", { cookie: c }), home: all(200), foreign: all(200) },
  {
    name: "PUT /api/alerts/thresholds",
    run: (w, c) => w.t.json("PUT", "/api/alerts/thresholds", { cookie: c, body: { passRateBelow: 50 } }),
    home: adminsOnly(200),
    foreign: adminsOnly(200),
    unchanged: async (w) => expect((await w.t.deps.store.db.select().from(organizationSettings).where(eq(organizationSettings.orgId, w.home.orgId)))[0]?.alertThresholds ?? null).toBeNull(),
  },
  { name: "GET /api/alerts/limit", run: (w, c) => w.t.json("GET", "/api/alerts/limit", { cookie: c }), home: all(200), foreign: all(200) },
  {
    name: "PUT /api/alerts/limit",
    run: (w, c) => w.t.json("PUT", "/api/alerts/limit", { cookie: c, body: { perWindow: 3 } }),
    home: adminsOnly(200),
    foreign: adminsOnly(200),
    unchanged: async (w) => expect((await w.t.deps.store.db.select().from(organizationSettings).where(eq(organizationSettings.orgId, w.home.orgId)))[0]?.alertsPerWindow ?? 10).toBe(10),
  },
  { name: "GET /api/events", run: async (w, c) => (await homeAlerts(w), w.t.json("GET", "/api/events", { cookie: c })), home: all(200), foreign: all(200) },
  {
    name: "POST /api/events/read",
    run: async (w, c) => w.t.json("POST", "/api/events/read", { cookie: c, body: { ids: [(await homeAlerts(w)).eventId] } }),
    home: all(200),
    foreign: all(200),
    unchanged: async (w) => expect(await w.t.deps.store.db.select().from(eventReads).where(eq(eventReads.orgId, w.home.orgId))).toHaveLength(0),
  },
  {
    name: "POST /api/events/read-all",
    run: async (w, c) => (await homeAlerts(w), w.t.json("POST", "/api/events/read-all", { cookie: c })),
    home: all(200),
    foreign: all(200),
    unchanged: async (w) => expect(await w.t.deps.store.db.select().from(eventReads).where(eq(eventReads.orgId, w.home.orgId))).toHaveLength(0),
  },
  {
    name: "POST /api/domains/:id/check",
    run: (w, c) => w.t.json("POST", `/api/domains/${w.home.domainId}/check`, { cookie: c }),
    // the matrix app has no DNS resolver: the home organisation's admins are told checks are unavailable
    home: adminsOnly(503),
    foreign: adminsOnly(404),
    unchanged: homeDomainStillThere,
  },
  // signed out: the default branding (or an MSP's, on its custom hostname), never the home organisation's
  { name: "GET /api/branding", run: async (w, c) => (await homeBranding(w), w.t.json("GET", "/api/branding", { cookie: c })), home: all(200), foreign: all(200), signedOut: 200 },
  {
    name: "PUT /api/branding",
    run: async (w, c) => (await homeBranding(w), w.t.json("PUT", "/api/branding", { cookie: c, body: { productName: "Taken Over", primaryColor: "#000000", supportEmail: "" } })),
    home: adminsOnly(200),
    foreign: adminsOnly(200),
    unchanged: homeBrandingUnchanged,
  },
  {
    name: "PUT /api/branding/logo",
    run: async (w, c) => (await homeBranding(w), w.t.json("PUT", "/api/branding/logo", { cookie: c, body: brandLogoForm() })),
    home: adminsOnly(200),
    foreign: adminsOnly(200),
    unchanged: homeBrandingUnchanged,
  },
  {
    name: "DELETE /api/branding/logo",
    run: async (w, c) => (await homeBranding(w), w.t.json("DELETE", "/api/branding/logo", { cookie: c })),
    home: adminsOnly(200),
    foreign: adminsOnly(200),
    unchanged: homeBrandingUnchanged,
  },
  {
    // checks the caller's own organisation's hostname: the home one (no resolver in the matrix: stays pending), a foreign one has none
    name: "POST /api/branding/hostname/verify",
    run: async (w, c) => (await homeBranding(w), w.t.json("POST", "/api/branding/hostname/verify", { cookie: c })),
    home: adminsOnly(200),
    foreign: adminsOnly(400),
    unchanged: homeBrandingUnchanged,
  },
];

/** The world whose requests carry the "cookie" a case passes as an Authorization header (an API token) instead. */
function withTokens(w: World): World {
  const move = <O extends { cookie?: string; headers?: Record<string, string> }>(o: O = {} as O): O => (o.cookie ? { ...o, cookie: undefined, headers: { ...o.headers, authorization: o.cookie } } : o);
  return { ...w, t: { ...w.t, request: (m, p, o) => w.t.request(m, p, move(o)), json: (m, p, o) => w.t.json(m, p, move(o)) } };
}

describe("tenant isolation", () => {
  for (const c of CASES) {
    describe(c.name, () => {
      test(`signed out → ${c.signedOut ?? 401}`, async () => {
        const w = await build();
        const res = await c.run(w, undefined);
        expect(res.status).toBe(c.signedOut ?? 401);
        expect(JSON.stringify(res.body)).not.toContain("homestead");
      });

      for (const role of ROLES) {
        test(`as ${role} of another organization → ${c.foreign[role]}, never the home organization's data`, async () => {
          const w = await build();
          const res = await c.run(w, w.foreign.cookies[role]);
          expect(res.status).toBe(c.foreign[role]);
          const text = JSON.stringify(res.body);
          for (const secret of w.secrets) expect(text).not.toContain(secret);
          await c.unchanged?.(w);
        });

        test(`as ${role} of the organization → ${c.home[role]}`, async () => {
          const w = await build();
          const res = await c.run(w, w.home.cookies[role]);
          expect(res.status).toBe(c.home[role]);
          if (res.status === 403) expect(res.body.error.code).toBe("forbidden");
        });

        const foreignToken = (c.foreignToken ?? c.foreign)[role];
        test(`with a ${role} API token of another organization → ${foreignToken}, never the home organization's data`, async () => {
          const w = await build();
          const res = await c.run(withTokens(w), w.foreign.tokens[role]);
          expect(res.status).toBe(foreignToken);
          const text = JSON.stringify(res.body);
          for (const secret of w.secrets) expect(text).not.toContain(secret);
          await c.unchanged?.(w);
        });

        const homeToken = (c.homeToken ?? c.home)[role];
        test(`with a ${role} API token of the organization → ${homeToken}`, async () => {
          const w = await build();
          const res = await c.run(withTokens(w), w.home.tokens[role]);
          expect(res.status).toBe(homeToken);
        });
      }
    });
  }

  test("home members see their own organization's domain and members", async () => {
    const w = await build();
    const list = await w.t.json("GET", "/api/domains", { cookie: w.home.cookies.viewer });
    expect(list.body.map((d: any) => d.name)).toEqual(["homestead-secret.example"]);
    const members = await w.t.json("GET", "/api/members", { cookie: w.home.cookies.viewer });
    expect(members.body.members).toHaveLength(4);
  });

  test("a session whose membership was removed can no longer act in that organization", async () => {
    const w = await build();
    await w.t.deps.store.db.delete(memberships).where(eq(memberships.id, w.home.memberIds.admin));
    const res = await w.t.json("GET", "/api/domains", { cookie: w.home.cookies.admin });
    expect(res.status).toBe(401);
    expect(JSON.stringify(res.body)).not.toContain("homestead-secret");
  });

  test("state changes from a foreign Origin are refused even with a valid session", async () => {
    const w = await build();
    const res = await w.t.json("POST", "/api/domains", { cookie: w.home.cookies.owner, body: { name: "csrf.example" }, headers: { origin: "https://evil.example" } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("cross_origin_refused");
  });

  test("state changes without an Origin but from a foreign Referer are refused too, and change nothing", async () => {
    const w = await build();
    const res = await w.t.json("POST", "/api/domains", { cookie: w.home.cookies.owner, body: { name: "csrf.example" }, headers: { referer: "https://evil.example/page" } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("cross_origin_refused");
    expect((await w.t.deps.store.db.select().from(domains).where(eq(domains.orgId, w.home.orgId))).map((d) => d.name)).toEqual(["homestead-secret.example"]);
  });
});
