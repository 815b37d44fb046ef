/**
 * An organisation's single sign-on connection: read (never the secret), save, remove, and the
 * verbs the sign-in flow uses to find a connection. Saving a new issuer, client id or secret
 * first reads the provider's discovery document (outside any transaction), so a typo is caught
 * while the admin is still on the form.
 *
 * Allowed email domains must be proved: the organisation's identity provider vouches for any
 * address it likes, so listing a domain would otherwise let it create confirmed accounts for
 * another company's people. A domain is pending until its DNS holds the organisation's proof
 * record (dns/proof.ts) and "Check now" finds it; pending domains are used for nothing. Monitored
 * domains are no proof: adding a domain to monitor proves nothing about who controls it.
 */
import { and, eq, like } from "drizzle-orm";
import type { OrgContext, ServiceContext } from "../../http/access";
import { ForbiddenError, NotFoundError, ValidationError } from "../../http/errors";
import { checkProof, proofRecord, proofRecordText } from "../dns/proof";
import { decryptSecret, encryptSecret } from "../mailin/secret-box";
import { serverKey } from "../mailin/server-key";
import { organizationInfo } from "../orgs/audience";
import { organizationBySlug } from "../orgs/service";
import type { SaveSsoInput, SsoConnectionView, SsoDomainCheckResponse, SsoRole, SsoSettingsResponse } from "./contract";
import { saveSsoSchema } from "./contract";
import { describeIssuerError, discoverIssuer, issuerAddressProblem } from "./issuer";
import type { z } from "zod";

type SsoRow = ServiceContext["store"]["t"]["ssoConnections"]["$inferSelect"];
type SaveInput = z.output<typeof saveSsoSchema>;

/** The path the identity provider sends the browser back to. */
export const SSO_CALLBACK_PATH = "/api/auth/sso/callback";

/** The client secret is sealed to its organisation: a copied row does not decrypt elsewhere. */
const secretContext = (orgId: string) => `sso:${orgId}`;

export function redirectUriOf(ctx: Pick<ServiceContext, "config">, request: Request): string {
  const base = ctx.config.publicUrl || new URL(request.url).origin;
  return `${base}${SSO_CALLBACK_PATH}`;
}

const tokensRefused = (ctx: OrgContext) => {
  if (ctx.actor.token) throw new ForbiddenError("API tokens cannot read or change single sign-on. Sign in to the app to manage it.");
};

type KeyCtx = Pick<ServiceContext, "secretKey" | "config" | "store">;

export function connectionView(ctx: KeyCtx, row: SsoRow): SsoConnectionView {
  const proved = new Set(provedDomainsOf(row));
  const allowed = parseDomains(row.allowedDomains);
  return {
    issuer: row.issuer,
    clientId: row.clientId,
    hasClientSecret: row.clientSecretEncrypted !== "",
    allowedDomains: allowed,
    domains: allowed.map((domain) => ({ domain, status: proved.has(domain) ? "proved" : "pending", record: proofRecord(ctx, row.orgId, domain) })),
    newUserRole: row.newUserRole as SsoRole,
    enabled: row.enabled,
    updatedAt: row.updatedAt.toISOString(),
  };
}

function parseDomains(json: string): string[] {
  try {
    const list = JSON.parse(json);
    return Array.isArray(list) ? list.filter((d): d is string => typeof d === "string") : [];
  } catch {
    return [];
  }
}

/** The connection row of an organisation, or null. */
export async function connectionOf(ctx: Pick<ServiceContext, "store">, orgId: string): Promise<SsoRow | null> {
  const { ssoConnections: t } = ctx.store.t;
  const [row] = await ctx.store.db.select().from(t).where(eq(t.orgId, orgId));
  return row ?? null;
}

export async function getSso(ctx: OrgContext, request: Request): Promise<SsoSettingsResponse> {
  tokensRefused(ctx);
  const row = await connectionOf(ctx, ctx.actor.orgId);
  const slug = await organizationSlug(ctx, ctx.actor.orgId);
  return { connection: row ? connectionView(ctx, row) : null, redirectUri: redirectUriOf(ctx, request), organizationSlug: slug };
}

async function organizationSlug(ctx: ServiceContext, orgId: string): Promise<string> {
  return (await organizationInfo(ctx, orgId))?.slug ?? "";
}

export interface SavedSso {
  view: SsoConnectionView;
  /** which settings changed, by name (for the audit log; never a value of the secret) */
  changed: string[];
}

/** Creates or changes the organisation's connection. */
export async function saveSso(ctx: OrgContext, input: SaveInput): Promise<SavedSso> {
  tokensRefused(ctx);
  const orgId = ctx.actor.orgId;
  const existing = await connectionOf(ctx, orgId);
  const problem = issuerAddressProblem(ctx, input.issuer);
  if (problem) throw new ValidationError(problem, { issuer: problem });
  if (!existing && !input.clientSecret) throw new ValidationError("Enter the client secret your identity provider gave.", { clientSecret: "Enter the client secret your identity provider gave" });
  const key = serverKey(ctx);
  const providerChanged = !existing || existing.issuer !== input.issuer || existing.clientId !== input.clientId || input.clientSecret !== undefined;
  if (providerChanged) {
    const clientSecret = input.clientSecret ?? decryptSecret(key, existing!.clientSecretEncrypted, secretContext(orgId));
    try {
      await discoverIssuer(ctx, { issuer: input.issuer, clientId: input.clientId, clientSecret });
    } catch (error) {
      ctx.log.warn("sso discovery failed", { orgId, issuer: input.issuer, reason: describeIssuerError(error) });
      const message = `Could not read the identity provider's settings at ${input.issuer}/.well-known/openid-configuration. Check the issuer URL (it must be exactly the "issuer" your provider publishes) and that the server can reach it.`;
      throw new ValidationError(message, { issuer: "Could not read the identity provider's settings from this issuer URL" });
    }
  }
  const now = ctx.now();
  // a domain stays proved while it stays listed; a new one is pending until checked
  const stillProved = existing ? provedDomainsOf(existing).filter((d) => input.allowedDomains.includes(d)) : [];
  const values = {
    issuer: input.issuer,
    clientId: input.clientId,
    allowedDomains: JSON.stringify(input.allowedDomains),
    provedDomains: JSON.stringify(stillProved),
    newUserRole: input.newUserRole,
    enabled: input.enabled,
    updatedAt: now,
    updatedBy: ctx.actor.user.userId,
    ...(input.clientSecret !== undefined ? { clientSecretEncrypted: encryptSecret(key, input.clientSecret, secretContext(orgId)) } : {}),
  };
  const { ssoConnections: t } = ctx.store.t;
  const [row] = await ctx.store.write((tx) =>
    existing
      ? tx.update(t).set(values).where(eq(t.orgId, orgId)).returning()
      : tx
          .insert(t)
          .values({ orgId, ...values, clientSecretEncrypted: values.clientSecretEncrypted ?? "" })
          .returning(),
  );
  const before = existing ? connectionView(ctx, existing) : null;
  const after = connectionView(ctx, row!);
  const changed: string[] = [];
  if (!before) changed.push("created");
  else {
    if (before.issuer !== after.issuer) changed.push("issuer");
    if (before.clientId !== after.clientId) changed.push("client id");
    if (input.clientSecret !== undefined) changed.push("client secret");
    if (before.allowedDomains.join() !== after.allowedDomains.join()) changed.push("allowed domains");
    if (before.newUserRole !== after.newUserRole) changed.push("role for new users");
    if (before.enabled !== after.enabled) changed.push(after.enabled ? "turned on" : "turned off");
  }
  return { view: after, changed };
}

/** Removes the organisation's connection (members who signed in through it keep their accounts). */
export async function deleteSso(ctx: OrgContext): Promise<{ issuer: string }> {
  tokensRefused(ctx);
  const { ssoConnections: t } = ctx.store.t;
  const [row] = await ctx.store.write((tx) => tx.delete(t).where(eq(t.orgId, ctx.actor.orgId)).returning({ issuer: t.issuer }));
  if (!row) throw new NotFoundError("This organization has no single sign-on set up.");
  return row;
}

/** The client secret of a connection, decrypted with the server key. */
export function clientSecretOf(ctx: Pick<ServiceContext, "secretKey" | "config" | "store">, row: SsoRow): string {
  return decryptSecret(serverKey(ctx), row.clientSecretEncrypted, secretContext(row.orgId));
}

export const allowedDomainsOf = (row: SsoRow) => parseDomains(row.allowedDomains);
/** the allowed domains whose proof record was found: the only ones single sign-on uses */
export const provedDomainsOf = (row: SsoRow) => {
  const allowed = parseDomains(row.allowedDomains);
  return parseDomains(row.provedDomains).filter((d) => allowed.includes(d));
};

/**
 * POST /api/sso/domains/check: asks DNS now for each pending domain's proof record; the ones
 * found become proved. Proved domains are not asked again.
 */
export async function checkSsoDomains(ctx: OrgContext): Promise<SsoDomainCheckResponse & { proved: string[] }> {
  tokensRefused(ctx);
  const orgId = ctx.actor.orgId;
  const row = await connectionOf(ctx, orgId);
  if (!row) throw new NotFoundError("This organization has no single sign-on set up.");
  const already = new Set(provedDomainsOf(row));
  const pending = allowedDomainsOf(row).filter((d) => !already.has(d));
  const results: SsoDomainCheckResponse["results"] = [];
  const resolver = ctx.resolver;
  for (const [domain, outcome] of await Promise.all(pending.map(async (domain) => [domain, resolver ? await checkProof(resolver, proofRecord(ctx, orgId, domain)) : null] as const))) {
    const record = proofRecordText(proofRecord(ctx, orgId, domain));
    if (!outcome) results.push({ domain, status: "pending", message: `DNS lookups are not available on this server, so ${domain} cannot be checked. Publish: ${record}` });
    else if (outcome.status === "proved") results.push({ domain, status: "proved", message: `Proved: ${outcome.found}` });
    else results.push({ domain, status: "pending", message: outcome.status === "unknown" ? outcome.found : `${outcome.found} Publish this DNS record, then check again: ${record}` });
  }
  const proved = results.filter((r) => r.status === "proved").map((r) => r.domain);
  const { ssoConnections: t } = ctx.store.t;
  const saved = !proved.length
    ? row
    : await ctx.store.write(async (tx) => {
        // the settings as they are now (saved meanwhile?): only domains still listed become proved
        const [current] = await tx.select().from(t).where(eq(t.orgId, orgId));
        if (!current) throw new NotFoundError("This organization has no single sign-on set up.");
        const listed = allowedDomainsOf(current);
        const next = [...new Set([...provedDomainsOf(current), ...proved.filter((d) => listed.includes(d))])];
        const [updated] = await tx.update(t).set({ provedDomains: JSON.stringify(next) }).where(eq(t.orgId, orgId)).returning();
        return updated!;
      });
  return { connection: connectionView(ctx, saved), results, proved };
}

/** Enabled connections that allow this email domain and proved it. */
export async function connectionsForDomain(ctx: Pick<ServiceContext, "store">, domain: string): Promise<SsoRow[]> {
  const { ssoConnections: t } = ctx.store.t;
  // the JSON array holds each name in quotes: a cheap filter, then the exact check
  const rows = await ctx.store.db
    .select()
    .from(t)
    .where(and(eq(t.enabled, true), like(t.allowedDomains, `%"${domain.replace(/[%_\\"]/g, "")}"%`)));
  return rows.filter((row) => provedDomainsOf(row).includes(domain));
}

/** The enabled connection of the organisation with this slug, or null. */
export async function connectionForSlug(ctx: ServiceContext, slug: string): Promise<SsoRow | null> {
  const org = await organizationBySlug(ctx, slug);
  if (!org) return null;
  const row = await connectionOf(ctx, org.id);
  return row?.enabled ? row : null;
}

export type { SaveSsoInput };
