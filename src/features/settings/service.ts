/** Organisation settings: one row per organisation, defaults until first saved. */
import { and, asc, eq } from "drizzle-orm";
import type { DB } from "../../db";
import { memberships, organizations, organizationSettings, users } from "../../db/schema";
import { NotFoundError } from "../../http/errors";
import type { CachePolicy } from "../dns/resolver";
import { DEFAULT_PREFERENCES, type Settings } from "./contract";

/** What an organisation without a saved row sees: its own name, its first owner's email, the default preferences. */
export function defaultSettings(db: DB, orgId: string): Settings {
  const org = db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, orgId)).get();
  if (!org) throw new NotFoundError("This organisation no longer exists.");
  const owner = db
    .select({ email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.orgId, orgId), eq(memberships.role, "owner")))
    .orderBy(asc(memberships.createdAt))
    .limit(1)
    .get();
  return { organizationName: org.name, contactEmail: owner?.email ?? "", ...DEFAULT_PREFERENCES };
}

export function getSettings(db: DB, orgId: string): Settings & { updatedAt: Date | null } {
  const row = db.select().from(organizationSettings).where(eq(organizationSettings.orgId, orgId)).get();
  if (!row) return { ...defaultSettings(db, orgId), updatedAt: null };
  const fallback = row.organizationName && row.contactEmail !== null ? null : defaultSettings(db, orgId);
  return {
    organizationName: row.organizationName ?? fallback!.organizationName,
    contactEmail: row.contactEmail ?? fallback!.contactEmail,
    emailNotifications: row.emailNotifications,
    dmarcRua: row.dmarcRua ?? "",
    dmarcRuf: row.dmarcRuf ?? "",
    autoProcessReports: row.autoProcessReports,
    dnsCaching: row.dnsCaching,
    cacheTtlSeconds: row.cacheTtlSeconds,
    realtimeThreatMonitoring: row.realtimeThreatMonitoring,
    complianceAlerts: row.complianceAlerts,
    updatedAt: row.updatedAt,
  };
}

export function saveSettings(db: DB, orgId: string, input: Settings, now: Date): Settings & { updatedAt: Date | null } {
  const values = { ...input, updatedAt: now };
  db.insert(organizationSettings).values({ orgId, ...values }).onConflictDoUpdate({ target: organizationSettings.orgId, set: values }).run();
  return getSettings(db, orgId);
}

/** The organisation's DNS cache policy (Settings: DNS caching toggle and cache TTL), defaults until saved. */
export function dnsCachePolicy(db: DB, orgId: string): Required<CachePolicy> {
  const row = db
    .select({ dnsCaching: organizationSettings.dnsCaching, cacheTtlSeconds: organizationSettings.cacheTtlSeconds })
    .from(organizationSettings)
    .where(eq(organizationSettings.orgId, orgId))
    .get();
  return { cache: row?.dnsCaching ?? DEFAULT_PREFERENCES.dnsCaching, maxTtl: row?.cacheTtlSeconds ?? DEFAULT_PREFERENCES.cacheTtlSeconds };
}
