/**
 * Rows that many tests need: a user with an organisation and a signed-in session cookie.
 * Written through the same session code the app uses, into the real database.
 */
import type { DB } from "../../src/db";
import { memberships, organizations, sessions, users, type Role } from "../../src/db/schema";
import { newSession, SESSION_COOKIE } from "../../src/features/auth/sessions";

let counter = 0;

export interface SignedIn {
  userId: string;
  orgId: string;
  cookie: string;
}

export function createOrg(db: DB, name = `Org ${++counter}`, parentId: string | null = null): string {
  const slug = `${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${++counter}`;
  return db.insert(organizations).values({ name, slug, parentId }).returning({ id: organizations.id }).get().id;
}

export function createUser(db: DB, email = `user${++counter}@example.test`, name = "Test User"): string {
  return db.insert(users).values({ name, email: email.toLowerCase(), passwordHash: null }).returning({ id: users.id }).get().id;
}

export function addMember(db: DB, orgId: string, userId: string, role: Role) {
  db.insert(memberships).values({ orgId, userId, role }).run();
}

export function signIn(db: DB, userId: string, orgId: string | null): string {
  const { token, row } = newSession(userId, orgId, new Date());
  db.insert(sessions).values(row).run();
  return `${SESSION_COOKIE}=${token}`;
}

/** A new user who holds `role` in a new organisation, signed in with it as current. */
export function signedInMember(db: DB, role: Role = "owner", orgName?: string): SignedIn {
  const orgId = createOrg(db, orgName);
  const userId = createUser(db);
  addMember(db, orgId, userId, role);
  return { userId, orgId, cookie: signIn(db, userId, orgId) };
}
