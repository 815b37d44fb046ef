import { afterEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { invitations, memberships, users } from "../../db/schema";
import { cookieFrom, makeTestApp, type TestApp } from "../../../tests/support/app";
import { addMember, createOrg, createUser, signedInMember, signIn } from "../../../tests/support/fixtures";

let t: TestApp;
afterEach(() => t?.close());

async function signup(app: TestApp, email: string, organization = "Org of " + email) {
  const res = await app.json("POST", "/api/auth/signup", { body: { name: "Person " + email, email, password: "a long password 1", organization } });
  expect(res.status).toBe(201);
  return cookieFrom(res, "dw_session")!;
}

describe("organizations", () => {
  test("a user in two organizations lists both and switches; switching to a foreign one is 404", async () => {
    t = await makeTestApp();
    const db = t.deps.store.db;
    const a = await signedInMember(t.deps.store, "owner", "Alpha");
    const beta = await createOrg(t.deps.store, "Beta");
    await addMember(t.deps.store, beta, a.userId, "viewer");
    const foreign = await createOrg(t.deps.store, "Foreign");
    const orgs = await t.json("GET", "/api/orgs", { cookie: a.cookie });
    expect(orgs.body.map((o: any) => [o.name, o.role, o.current])).toEqual([
      ["Alpha", "owner", true],
      ["Beta", "viewer", false],
    ]);
    const switched = await t.json("POST", `/api/orgs/${beta}/switch`, { cookie: a.cookie });
    expect(switched.status).toBe(200);
    expect(switched.body.currentOrg).toMatchObject({ id: beta, role: "viewer" });
    expect((await t.json("GET", "/api/auth/me", { cookie: a.cookie })).body.currentOrg.name).toBe("Beta");
    // as viewer in Beta, writes are refused
    expect((await t.json("POST", "/api/domains", { cookie: a.cookie, body: { name: "example.com" } })).status).toBe(403);
    const bad = await t.json("POST", `/api/orgs/${foreign}/switch`, { cookie: a.cookie });
    expect(bad.status).toBe(404);
    expect((await t.json("GET", "/api/auth/me", { cookie: a.cookie })).body.currentOrg.name).toBe("Beta");
  });

  test("MSP: an admin creates a client org; parent owners/admins act in it with their role, members do not see it", async () => {
    t = await makeTestApp();
    const db = t.deps.store.db;
    const msp = await signedInMember(t.deps.store, "admin", "MSP");
    const created = await t.json("POST", "/api/orgs/clients", { cookie: msp.cookie, body: { name: "Client Dental" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Client Dental", parentId: msp.orgId, role: "admin" });
    const plainMember = await createUser(t.deps.store);
    await addMember(t.deps.store, msp.orgId, plainMember, "member");
    const memberCookie = await signIn(t.deps.store, plainMember, msp.orgId);
    expect((await t.json("GET", "/api/orgs", { cookie: memberCookie })).body.map((o: any) => o.name)).toEqual(["MSP"]);
    expect((await t.json("POST", `/api/orgs/${created.body.id}/switch`, { cookie: memberCookie })).status).toBe(404);
    expect((await t.json("POST", "/api/orgs/clients", { cookie: memberCookie, body: { name: "Nope Ltd" } })).status).toBe(403);

    const me = await t.json("POST", `/api/orgs/${created.body.id}/switch`, { cookie: msp.cookie });
    expect(me.body.organizations.map((o: any) => [o.name, o.parentId])).toEqual([
      ["MSP", null],
      ["Client Dental", msp.orgId],
    ]);
    expect((await t.json("POST", "/api/domains", { cookie: msp.cookie, body: { name: "client.example" } })).status).toBe(201);
    // a client cannot have clients of its own
    expect((await t.json("POST", "/api/orgs/clients", { cookie: msp.cookie, body: { name: "Grandchild" } })).status).toBe(400);
  });

  test("creating a client is in the managing organization's audit log (and not in the client's); a refused one records nothing", async () => {
    t = await makeTestApp();
    const msp = await signedInMember(t.deps.store, "admin", "MSP");
    const created = await t.json("POST", "/api/orgs/clients", { cookie: msp.cookie, body: { name: "Client Dental" } });
    expect(created.status).toBe(201);
    const log = await t.json("GET", "/api/audit?action=client.created", { cookie: msp.cookie });
    expect(log.status).toBe(200);
    const entries = log.body.entries;
    expect(entries.map((e: any) => [e.action, e.target, e.actorId, e.data?.clientId])).toEqual([["client.created", "Client Dental", msp.userId, created.body.id]]);
    // inside the client, its own log does not carry the parent's record
    expect((await t.json("POST", `/api/orgs/${created.body.id}/switch`, { cookie: msp.cookie })).status).toBe(200);
    const inClient = await t.json("GET", "/api/audit?action=client.created", { cookie: msp.cookie });
    expect(inClient.body.entries).toEqual([]);
    // refused (a client cannot have clients): no record
    expect((await t.json("POST", "/api/orgs/clients", { cookie: msp.cookie, body: { name: "Grandchild" } })).status).toBe(400);
    expect((await t.json("POST", `/api/orgs/${msp.orgId}/switch`, { cookie: msp.cookie })).status).toBe(200);
    const after = await t.json("GET", "/api/audit?action=client.created", { cookie: msp.cookie });
    expect(after.body.entries.length).toBe(1);
  });
});

describe("members and invitations", () => {
  test("invite → link (token stored hashed) → the invited user accepts once and joins with the role", async () => {
    t = await makeTestApp();
    const owner = await signup(t, "owner@example.com", "Acme");
    const inv = await t.json("POST", "/api/members/invitations", { cookie: owner, body: { email: "New@Example.com", role: "member" } });
    expect(inv.status).toBe(201);
    expect(inv.body.invitation).toMatchObject({ email: "new@example.com", role: "member" });
    const token = new URL(inv.body.link).searchParams.get("token")!;
    expect(inv.body.link).toStartWith("http://localhost/invite?token=");
    expect((await t.deps.store.db.select().from(invitations))[0]!.tokenHash).not.toBe(token);
    expect((await t.json("GET", "/api/members", { cookie: owner })).body.invitations).toHaveLength(1);

    const lookup = await t.json("POST", "/api/invitations/lookup", { body: { token } });
    expect(lookup.body).toMatchObject({ organization: "Acme", email: "new@example.com", role: "member" });

    const other = await signup(t, "other@example.com");
    const wrong = await t.json("POST", "/api/invitations/accept", { cookie: other, body: { token } });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error.message).toBe("This invitation was sent to new@example.com. Sign in with that address to accept it.");

    expect((await t.json("POST", "/api/invitations/accept", { body: { token } })).status).toBe(401);
    const invited = await signup(t, "new@example.com");
    const accepted = await t.json("POST", "/api/invitations/accept", { cookie: invited, body: { token } });
    expect(accepted.status).toBe(200);
    expect(accepted.body.currentOrg).toMatchObject({ name: "Acme", role: "member" });
    const again = await t.json("POST", "/api/invitations/accept", { cookie: invited, body: { token } });
    expect(again.status).toBe(404);

    const members = await t.json("GET", "/api/members", { cookie: owner });
    expect(members.body.members.map((m: any) => [m.email, m.role])).toEqual([
      ["owner@example.com", "owner"],
      ["new@example.com", "member"],
    ]);
    expect(members.body.invitations).toHaveLength(0);
    // members see the list but not pending invitations, and may not invite
    expect((await t.json("GET", "/api/members", { cookie: invited })).body.members).toHaveLength(2);
    expect((await t.json("POST", "/api/members/invitations", { cookie: invited, body: { email: "x@example.com", role: "viewer" } })).status).toBe(403);
  });

  test("accepting an invitation by its link marks the invitee's address verified (the link came by mail there)", async () => {
    t = await makeTestApp();
    const db = t.deps.store.db;
    const owner = await signup(t, "owner@example.com", "Acme");
    const inv = await t.json("POST", "/api/members/invitations", { cookie: owner, body: { email: "invitee@example.com", role: "viewer" } });
    const token = new URL(inv.body.link).searchParams.get("token")!;
    const verifiedAt = async (userId: string) => (await db.select({ at: users.emailVerifiedAt }).from(users).where(eq(users.id, userId)))[0]!.at;
    const stranger = await createUser(t.deps.store, "stranger@example.com");
    expect((await t.json("POST", "/api/invitations/accept", { cookie: await signIn(t.deps.store, stranger, null), body: { token } })).status).toBe(403);
    expect(await verifiedAt(stranger)).toBeNull();

    const invitee = await createUser(t.deps.store, "invitee@example.com");
    expect(await verifiedAt(invitee)).toBeNull();
    const accepted = await t.json("POST", "/api/invitations/accept", { cookie: await signIn(t.deps.store, invitee, null), body: { token } });
    expect(accepted.status).toBe(200);
    expect(await verifiedAt(invitee)).toBeInstanceOf(Date);
  });

  test("an expired invitation cannot be accepted", async () => {
    t = await makeTestApp();
    const owner = await signup(t, "owner@example.com", "Acme");
    const inv = await t.json("POST", "/api/members/invitations", { cookie: owner, body: { email: "late@example.com", role: "viewer" } });
    await t.deps.store.db.update(invitations).set({ expiresAt: new Date(Date.now() - 1000) });
    const late = await signup(t, "late@example.com");
    const res = await t.json("POST", "/api/invitations/accept", { cookie: late, body: { token: new URL(inv.body.link).searchParams.get("token") } });
    expect(res.status).toBe(404);
  });

  test("inviting an existing member → 409; bad email or role → 400; admins cannot grant owner", async () => {
    t = await makeTestApp();
    const db = t.deps.store.db;
    const admin = await signedInMember(t.deps.store, "admin");
    const { email } = (await db.select().from(memberships).innerJoin(users, eq(memberships.userId, users.id)))[0]!.users;
    expect((await t.json("POST", "/api/members/invitations", { cookie: admin.cookie, body: { email, role: "member" } })).status).toBe(409);
    expect((await t.json("POST", "/api/members/invitations", { cookie: admin.cookie, body: { email: "nope", role: "member" } })).body.error.fields.email).toBe("Please enter a valid email address");
    expect((await t.json("POST", "/api/members/invitations", { cookie: admin.cookie, body: { email: "a@example.com", role: "boss" } })).status).toBe(400);
    expect((await t.json("POST", "/api/members/invitations", { cookie: admin.cookie, body: { email: "a@example.com", role: "owner" } })).status).toBe(403);
  });

  test("change role and remove; the last owner can be neither demoted nor removed", async () => {
    t = await makeTestApp();
    const db = t.deps.store.db;
    const owner = await signedInMember(t.deps.store, "owner");
    const second = await createUser(t.deps.store);
    await addMember(t.deps.store, owner.orgId, second, "member");
    const list = (await t.json("GET", "/api/members", { cookie: owner.cookie })).body.members;
    const ownerM = list.find((m: any) => m.userId === owner.userId);
    const secondM = list.find((m: any) => m.userId === second);

    const demote = await t.json("PATCH", `/api/members/${ownerM.id}`, { cookie: owner.cookie, body: { role: "admin" } });
    expect(demote.status).toBe(409);
    expect(demote.body.error.message).toBe("An organization needs at least one owner. Make another member owner first.");
    expect((await t.json("DELETE", `/api/members/${ownerM.id}`, { cookie: owner.cookie })).status).toBe(409);

    const promoted = await t.json("PATCH", `/api/members/${secondM.id}`, { cookie: owner.cookie, body: { role: "owner" } });
    expect(promoted.status).toBe(200);
    expect(promoted.body.role).toBe("owner");
    // now there are two owners: the first may step down
    expect((await t.json("PATCH", `/api/members/${ownerM.id}`, { cookie: owner.cookie, body: { role: "admin" } })).status).toBe(200);
    // as admin now, they cannot touch the owner
    expect((await t.json("PATCH", `/api/members/${secondM.id}`, { cookie: owner.cookie, body: { role: "member" } })).status).toBe(403);
    expect((await t.json("DELETE", `/api/members/${secondM.id}`, { cookie: owner.cookie })).status).toBe(403);
    // but may leave themselves
    expect((await t.json("DELETE", `/api/members/${ownerM.id}`, { cookie: owner.cookie })).status).toBe(200);
    expect((await db.select().from(memberships).where(eq(memberships.orgId, owner.orgId))).map((m) => m.userId)).toEqual([second]);
  });
});
