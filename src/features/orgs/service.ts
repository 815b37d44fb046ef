import { eq } from "drizzle-orm";
import type { DB } from "../../db";
import { organizations, sessions } from "../../db/schema";
import { NotFoundError, ValidationError } from "../../http/errors";
import type { Actor } from "../../http/tenant";
import type { OrgSummary } from "../auth/contract";
import { effectiveRole } from "../auth/sessions";
import { uniqueSlug } from "./directory";

/**
 * Creates a client organisation under the actor's current one (MSP). Its owners and admins
 * act in the client with their own role; nobody is a direct member yet.
 */
export function createClient(db: DB, actor: Actor, name: string): OrgSummary {
  const parent = db.select({ parentId: organizations.parentId }).from(organizations).where(eq(organizations.id, actor.orgId)).get();
  if (parent?.parentId) throw new ValidationError("A client organisation cannot have clients of its own. Switch to the managing organisation first.");
  const org = db.insert(organizations).values({ name, slug: uniqueSlug(db, name), parentId: actor.orgId }).returning().get();
  return { id: org.id, name: org.name, slug: org.slug, parentId: org.parentId, role: effectiveRole(db, actor.user.userId, org.id)! };
}

/** Makes `orgId` the session's current organisation; 404 unless the user may act in it. */
export function switchOrganization(db: DB, user: { userId: string; sessionId: string }, orgId: string): void {
  if (!effectiveRole(db, user.userId, orgId)) throw new NotFoundError("No such organisation.");
  db.update(sessions).set({ currentOrgId: orgId }).where(eq(sessions.id, user.sessionId)).run();
}
