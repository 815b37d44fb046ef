/**
 * Signing in through an organisation's identity provider: the authorisation code flow with
 * PKCE (S256), state and nonce. What the callback must check against lives in a short-lived
 * cookie sealed with the server key (AES-256-GCM), so any node can finish a flow another began
 * and nothing is stored per attempt. The callback checks state, exchanges the code with the
 * PKCE verifier, and verifies the ID token: its signature against the issuer's JWKS, issuer,
 * audience, expiry and nonce (openid-client). Then the email: the provider must say it is
 * verified, and its domain must be one the organisation allows and proved it controls (a DNS
 * proof record, see service.ts) — for new and existing users alike. New users join with the connection's role; an existing account with that email is
 * signed in (and joins the organisation with that role if it is not a member yet) only when it
 * belongs to no other organisation: the organisation's admins run its identity provider, which
 * could otherwise vouch for the address of someone who works in other organisations too.
 *
 * Two-factor sign-in: single sign-on does not replace dmarcwarden's own second factor. A user
 * who turned it on enters a code after the identity provider, and an organisation that requires
 * it still sends members without it to enrol first.
 */
import * as oidc from "openid-client";
import type { Config } from "../../config";
import type { ServiceContext } from "../../http/access";
import { ConflictError, NotFoundError, ServiceError } from "../../http/errors";
import { markEmailVerified } from "../auth/email-verification";
import { createUser, userByEmail } from "../auth/service";
import { createSession } from "../auth/sessions";
import { decryptSecret, encryptSecret, SecretKeyError } from "../mailin/secret-box";
import { serverKey } from "../mailin/server-key";
import { PlanLimitError } from "../billing/limits";
import { effectiveRole, organizationsOf } from "../orgs/directory";
import { joinOrganization } from "../orgs/members";
import type { SsoErrorCode, SsoRole } from "./contract";
import { cachedIssuer, describeIssuerError } from "./issuer";
import { allowedDomainsOf, clientSecretOf, connectionForSlug, connectionOf, connectionsForDomain, provedDomainsOf, redirectUriOf } from "./service";

export const SSO_FLOW_COOKIE = "dw_sso";
export const SSO_FLOW_MINUTES = 10;
const FLOW_CONTEXT = "sso-flow";
const SCOPE = "openid email profile";

/** What the browser carries between the start and the callback (sealed). */
interface FlowState {
  orgId: string;
  state: string;
  nonce: string;
  verifier: string;
  redirectUri: string;
  next: string;
  expiresAt: number;
}

export function flowCookie(config: Pick<Config, "publicUrl">, sealed: string | null): string {
  const secure = config.publicUrl.startsWith("https:") ? "; Secure" : "";
  const value = sealed ? `${sealed}; Max-Age=${SSO_FLOW_MINUTES * 60}` : "; Max-Age=0";
  // Lax: the identity provider sends the browser back with a top-level GET from its own site
  return `${SSO_FLOW_COOKIE}=${value}; HttpOnly; SameSite=Lax; Path=/api/auth/sso${secure}`;
}

/** A same-site path to land on after signing in (never another site). */
export function safeNextPath(next: string | undefined | null): string {
  if (!next || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\") || /[\r\n]/.test(next)) return "/app";
  return next;
}

const NO_SSO_FOR_DOMAIN = (domain: string) =>
  new NotFoundError(`No organization here signs in with single sign-on for addresses at ${domain}. Sign in with your password, or enter your organization's short name instead.`);
const SEVERAL_FOR_DOMAIN = (domain: string) => new ConflictError(`Several organizations sign in with single sign-on for addresses at ${domain}. Enter your organization's short name instead (your administrator can tell you).`);
const NO_SSO_FOR_SLUG = () => new NotFoundError("No organization with single sign-on has that short name. Check it with your administrator, or sign in with your password.");

/** The connection a person means: by their email's domain (their own organisations first), or by the organisation's short name. */
async function chooseConnection(ctx: ServiceContext, identifier: string) {
  if (!identifier.includes("@")) {
    const row = await connectionForSlug(ctx, identifier);
    if (!row) throw NO_SSO_FOR_SLUG();
    return row;
  }
  const domain = identifier.slice(identifier.lastIndexOf("@") + 1);
  let rows = await connectionsForDomain(ctx, domain);
  const user = await userByEmail(ctx, identifier);
  if (user && rows.length > 1) {
    const mine = [];
    for (const row of rows) if (await effectiveRole(ctx, user.id, row.orgId)) mine.push(row);
    if (mine.length) rows = mine;
  }
  if (!rows.length) throw NO_SSO_FOR_DOMAIN(domain);
  if (rows.length > 1) throw SEVERAL_FOR_DOMAIN(domain);
  return rows[0]!;
}

export class SsoUnavailableError extends ServiceError {
  constructor() {
    super(502, "sso_unavailable", "The organization's identity provider could not be reached. Try again in a moment, or sign in with your password.");
  }
}

type SsoRow = Awaited<ReturnType<typeof connectionOf>> & {};

/** The provider's configuration for a connection (kept a few minutes; see cachedIssuer). */
const issuerOf = (ctx: ServiceContext, row: SsoRow) =>
  cachedIssuer(ctx, [row.orgId, row.issuer, row.clientId, row.clientSecretEncrypted].join("\n"), { issuer: row.issuer, clientId: row.clientId, clientSecret: clientSecretOf(ctx, row) });

/** Starts a flow: answers the identity provider's authorisation URL and the sealed flow cookie. */
export async function startSso(ctx: ServiceContext, request: Request, input: { identifier: string; next?: string }): Promise<{ redirectUrl: string; cookie: string }> {
  const row = await chooseConnection(ctx, input.identifier);
  let config: oidc.Configuration;
  try {
    config = await issuerOf(ctx, row);
  } catch (error) {
    ctx.log.warn("sso discovery failed", { orgId: row.orgId, issuer: row.issuer, reason: error instanceof SecretKeyError ? "the stored client secret does not decrypt with this server's key" : describeIssuerError(error) });
    throw new SsoUnavailableError();
  }
  const verifier = oidc.randomPKCECodeVerifier();
  const flow: FlowState = {
    orgId: row.orgId,
    state: oidc.randomState(),
    nonce: oidc.randomNonce(),
    verifier,
    redirectUri: redirectUriOf(ctx, request),
    next: safeNextPath(input.next),
    expiresAt: ctx.now().getTime() + SSO_FLOW_MINUTES * 60_000,
  };
  const params: Record<string, string> = {
    redirect_uri: flow.redirectUri,
    scope: SCOPE,
    response_type: "code",
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state: flow.state,
    nonce: flow.nonce,
  };
  if (input.identifier.includes("@")) params.login_hint = input.identifier;
  const redirectUrl = oidc.buildAuthorizationUrl(config, params).href;
  const sealed = encryptSecret(serverKey(ctx), JSON.stringify(flow), FLOW_CONTEXT);
  return { redirectUrl, cookie: flowCookie(ctx.config, sealed) };
}

/** Why a callback was refused: the code shown on the sign-in page, and details for the log and audit. */
export class SsoRefused extends Error {
  constructor(
    readonly code: SsoErrorCode,
    readonly reason: string,
    readonly orgId: string | null = null,
    readonly email: string | null = null,
  ) {
    super(reason);
  }
}

export interface SsoSignedIn {
  orgId: string;
  userId: string;
  email: string;
  issuer: string;
  next: string;
  joined: boolean;
  role: SsoRole | null;
  /** the user has two-factor sign-in on: a code comes next, no session yet */
  twoFactor: boolean;
  /** the session's token when no code is needed */
  sessionToken: string | null;
}

function openFlow(ctx: ServiceContext, sealed: string | null): FlowState {
  if (!sealed) throw new SsoRefused("expired", "no flow cookie (expired, or the flow began in another browser)");
  let flow: FlowState;
  try {
    flow = JSON.parse(decryptSecret(serverKey(ctx), sealed, FLOW_CONTEXT)) as FlowState;
  } catch {
    throw new SsoRefused("expired", "the flow cookie does not decrypt");
  }
  if (typeof flow.expiresAt !== "number" || flow.expiresAt <= ctx.now().getTime()) throw new SsoRefused("expired", "the flow is older than its limit", flow.orgId ?? null);
  return flow;
}

/** The callback: every check, then the account and its membership. Throws SsoRefused. */
export async function finishSso(ctx: ServiceContext, request: Request, sealed: string | null): Promise<SsoSignedIn> {
  const flow = openFlow(ctx, sealed);
  const row = await connectionOf(ctx, flow.orgId);
  if (!row?.enabled) throw new SsoRefused("disabled", "single sign-on is off or was removed", flow.orgId);
  const answer = new URL(request.url);
  if (answer.searchParams.get("error")) throw new SsoRefused("denied", `the provider answered ${answer.searchParams.get("error")!.slice(0, 100)}`, flow.orgId);
  // the provider's answer, read against the redirect URI the flow registered (the request may have come through a proxy)
  const current = new URL(flow.redirectUri);
  current.search = answer.search;

  let config: oidc.Configuration;
  let claims: oidc.IDToken;
  let accessToken: string | undefined;
  try {
    config = await issuerOf(ctx, row);
    const tokens = await oidc.authorizationCodeGrant(config, current, { pkceCodeVerifier: flow.verifier, expectedState: flow.state, expectedNonce: flow.nonce, idTokenExpected: true }, { redirect_uri: flow.redirectUri });
    claims = tokens.claims()!;
    accessToken = tokens.access_token;
  } catch (error) {
    throw new SsoRefused("failed", describeIssuerError(error), flow.orgId);
  }

  let email = typeof claims.email === "string" ? claims.email : null;
  let verified = claims.email_verified;
  let name = typeof claims.name === "string" ? claims.name : null;
  // many providers put the email in the userinfo answer only (scope claims beside an access token)
  if ((!email || typeof verified !== "boolean") && accessToken && config.serverMetadata().userinfo_endpoint) {
    try {
      const info = await oidc.fetchUserInfo(config, accessToken, claims.sub);
      if (typeof info.email === "string") email = info.email;
      if (typeof info.email_verified === "boolean") verified = info.email_verified;
      if (!name && typeof info.name === "string") name = info.name;
    } catch (error) {
      throw new SsoRefused("failed", `userinfo: ${describeIssuerError(error)}`, flow.orgId);
    }
  }
  if (!email || !/^[^\s@]+@[^\s@]+$/.test(email)) throw new SsoRefused("email_not_verified", "the provider gave no email address", flow.orgId);
  email = email.toLowerCase();
  if (verified !== true) throw new SsoRefused("email_not_verified", "the provider did not say the email is verified", flow.orgId, email);
  const domain = email.slice(email.lastIndexOf("@") + 1);
  if (!allowedDomainsOf(row).includes(domain)) throw new SsoRefused("domain_not_allowed", `${domain} is not an allowed domain`, flow.orgId, email);
  if (!provedDomainsOf(row).includes(domain)) throw new SsoRefused("domain_not_proved", `${domain} is allowed but its DNS proof record was never found`, flow.orgId, email);

  // The organisation's admins control its identity provider, which can vouch for any address:
  // an existing account is signed in only when this organisation (and its clients) is all it
  // belongs to, so no organisation's provider opens an account that also belongs to others.
  const existing = await userByEmail(ctx, email);
  if (existing) {
    const elsewhere = (await organizationsOf(ctx, existing.id)).filter((org) => org.id !== row.orgId && org.parentId !== row.orgId);
    if (elsewhere.length) throw new SsoRefused("account_elsewhere", `the account ${email} also belongs to ${elsewhere.length} other organization(s)`, flow.orgId, email);
  }

  const now = ctx.now();
  const role = row.newUserRole as SsoRole;
  try {
    return await ctx.store.write(async () => {
      let user = await userByEmail(ctx, email!);
      if (!user) {
        await createUser(ctx, { name: (name ?? email!.split("@")[0]!).slice(0, 100), email: email!, passwordHash: null });
        user = (await userByEmail(ctx, email!))!;
      }
      // the identity provider vouched for the address
      await markEmailVerified(ctx, user.id, now);
      const joined = await joinOrganization(ctx, row.orgId, { id: user.id, name: user.name, email: user.email }, role);
      const twoFactor = user.totpEnabledAt !== null;
      const sessionToken = twoFactor ? null : await createSession(ctx, user.id, row.orgId, now);
      return { orgId: row.orgId, userId: user.id, email: user.email, issuer: row.issuer, next: flow.next, joined, role: joined ? role : null, twoFactor, sessionToken };
    });
  } catch (error) {
    if (error instanceof PlanLimitError) throw new SsoRefused("member_limit", "the plan's member limit is reached", flow.orgId, email);
    throw error;
  }
}
