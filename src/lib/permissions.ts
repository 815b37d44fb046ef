import type { Role } from "../db/schema/accounts";

/**
 * The one permission table. Each role has every permission of the roles below it:
 * viewer reads; member also uploads reports and runs lookups; admin also manages domains,
 * settings and members, and marks senders approved or not ours (a mark changes the verdicts,
 * threat levels and tasks everyone in the organisation sees, like a setting); owner also billing
 * and deleting the organisation.
 */
export const PERMISSIONS = {
  read: "viewer",
  "reports:upload": "member",
  "dns:lookup": "member",
  "domains:manage": "admin",
  "settings:manage": "admin",
  "senders:mark": "admin",
  "members:manage": "admin",
  "clients:manage": "admin",
  "tokens:manage": "admin",
  "audit:read": "admin",
  "billing:manage": "owner",
  "org:delete": "owner",
  "security:manage": "owner",
} as const satisfies Record<string, Role>;

export type Permission = keyof typeof PERMISSIONS;

const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

export function roleAllows(role: Role, permission: Permission): boolean {
  return RANK[role] >= RANK[PERMISSIONS[permission]];
}

export function roleAtLeast(role: Role, minimum: Role): boolean {
  return RANK[role] >= RANK[minimum];
}
