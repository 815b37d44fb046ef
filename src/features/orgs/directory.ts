import { asc, eq, inArray, sql } from "drizzle-orm";
import type { DB } from "../../db";
import { memberships, organizations } from "../../db/schema";
import { effectiveRole } from "../auth/sessions";
import type { OrgSummary } from "../auth/contract";

/**
 * Every organisation a user may act in: their own memberships, plus — for organisations
 * where they are owner or admin — the client organisations below them (MSP). Parents come
 * before their clients; each with the user's effective role.
 */
export function organizationsOf(db: DB, userId: string): OrgSummary[] {
  const direct = db
    .select({ id: organizations.id })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.orgId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(memberships.createdAt), asc(sql`"memberships"."rowid"`))
    .all()
    .map((r) => r.id);
  const seen = new Set<string>(direct);
  const result: OrgSummary[] = [];
  let frontier = direct;
  while (frontier.length) {
    const rows = db.select().from(organizations).where(inArray(organizations.id, frontier)).all();
    const order = new Map(frontier.map((id, i) => [id, i]));
    rows.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
    const managers: string[] = [];
    for (const org of rows) {
      const role = effectiveRole(db, userId, org.id);
      if (!role) continue;
      result.push({ id: org.id, name: org.name, slug: org.slug, parentId: org.parentId, role });
      if (role === "owner" || role === "admin") managers.push(org.id);
    }
    if (!managers.length) break;
    frontier = db
      .select({ id: organizations.id })
      .from(organizations)
      .where(inArray(organizations.parentId, managers))
      .orderBy(asc(organizations.name))
      .all()
      .map((r) => r.id)
      .filter((id) => !seen.has(id) && (seen.add(id), true));
  }
  return result;
}

export function orgSummary(db: DB, userId: string, orgId: string | null): OrgSummary | null {
  if (!orgId) return null;
  const org = db.select().from(organizations).where(eq(organizations.id, orgId)).get();
  const role = org ? effectiveRole(db, userId, org.id) : null;
  if (!org || !role) return null;
  return { id: org.id, name: org.name, slug: org.slug, parentId: org.parentId, role };
}

/** A unique slug for an organisation name ("Acme Dental" → "acme-dental", "acme-dental-3f9a" when taken). */
export function uniqueSlug(db: DB, name: string): string {
  const base = name.toLowerCase().normalize("NFKD").replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40) || "org";
  let slug = base;
  while (db.select({ id: organizations.id }).from(organizations).where(eq(organizations.slug, slug)).get()) {
    slug = `${base}-${crypto.randomUUID().slice(0, 4)}`;
  }
  return slug;
}
