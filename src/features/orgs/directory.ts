import { and, asc, eq, inArray } from "drizzle-orm";
import type { OrgSummary } from "../auth/contract";
import type { Role } from "../../db/schema";
import type { WithStore } from "../auth/sessions";

/**
 * Every organisation a user may act in: their own memberships, plus — for organisations
 * where they are owner or admin — the client organisations below them (MSP). Parents come
 * before their clients; each with the user's effective role.
 */
export async function organizationsOf({ store }: WithStore, userId: string): Promise<OrgSummary[]> {
  const { memberships, organizations } = store.t;
  const direct = (
    await store.db
      .select({ id: organizations.id })
      .from(memberships)
      .innerJoin(organizations, eq(organizations.id, memberships.orgId))
      .where(eq(memberships.userId, userId))
      // joined in the same second: the name decides, the same way in both databases
      .orderBy(asc(memberships.createdAt), asc(organizations.name), asc(organizations.id))
  ).map((r) => r.id);
  const seen = new Set<string>(direct);
  const result: OrgSummary[] = [];
  let frontier = direct;
  while (frontier.length) {
    const rows = await store.db.select().from(organizations).where(inArray(organizations.id, frontier));
    const order = new Map(frontier.map((id, i) => [id, i]));
    rows.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
    const managers: string[] = [];
    for (const org of rows) {
      const role = await effectiveRole({ store }, userId, org.id);
      if (!role) continue;
      result.push({ id: org.id, name: org.name, slug: org.slug, parentId: org.parentId, role });
      if (role === "owner" || role === "admin") managers.push(org.id);
    }
    if (!managers.length) break;
    frontier = (await store.db.select({ id: organizations.id }).from(organizations).where(inArray(organizations.parentId, managers)).orderBy(asc(organizations.name)))
      .map((r) => r.id)
      .filter((id) => !seen.has(id) && (seen.add(id), true));
  }
  return result;
}

/** The organisations a user is a member of directly (no clients reached through a role), with their managing organisation. */
export async function membershipsOf({ store }: WithStore, userId: string): Promise<{ id: string; parentId: string | null }[]> {
  const { memberships, organizations } = store.t;
  return store.db
    .select({ id: organizations.id, parentId: organizations.parentId })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.orgId))
    .where(eq(memberships.userId, userId));
}

export async function orgSummary({ store }: WithStore, userId: string, orgId: string | null): Promise<OrgSummary | null> {
  if (!orgId) return null;
  const [org] = await store.db.select().from(store.t.organizations).where(eq(store.t.organizations.id, orgId));
  const role = org ? await effectiveRole({ store }, userId, org.id) : null;
  if (!org || !role) return null;
  return { id: org.id, name: org.name, slug: org.slug, parentId: org.parentId, role };
}

/** A unique slug for an organisation name ("Acme Dental" → "acme-dental", "acme-dental-3f9a" when taken). */
export async function uniqueSlug({ store }: WithStore, name: string): Promise<string> {
  const { organizations } = store.t;
  const base = name.toLowerCase().normalize("NFKD").replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 40) || "org";
  let slug = base;
  while ((await store.db.select({ id: organizations.id }).from(organizations).where(eq(organizations.slug, slug))).length) {
    slug = `${base}-${crypto.randomUUID().slice(0, 4)}`;
  }
  return slug;
}

/**
 * The role a user has in an organisation: their own membership, or — for an MSP's client
 * organisation — the role they hold as owner or admin of the parent organisation.
 */
export async function effectiveRole({ store }: WithStore, userId: string, orgId: string): Promise<Role | null> {
  const { memberships, organizations } = store.t;
  const [direct] = await store.db.select({ role: memberships.role }).from(memberships).where(and(eq(memberships.userId, userId), eq(memberships.orgId, orgId)));
  const [org] = await store.db.select({ parentId: organizations.parentId }).from(organizations).where(eq(organizations.id, orgId));
  if (!org) return null;
  let inherited: Role | null = null;
  if (org.parentId) {
    const parentRole = await effectiveRole({ store }, userId, org.parentId);
    if (parentRole === "owner" || parentRole === "admin") inherited = parentRole;
  }
  const rank = { viewer: 0, member: 1, admin: 2, owner: 3 } as const;
  const roles = [direct?.role, inherited].filter(Boolean) as Role[];
  if (!roles.length) return null;
  return roles.reduce((a, b) => (rank[a] >= rank[b] ? a : b));
}
