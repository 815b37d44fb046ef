/**
 * White-label branding (issue 17): an MSP on the Scale plan (or any organisation when billing is
 * off) sets a product name, primary colour, support email and logo; it and its client
 * organisations see them in the app, on the sign-in page reached through the MSP's link and in
 * alert and digest mail. This feature owns `organization_branding`.
 *
 * Custom hostname: an MSP may name its own host for the deployment (a CNAME to it). A request
 * whose Host is a stored hostname gets that MSP's branding on the signed-out pages, and mail
 * links for its organisations point there. The Host header is the caller's to choose, so it only
 * ever selects among hostnames MSPs stored; links are never built from a request's Host.
 *
 * A stored hostname is used only once verified: pending until its DNS is checked (through the
 * server's own resolver) and found to point at the deployment, a CNAME to --public-url's host or
 * only that host's addresses, and to hold the organisation's proof record (dns/proof.ts: every
 * MSP's name points here, so pointing here says nothing about whose it is). Changing the name
 * makes it pending again; a verified name is re-checked daily (hostname-recheck.ts) and stops
 * being used when either no longer holds. Only one organisation holds a name verified; another
 * may type it but not verify it until the holder's proof fails.
 */
import { isIP } from "node:net";
import { and, eq, lt, ne, or, isNull } from "drizzle-orm";
import type { ServiceContext, OrgContext } from "../../http/access";
import { ConflictError, ForbiddenError, NotFoundError, PayloadTooLargeError, ValidationError } from "../../http/errors";
import { roleAllows } from "../../lib/permissions";
import { billingOrg, planOf } from "../billing/limits";
import { organizationInfo } from "../orgs/audience";
import { membershipsOf } from "../orgs/directory";
import { organizationBySlug } from "../orgs/service";
import { checkProof, proofRecord, proofRecordText } from "../dns/proof";
import type { DnsResolver } from "../dns/resolver";
import { brandingSchema, DEFAULT_PRODUCT_NAME, isCustomHostname, normalizeHostname, LOGO_MAX_BYTES, type Branding, type BrandingInput, type BrandingResponse, type HostnameStatus, type HostnameVerification, type LogoType, type PublicBranding } from "./contract";

type Ctx = Pick<ServiceContext, "store" | "stripe"> & { config?: Pick<ServiceContext["config"], "stripeSecretKey"> };
type CheckCtx = Pick<ServiceContext, "store" | "now" | "resolver" | "secretKey"> & { config: ServiceContext["config"] };
type Row = typeof import("../../db/schema").organizationBranding.$inferSelect;

export const DEFAULT_BRANDING: Branding = { productName: DEFAULT_PRODUCT_NAME, primaryColor: null, supportEmail: null, logoUrl: null };

async function rowOf(ctx: Pick<ServiceContext, "store">, orgId: string): Promise<Row | null> {
  const b = ctx.store.t.organizationBranding;
  const [row] = await ctx.store.db.select().from(b).where(eq(b.orgId, orgId)).limit(1);
  return row ?? null;
}

const logoUrl = (slug: string, row: Row) => (row.logoBase64 ? `/api/branding/${encodeURIComponent(slug)}/logo?v=${Math.floor((row.logoUpdatedAt?.getTime() ?? 0) / 1000)}` : null);

function brandingOf(row: Row, slug: string): Branding {
  return {
    productName: row.productName || DEFAULT_PRODUCT_NAME,
    primaryColor: row.primaryColor || null,
    supportEmail: row.supportEmail || null,
    logoUrl: logoUrl(slug, row),
  };
}

const isEmpty = (row: Row) => !row.productName && !row.primaryColor && !row.supportEmail && !row.logoBase64;

/** White-label is a Scale feature; with billing off (self-hosted) every organisation has it. */
export async function planAllowsBranding(ctx: Ctx, orgId: string): Promise<boolean> {
  // billing is on when the server has a Stripe client, or (commands without one) a secret key configured
  if (!ctx.stripe && !ctx.config?.stripeSecretKey?.trim()) return true;
  const org = await billingOrg(ctx, orgId);
  return !!org && planOf(org.plan).key === "scale";
}

/** The branding in force for an organisation: its own, else its MSP's, else the default — only while the plan allows it. */
export async function brandingFor(ctx: Ctx, orgId: string): Promise<Branding & { source: BrandingResponse["source"] }> {
  const org = await organizationInfo(ctx, orgId);
  if (!org || !(await planAllowsBranding(ctx, orgId))) return { ...DEFAULT_BRANDING, source: "default" };
  const own = await rowOf(ctx, org.id);
  if (own && !isEmpty(own)) return { ...brandingOf(own, org.slug), source: "own" };
  if (org.parentId) {
    const parent = await organizationInfo(ctx, org.parentId);
    const row = parent ? await rowOf(ctx, parent.id) : null;
    if (parent && row && !isEmpty(row)) return { ...brandingOf(row, parent.slug), source: "parent" };
  }
  return { ...DEFAULT_BRANDING, source: "default" };
}

/** GET /api/branding. */
export async function getBranding(ctx: OrgContext): Promise<BrandingResponse> {
  const { orgId, role } = ctx.actor;
  const org = await organizationInfo(ctx, orgId);
  if (!org) throw new NotFoundError();
  const inForce = await brandingFor(ctx, orgId);
  const row = await rowOf(ctx, orgId);
  const planAllows = await planAllowsBranding(ctx, orgId);
  const isClient = !!org.parentId;
  const hostname = row?.customHostname ?? null;
  const guidance = hostname ? hostnameGuidance(ctx.config.publicUrl, hostname) : null;
  const status = hostname ? statusOf(row!) : null;
  return {
    ...inForce,
    own: row && !isEmpty(row) ? brandingOf(row, org.slug) : null,
    customHostname: hostname,
    customHostnameStatus: status,
    customHostnameCheckedAt: hostname ? (row!.customHostnameCheckedAt?.toISOString() ?? null) : null,
    customHostnameRecord: guidance && "record" in guidance ? guidance.record : null,
    customHostnameProof: hostname ? proofRecord(ctx, orgId, hostname) : null,
    customHostnameMessage: !hostname || !guidance ? null : "reason" in guidance ? guidance.reason : HOSTNAME_STATUS_MESSAGES[status!],
    canEdit: roleAllows(role, "settings:manage") && planAllows && !isClient,
    planAllows,
    isClient,
  };
}

async function assertMayEdit(ctx: OrgContext): Promise<void> {
  const org = await organizationInfo(ctx, ctx.actor.orgId);
  if (!org) throw new NotFoundError();
  if (org.parentId) throw new ForbiddenError("Your managing organization sets the branding of its clients.");
  if (!(await planAllowsBranding(ctx, org.id))) throw new ForbiddenError("White-label branding is part of the Scale plan. Upgrade to set your own name, logo and color.");
}

/** PUT /api/branding: product name, colour, support email (empty: back to the default). Returns the changed fields. */
export async function saveBranding(ctx: OrgContext, input: BrandingInput): Promise<Record<string, string>> {
  await assertMayEdit(ctx);
  const v = brandingSchema.parse(input);
  const orgId = ctx.actor.orgId;
  const before = await rowOf(ctx, orgId);
  const hostname = v.customHostname === undefined ? undefined : v.customHostname || null;
  if (hostname) assertNotOwnHost(ctx.config.publicUrl, hostname);
  const values = {
    productName: v.productName || null,
    primaryColor: v.primaryColor ? v.primaryColor.toLowerCase() : null,
    supportEmail: v.supportEmail || null,
    ...(hostname === undefined ? {} : { customHostname: hostname }),
    // a new name is pending until its DNS is verified
    ...(hostname === undefined || hostname === (before?.customHostname ?? null) ? {} : { customHostnameStatus: "pending", customHostnameCheckedAt: null }),
    updatedAt: ctx.now(),
  };
  const b = ctx.store.t.organizationBranding;
  const taken = () => new ConflictError(HOSTNAME_TAKEN, { customHostname: HOSTNAME_TAKEN });
  // a name another organisation only typed stays free to claim: it is used once proved, by whoever proves it first
  if (hostname && hostname !== (before?.customHostname ?? null) && (await heldElsewhere(ctx, orgId, hostname))) throw taken();
  await ctx.store.write(async (tx) => {
    await tx.insert(b).values({ orgId, ...values }).onConflictDoUpdate({ target: b.orgId, set: values });
  });
  const after = values as Record<string, unknown>;
  const changed: Record<string, string> = {};
  for (const k of ["productName", "primaryColor", "supportEmail", "customHostname"] as const) {
    if (k in after && (before?.[k] ?? null) !== after[k]) changed[k] = (after[k] as string | null) ?? "";
  }
  return changed;
}

export const HOSTNAME_TAKEN =
  "Another organization has verified this hostname (its DNS holds that organization's proof record), so it cannot be used here. It becomes free once that record is removed and its daily check fails; or enter a host name of your own.";

/** Whether an organisation other than `orgId` holds `hostname` verified. */
async function heldElsewhere(ctx: Pick<ServiceContext, "store">, orgId: string, hostname: string): Promise<boolean> {
  const holder = await orgIdByHostname(ctx, hostname);
  return holder !== null && holder !== orgId;
}
export const HOSTNAME_IS_OWN = "That is this server's own address (its --public-url). Enter a host name of your own, e.g. dmarc.your-company.com.";

/** The deployment's own host (--public-url) cannot be an MSP's: it would brand every sign-in page. */
function assertNotOwnHost(publicUrl: string, hostname: string): void {
  let own: string | null = null;
  try {
    own = publicUrl ? normalizeHostname(new URL(publicUrl).hostname) : null;
  } catch {
    own = null;
  }
  if (own && own === hostname) throw new ValidationError(HOSTNAME_IS_OWN, { customHostname: HOSTNAME_IS_OWN });
}

/** The organisation that stored this host name (a Host header's value, normalized), or null. Anything that is not a host name is no one's. */
export async function orgIdByHostname(ctx: Pick<ServiceContext, "store">, host: string | null | undefined): Promise<string | null> {
  const name = host ? normalizeHostname(host) : "";
  if (!isCustomHostname(name)) return null;
  const b = ctx.store.t.organizationBranding;
  const [row] = await ctx.store.db
    .select({ orgId: b.orgId })
    .from(b)
    .where(and(eq(b.customHostname, name), eq(b.customHostnameStatus, "verified")))
    .limit(1);
  return row?.orgId ?? null;
}

/** What GET /api/branding says of a stored hostname beside its record (customHostnameRecord). */
export const HOSTNAME_STATUS_MESSAGES: Record<HostnameStatus, string> = {
  pending: "Publish both DNS records at your DNS provider (the CNAME and the TXT proof record), then verify. Until then the hostname is not used.",
  verified: "The hostname points at this server and holds your proof record: your clients' sign-in page and mail links use it.",
  failed: "The last check did not find the hostname pointing at this server with your proof record, so it is not used. Publish both DNS records, then verify again.",
};

const statusOf = (row: Row): HostnameStatus => (row.customHostnameStatus === "verified" || row.customHostnameStatus === "failed" ? row.customHostnameStatus : "pending");
/** the row's hostname while it is verified, else null */
const verifiedHostname = (row: Row | null | undefined) => (row?.customHostname && statusOf(row) === "verified" ? row.customHostname : null);

/**
 * What a hostname must point at: --public-url's host and the record to publish, or why it
 * cannot be verified on this server (no --public-url, or one that is an IP address or localhost).
 */
export function hostnameGuidance(publicUrl: string, hostname: string): { target: string; record: string } | { reason: string } {
  let target = "";
  try {
    target = publicUrl ? normalizeHostname(new URL(publicUrl).hostname.replace(/^\[|\]$/g, "")) : "";
  } catch {
    target = "";
  }
  if (!target) return { reason: `${hostname} cannot be verified: this server has no --public-url. Set --public-url to the deployment's own host name (e.g. https://dmarc.example.com), then verify.` };
  if (isIP(target) || target === "localhost" || target.endsWith(".localhost"))
    return { reason: `${hostname} cannot be verified: this server's --public-url (${publicUrl}) is ${isIP(target) ? "an IP address" : "localhost"}, and a custom hostname must be a CNAME to the deployment's host name. Set --public-url to that host name, then verify.` };
  return { target, record: `${hostname} CNAME ${target}.` };
}

type LookupOutcome = { status: "verified" | "failed"; found: string } | { status: "unknown"; found: string };

const sameSet = (a: string[], b: Set<string>) => a.length > 0 && a.every((x) => b.has(x));

/** Asks DNS (no cached answers) whether `hostname` points at `target`: a CNAME to it, or only its A/AAAA addresses. */
async function lookupHostname(resolver: DnsResolver, hostname: string, target: string): Promise<LookupOutcome> {
  const dns = resolver.withPolicy({ refresh: true });
  const cname = await dns.cname(hostname);
  if (cname.status === "ok" && cname.records.includes(target)) return { status: "verified", found: `${hostname} is a CNAME to ${target}.` };
  const [a, aaaa, ta, taaaa] = await Promise.all([dns.a(hostname), dns.aaaa(hostname), dns.a(target), dns.aaaa(target)]);
  const temporary = [a, aaaa].find((r) => r.status !== "ok" && r.status !== "nxdomain" && r.status !== "nodata");
  if (temporary) return { status: "unknown", found: `The DNS lookup of ${hostname} failed (${temporary.status}${temporary.error ? `: ${temporary.error}` : ""}); try again in a moment.` };
  const ours = new Set([...ta.records, ...taaaa.records]);
  const theirs = [...a.records, ...aaaa.records];
  if (ours.size && sameSet(theirs, ours)) return { status: "verified", found: `${hostname} has this server's addresses (${theirs.join(", ")}).` };
  if (cname.status === "ok" && cname.records.length) return { status: "failed", found: `${hostname} is a CNAME to ${cname.records[0]}, not to ${target}.` };
  if (a.status === "nxdomain") return { status: "failed", found: `${hostname} does not exist in DNS.` };
  if (!theirs.length) return { status: "failed", found: `${hostname} has no CNAME, A or AAAA record.` };
  if (!ours.size) return { status: "failed", found: `${hostname} has the addresses ${theirs.join(", ")}, but ${target} has none to compare them with.` };
  return { status: "failed", found: `${hostname} has the addresses ${theirs.join(", ")}, not this server's (${[...ours].join(", ")}).` };
}

/**
 * Checks an organisation's stored hostname now and stores the outcome (a temporary DNS failure
 * leaves the status as it was). For the Verify action and the daily re-check.
 */
export async function checkHostname(ctx: CheckCtx, orgId: string): Promise<HostnameVerification | null> {
  const row = await rowOf(ctx, orgId);
  const hostname = row?.customHostname;
  if (!row || !hostname) return null;
  if (await heldElsewhere(ctx, orgId, hostname)) throw new ConflictError(HOSTNAME_TAKEN, { customHostname: HOSTNAME_TAKEN });
  const guidance = hostnameGuidance(ctx.config.publicUrl, hostname);
  const proof = proofRecord(ctx, orgId, hostname);
  // whole seconds, as stored
  const now = new Date(Math.floor(ctx.now().getTime() / 1000) * 1000);
  let status: HostnameStatus;
  let message: string;
  if ("reason" in guidance) {
    status = "failed";
    message = guidance.reason;
  } else if (!ctx.resolver) {
    status = statusOf(row);
    message = `DNS lookups are not available on this server, so ${hostname} cannot be checked. Publish: ${guidance.record} and ${proofRecordText(proof)}`;
  } else {
    const [outcome, proved] = await Promise.all([lookupHostname(ctx.resolver, hostname, guidance.target), checkProof(ctx.resolver, proof)]);
    const missing = [outcome.status === "verified" ? null : guidance.record, proved.status === "proved" ? null : proofRecordText(proof)].filter((r) => r !== null);
    if (outcome.status === "unknown" || proved.status === "unknown") {
      status = statusOf(row);
      message = [outcome, proved].find((o) => o.status === "unknown")!.found;
    } else if (!missing.length) {
      status = "verified";
      message = `Verified: ${outcome.found} ${proved.found}`;
    } else {
      status = "failed";
      const found = [outcome.status === "verified" ? null : outcome.found, proved.status === "proved" ? null : proved.found].filter(Boolean).join(" ");
      message = `${found} Publish ${missing.length > 1 ? "these DNS records" : "this DNS record"}: ${missing.join(" and ")}`;
    }
  }
  const b = ctx.store.t.organizationBranding;
  // only if the name is still the one checked (a rename meanwhile stays pending)
  try {
    await ctx.store.write(async (tx) => {
      if (status === "verified") {
        const [holder] = await tx.select({ orgId: b.orgId }).from(b).where(and(eq(b.customHostname, hostname), eq(b.customHostnameStatus, "verified"), ne(b.orgId, orgId))).limit(1);
        if (holder) throw new ConflictError(HOSTNAME_TAKEN, { customHostname: HOSTNAME_TAKEN });
      }
      await tx.update(b).set({ customHostnameStatus: status, customHostnameCheckedAt: now }).where(and(eq(b.orgId, orgId), eq(b.customHostname, hostname)));
    });
  } catch (error) {
    // two organisations verifying the same name at once: the unique index of verified names refuses the second
    if (!(error instanceof ConflictError) && status === "verified" && (await heldElsewhere(ctx, orgId, hostname))) throw new ConflictError(HOSTNAME_TAKEN, { customHostname: HOSTNAME_TAKEN });
    throw error;
  }
  return { customHostname: hostname, status, checkedAt: now.toISOString(), message };
}

/** POST /api/branding/hostname/verify: the MSP's stored hostname, checked now. */
export async function verifyHostname(ctx: OrgContext): Promise<{ verification: HostnameVerification; before: HostnameStatus }> {
  await assertMayEdit(ctx);
  const row = await rowOf(ctx, ctx.actor.orgId);
  if (!row?.customHostname) throw new ValidationError("Set a custom hostname first, then verify it.", { customHostname: "Enter a host name such as dmarc.example.com" });
  const verification = await checkHostname(ctx, ctx.actor.orgId);
  if (!verification) throw new ValidationError("Set a custom hostname first, then verify it.", { customHostname: "Enter a host name such as dmarc.example.com" });
  return { verification, before: statusOf(row) };
}

/** Verified hostnames last checked before `before` (the daily re-check). */
export async function hostnamesDue(ctx: Pick<ServiceContext, "store">, before: Date): Promise<string[]> {
  const b = ctx.store.t.organizationBranding;
  const rows = await ctx.store.db
    .select({ orgId: b.orgId })
    .from(b)
    .where(and(eq(b.customHostnameStatus, "verified"), or(isNull(b.customHostnameCheckedAt), lt(b.customHostnameCheckedAt, before))));
  return rows.map((r) => r.orgId);
}

/**
 * The MSP host name that applies to an organisation: its own verified one, else its MSP's, while
 * the plan allows branding; null otherwise (a pending or failed name is never used).
 */
async function hostnameFor(ctx: Ctx, orgId: string): Promise<string | null> {
  const org = await organizationInfo(ctx, orgId);
  if (!org) return null;
  const own = await rowOf(ctx, org.id);
  const hostname = verifiedHostname(own) ?? (org.parentId ? verifiedHostname(await rowOf(ctx, org.parentId)) : null);
  if (!hostname || !(await planAllowsBranding(ctx, org.id))) return null;
  return hostname;
}

/**
 * Where mail for an organisation links to: `https://<custom hostname>` of its MSP (or its own),
 * or null for the default (--public-url). For invitations, alerts and digests.
 */
export async function mailOriginFor(ctx: Ctx, orgId: string): Promise<string | null> {
  const hostname = await hostnameFor(ctx, orgId);
  return hostname ? `https://${hostname}` : null;
}

/** What mailBaseFor and userMailBase read: the store, billing (the plan allows branding?) and the public address. */
export type MailBaseContext = Pick<ServiceContext, "store" | "stripe"> & { config: Pick<ServiceContext["config"], "stripeSecretKey" | "publicUrl">; mailer?: { publicUrl: string } | null };

/** The server's public address (--public-url, "" when unset), without a trailing slash. */
const publicBase = (ctx: MailBaseContext) => (ctx.mailer?.publicUrl || ctx.config.publicUrl || "").replace(/\/+$/, "");

/**
 * The base of every link in mail about an organisation (invitations, digests, alerts): its
 * verified custom hostname (mailOriginFor), else the server's public address (--public-url, ""
 * when unset). A branding that cannot be read gives the public address, so the mail still goes out.
 */
export async function mailBaseFor(ctx: MailBaseContext, orgId: string): Promise<string> {
  const origin = await mailOriginFor(ctx, orgId).catch(() => null);
  return origin ?? publicBase(ctx);
}

/**
 * The base of the links in a person's own mail (password links): their MSP's verified hostname
 * when userMailOrigin gives one, else the public address, as mailBaseFor for an organisation
 * (a branding that cannot be read gives the public address).
 */
export async function userMailBase(ctx: MailBaseContext, userId: string): Promise<string> {
  const origin = await userMailOrigin(ctx, userId).catch(() => null);
  return origin ?? publicBase(ctx);
}

/**
 * Where a person's own mail (a password link) links to: the MSP's host name only when every
 * organisation they belong to is that MSP or one of its clients, so an MSP's host never
 * receives a link for someone who also belongs elsewhere; null for the default.
 */
export async function userMailOrigin(ctx: Ctx, userId: string): Promise<string | null> {
  const rows = await membershipsOf(ctx, userId);
  const roots = [...new Set(rows.map((r) => r.parentId ?? r.id))];
  if (roots.length !== 1) return null;
  return mailOriginFor(ctx, roots[0]!);
}

/** The image type from its first bytes: PNG or JPEG only (SVG can carry script). */
export function sniffLogo(bytes: Uint8Array): LogoType | null {
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length >= 8 && png.every((x, i) => bytes[i] === x)) return "image/png";
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  return null;
}

/** PUT /api/branding/logo. */
export async function saveLogo(ctx: OrgContext, bytes: Uint8Array): Promise<void> {
  await assertMayEdit(ctx);
  if (bytes.length === 0) throw new ValidationError("Choose a PNG or JPEG image for the logo.", { logo: "Choose a PNG or JPEG image" });
  if (bytes.length > LOGO_MAX_BYTES) throw new PayloadTooLargeError(`The logo must be at most ${LOGO_MAX_BYTES / 1024} KB.`);
  const type = sniffLogo(bytes);
  if (!type) throw new ValidationError("The logo must be a PNG or JPEG image.", { logo: "PNG or JPEG only" });
  const orgId = ctx.actor.orgId;
  const values = { logoType: type, logoBase64: Buffer.from(bytes).toString("base64"), logoUpdatedAt: ctx.now(), updatedAt: ctx.now() };
  const b = ctx.store.t.organizationBranding;
  await ctx.store.write(async (tx) => {
    await tx.insert(b).values({ orgId, ...values }).onConflictDoUpdate({ target: b.orgId, set: values });
  });
}

/** DELETE /api/branding/logo. Returns whether there was one. */
export async function deleteLogo(ctx: OrgContext): Promise<boolean> {
  await assertMayEdit(ctx);
  const row = await rowOf(ctx, ctx.actor.orgId);
  if (!row?.logoBase64) return false;
  const b = ctx.store.t.organizationBranding;
  await ctx.store.write(async (tx) => {
    await tx.update(b).set({ logoType: null, logoBase64: null, logoUpdatedAt: null, updatedAt: ctx.now() }).where(eq(b.orgId, ctx.actor.orgId));
  });
  return true;
}

/** The logo of the organisation with this slug (public: it is shown on its sign-in page), while its plan allows branding. */
export async function logoBySlug(ctx: Ctx, slug: string): Promise<{ type: LogoType; bytes: Uint8Array<ArrayBuffer> } | null> {
  const org = await organizationBySlug(ctx, slug);
  if (!org || !(await planAllowsBranding(ctx, org.id))) return null;
  const row = await rowOf(ctx, org.id);
  if (!row?.logoBase64 || !row.logoType) return null;
  return { type: row.logoType as LogoType, bytes: new Uint8Array(Buffer.from(row.logoBase64, "base64")) };
}

/**
 * GET /api/branding/public?brand=<slug>: the sign-in page through an MSP's link; without
 * `brand`, the MSP whose stored host name the request came to (`host`: the Host header). Name,
 * logo and colour only; the default otherwise.
 */
export async function publicBranding(ctx: Ctx, slug: string | undefined, host?: string | null): Promise<PublicBranding> {
  const orgId = slug ? ((await organizationBySlug(ctx, slug.slice(0, 100)))?.id ?? null) : await orgIdByHostname(ctx, host);
  const b = orgId ? await brandingFor(ctx, orgId) : DEFAULT_BRANDING;
  return { productName: b.productName, primaryColor: b.primaryColor, logoUrl: b.logoUrl };
}
