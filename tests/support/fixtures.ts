/**
 * Rows that many tests need: a user with an organisation and a signed-in session cookie.
 * Written into the real database through the store (so they work on SQLite and PostgreSQL),
 * the session through the same session code the app uses.
 */
import { eq } from "drizzle-orm";
import type { Role } from "../../src/db/schema";
import type { StoreCore } from "../../src/db/store";
import { createSession, SESSION_COOKIE } from "../../src/features/auth/sessions";

let counter = 0;

export interface SignedIn {
  userId: string;
  orgId: string;
  cookie: string;
}

export async function createOrg(store: StoreCore, name = `Org ${++counter}`, parentId: string | null = null): Promise<string> {
  const slug = `${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${++counter}`;
  const [row] = await store.write((tx) => tx.insert(store.t.organizations).values({ name, slug, parentId }).returning({ id: store.t.organizations.id }));
  return row!.id;
}

export async function createUser(store: StoreCore, email = `user${++counter}@example.test`, name = "Test User"): Promise<string> {
  const [row] = await store.write((tx) => tx.insert(store.t.users).values({ name, email: email.toLowerCase(), passwordHash: null }).returning({ id: store.t.users.id }));
  return row!.id;
}

/** Marks the user's address as proved (as a mailed link would), without the side effects of a first proof. */
export async function markVerified(store: StoreCore, userId: string, at = new Date("2026-01-01T00:00:00Z")): Promise<void> {
  await store.write((tx) => tx.update(store.t.users).set({ emailVerifiedAt: at }).where(eq(store.t.users.id, userId)));
}

export async function addMember(store: StoreCore, orgId: string, userId: string, role: Role): Promise<void> {
  await store.write((tx) => tx.insert(store.t.memberships).values({ orgId, userId, role }));
}

export async function signIn(store: StoreCore, userId: string, orgId: string | null): Promise<string> {
  const token = await createSession({ store }, userId, orgId);
  return `${SESSION_COOKIE}=${token}`;
}

/** A new user who holds `role` in a new organisation, signed in with it as current. */
export async function signedInMember(store: StoreCore, role: Role = "owner", orgName?: string): Promise<SignedIn> {
  const orgId = await createOrg(store, orgName);
  const userId = await createUser(store);
  await addMember(store, orgId, userId, role);
  return { userId, orgId, cookie: await signIn(store, userId, orgId) };
}
