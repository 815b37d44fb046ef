/**
 * API tokens of an organisation. A token acts in its organisation with its role, capped by its
 * creator's current role there (a creator who leaves, or whose account ends, ends the token).
 * Only a SHA-256 of the token is stored; the token is answered once, when created.
 */
import { and, asc, eq, type SQL } from "drizzle-orm";
import type { Role } from "../../db/schema";
import type { OrgContext, ServiceContext } from "../../http/access";
import { ForbiddenError, NotFoundError, ValidationError } from "../../http/errors";
import { roleAtLeast } from "../../lib/permissions";
import { hashToken, newToken } from "../../lib/tokens";
import { recordAudit, type AuditActor } from "../audit/service";
import { requireProvedEmail } from "../auth/email-verification";
import { usersByIds } from "../auth/service";
import { hasTwoFactor } from "../auth/two-factor";
import { effectiveRole } from "../orgs/directory";
import { twoFactorRequiredIn } from "../settings/two-factor-policy";
import { TOKEN_PREFIX, type ApiTokenView, type CreatedToken } from "./contract";

const MAX_EXPIRY_MS = 5 * 366 * 86400_000;
export const TOKENS_PER_ORGANISATION = 100;

const isToken = (ctx: OrgContext) => Boolean((ctx.actor as { token?: unknown }).token);
function sessionOnly(ctx: OrgContext) {
  if (isToken(ctx)) throw new ForbiddenError("API tokens cannot manage API tokens. Sign in to the app to create, list or revoke them.");
}

export async function listTokens(ctx: OrgContext): Promise<ApiTokenView[]> {
  sessionOnly(ctx);
  const { apiTokens: t } = ctx.store.t;
  const rows = await ctx.store.db.select().from(t).where(eq(t.orgId, ctx.actor.orgId)).orderBy(asc(t.createdAt), asc(t.id));
  const creators = await usersByIds(ctx, rows.map((r) => r.createdBy));
  const now = ctx.now();
  return rows.map((r) => {
    const creator = creators.get(r.createdBy);
    return {
      id: r.id,
      name: r.name,
      role: r.role,
      createdAt: r.createdAt.toISOString(),
      createdBy: creator ? { id: creator.id, name: creator.name, email: creator.email } : null,
      expiresAt: r.expiresAt?.toISOString() ?? null,
      lastUsedAt: r.lastUsedAt?.toISOString() ?? null,
      expired: r.expiresAt !== null && r.expiresAt <= now,
    };
  });
}

export async function createToken(ctx: OrgContext, input: { name: string; role: Role; expiresAt: Date | null }): Promise<CreatedToken & { name: string; role: Role }> {
  sessionOnly(ctx);
  if (!roleAtLeast(ctx.actor.role, input.role)) throw new ForbiddenError(`A token's role can be at most your own (${ctx.actor.role}).`);
  await requireProvedEmail(ctx, ctx.actor.user.userId);
  const now = ctx.now();
  if (input.expiresAt && (Number.isNaN(input.expiresAt.getTime()) || input.expiresAt <= now)) throw new ValidationError("The expiry must be in the future.", { expiresAt: "Choose a date in the future" });
  if (input.expiresAt && input.expiresAt.getTime() - now.getTime() > MAX_EXPIRY_MS) throw new ValidationError("The expiry can be at most 5 years ahead.", { expiresAt: "At most 5 years ahead" });
  const { apiTokens: t } = ctx.store.t;
  const token = `${TOKEN_PREFIX}${newToken(32)}`;
  const id = await ctx.store.write(async (tx) => {
    const existing = await tx.select({ id: t.id }).from(t).where(eq(t.orgId, ctx.actor.orgId));
    if (existing.length >= TOKENS_PER_ORGANISATION) throw new ValidationError(`An organization can have at most ${TOKENS_PER_ORGANISATION} API tokens. Revoke the ones no longer used.`);
    const [row] = await tx
      .insert(t)
      .values({ orgId: ctx.actor.orgId, name: input.name, role: input.role, tokenHash: hashToken(token), createdBy: ctx.actor.user.userId, createdAt: now, expiresAt: input.expiresAt })
      .returning({ id: t.id });
    return row!.id;
  });
  return { id, token, name: input.name, role: input.role };
}

/** Revokes (deletes) one of the organisation's tokens; answers its name. */
export async function revokeToken(ctx: OrgContext, id: string): Promise<{ name: string }> {
  sessionOnly(ctx);
  const { apiTokens: t } = ctx.store.t;
  const [row] = await ctx.store.write((tx) => tx.delete(t).where(and(eq(t.orgId, ctx.actor.orgId), eq(t.id, id))).returning({ name: t.name }));
  if (!row) throw new NotFoundError("This API token does not exist (it may have been revoked already).");
  return row;
}

export interface TokenHolder {
  tokenId: string;
  tokenName: string;
  orgId: string;
  /** the token's role capped by its creator's current role */
  role: Role;
  creator: { id: string; name: string; email: string };
}

/**
 * The organisation and role a presented token acts with, or null for an unknown, expired or
 * orphaned token. Notes the last use (at most once a minute).
 */
export async function resolveApiToken(ctx: Pick<ServiceContext, "store" | "now">, token: string): Promise<TokenHolder | null> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return null;
  const { apiTokens: t } = ctx.store.t;
  const [row] = await ctx.store.db.select().from(t).where(eq(t.tokenHash, hashToken(token)));
  const now = ctx.now();
  if (!row || (row.expiresAt && row.expiresAt <= now)) return null;
  const creatorRole = await effectiveRole(ctx, row.createdBy, row.orgId);
  const creator = (await usersByIds(ctx, [row.createdBy])).get(row.createdBy);
  if (!creatorRole || !creator) return null;
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > 60_000) {
    await ctx.store.write((tx) => tx.update(t).set({ lastUsedAt: now }).where(and(eq(t.orgId, row.orgId), eq(t.id, row.id))));
  }
  return {
    tokenId: row.id,
    tokenName: row.name,
    orgId: row.orgId,
    role: roleAtLeast(creatorRole, row.role) ? row.role : creatorRole,
    creator: { id: creator.id, name: creator.name, email: creator.email },
  };
}

/** A token that stopped working because its organisation requires two-factor sign-in and its creator has none. */
interface HeldBackToken {
  tokenId: string;
  tokenName: string;
  orgId: string;
  creatorEmail: string;
}

/**
 * The live tokens (of one organisation, or made by one user) that the two-factor rule holds back
 * right now: their organisation requires two-factor sign-in and their creator, still a member,
 * has not turned it on. Asked when that becomes true (the rule switched on, a creator turning
 * theirs off), so the audit log names each such token once instead of at every refused call.
 */
async function tokensHeldBackByTwoFactor(ctx: Pick<ServiceContext, "store" | "now">, of: { orgId: string } | { createdBy: string }): Promise<HeldBackToken[]> {
  const { apiTokens: t } = ctx.store.t;
  const where: SQL = "orgId" in of ? eq(t.orgId, of.orgId) : eq(t.createdBy, of.createdBy);
  const rows = await ctx.store.db.select({ id: t.id, name: t.name, orgId: t.orgId, createdBy: t.createdBy, expiresAt: t.expiresAt }).from(t).where(where).orderBy(asc(t.createdAt), asc(t.id));
  const now = ctx.now();
  const required = new Map<string, boolean>();
  const withTwoFactor = new Map<string, boolean>();
  const creators = await usersByIds(ctx, rows.map((r) => r.createdBy));
  const held: HeldBackToken[] = [];
  for (const row of rows) {
    if (row.expiresAt && row.expiresAt <= now) continue;
    if (!required.has(row.orgId)) required.set(row.orgId, await twoFactorRequiredIn(ctx, row.orgId));
    if (!required.get(row.orgId)) continue;
    if (!withTwoFactor.has(row.createdBy)) withTwoFactor.set(row.createdBy, await hasTwoFactor(ctx, row.createdBy));
    const creator = creators.get(row.createdBy);
    if (withTwoFactor.get(row.createdBy) || !creator || !(await effectiveRole(ctx, row.createdBy, row.orgId))) continue;
    held.push({ tokenId: row.id, tokenName: row.name, orgId: row.orgId, creatorEmail: creator.email });
  }
  return held;
}

/** Records each token the two-factor rule now holds back in its organisation's audit log (see tokensHeldBackByTwoFactor). */
export async function auditTokensHeldBack(ctx: Pick<ServiceContext, "store" | "now">, of: { orgId: string } | { createdBy: string }, actor: AuditActor, address: string | null): Promise<void> {
  for (const token of await tokensHeldBackByTwoFactor(ctx, of)) {
    await recordAudit(ctx, { orgId: token.orgId, actor, action: "token.held_back", target: token.tokenName, address, data: { tokenId: token.tokenId, tokenName: token.tokenName, createdBy: token.creatorEmail } });
  }
}

/** Deletes every API token this user created, in any organisation; answers what was deleted. */
export async function dropTokensCreatedBy(ctx: Pick<ServiceContext, "store">, userId: string): Promise<{ orgId: string; name: string; role: Role }[]> {
  const { apiTokens: t } = ctx.store.t;
  return ctx.store.write((tx) => tx.delete(t).where(eq(t.createdBy, userId)).returning({ orgId: t.orgId, name: t.name, role: t.role }));
}
