/**
 * The two OAuth2 mail providers a report mailbox can be connected through: their endpoints
 * (configurable, so tests talk to a local stand-in), scopes, and the token endpoint's two
 * grants (authorization code with PKCE, refresh token). Knows nothing of organisations or the
 * database; a refused refresh token (`invalid_grant`) is an OAuthProblem of kind "revoked".
 */
import type { Config } from "../../config";
import type { OAuthMailProvider } from "../../db/schema";

export const PROVIDER_LABELS: Record<OAuthMailProvider, string> = { microsoft: "Microsoft 365", google: "Google Workspace" };

export interface OAuthProviderSettings {
  provider: OAuthMailProvider;
  label: string;
  clientId: string;
  clientSecret: string;
  authorizeUrl: string;
  tokenUrl: string;
  /** Microsoft Graph (…/v1.0) or Gmail API (…/gmail/v1) base, no trailing slash */
  apiBase: string;
  scope: string;
  /** extra parameters of the authorization request */
  authorizeParams: Record<string, string>;
}

type ProviderConfig = Pick<
  Config,
  | "microsoftClientId"
  | "microsoftClientSecret"
  | "microsoftTenant"
  | "microsoftAuthorizeUrl"
  | "microsoftTokenUrl"
  | "microsoftGraphUrl"
  | "googleClientId"
  | "googleClientSecret"
  | "googleAuthorizeUrl"
  | "googleTokenUrl"
  | "gmailApiUrl"
>;

const trim = (url: string) => url.replace(/\/+$/, "");

/** The provider's settings, or null when the operator has not configured its client. */
export function providerSettings(config: ProviderConfig, provider: OAuthMailProvider): OAuthProviderSettings | null {
  if (provider === "microsoft") {
    if (!config.microsoftClientId || !config.microsoftClientSecret) return null;
    const tenant = encodeURIComponent(config.microsoftTenant || "organizations");
    return {
      provider,
      label: PROVIDER_LABELS.microsoft,
      clientId: config.microsoftClientId,
      clientSecret: config.microsoftClientSecret,
      authorizeUrl: config.microsoftAuthorizeUrl || `https://login.microsoftonline.com/${tenant}/oauth2/v2.0/authorize`,
      tokenUrl: config.microsoftTokenUrl || `https://login.microsoftonline.com/${tenant}/oauth2/v2.0/token`,
      apiBase: trim(config.microsoftGraphUrl || "https://graph.microsoft.com/v1.0"),
      scope: "offline_access https://graph.microsoft.com/User.Read https://graph.microsoft.com/Mail.ReadWrite",
      authorizeParams: { response_mode: "query", prompt: "select_account" },
    };
  }
  if (!config.googleClientId || !config.googleClientSecret) return null;
  return {
    provider,
    label: PROVIDER_LABELS.google,
    clientId: config.googleClientId,
    clientSecret: config.googleClientSecret,
    authorizeUrl: config.googleAuthorizeUrl || "https://accounts.google.com/o/oauth2/v2/auth",
    tokenUrl: config.googleTokenUrl || "https://oauth2.googleapis.com/token",
    apiBase: trim(config.gmailApiUrl || "https://gmail.googleapis.com/gmail/v1"),
    scope: "https://www.googleapis.com/auth/gmail.modify",
    // a refresh token on every consent, so a reconnected mailbox gets a fresh one
    authorizeParams: { access_type: "offline", prompt: "consent", include_granted_scopes: "true" },
  };
}

/**
 * A failure talking to the provider. "revoked": the provider refused the refresh token (consent
 * withdrawn, password changed, account disabled): the mailbox must be connected again.
 * "folder": the folder or label does not exist (safe to show). "unavailable": anything else;
 * the message is for the server log.
 */
export class OAuthProblem extends Error {
  constructor(
    message: string,
    readonly kind: "revoked" | "folder" | "unavailable",
  ) {
    super(message);
  }
}

export interface TokenSet {
  accessToken: string;
  /** present when the provider issued (or rotated) a refresh token */
  refreshToken: string | null;
  /** seconds the access token lives */
  expiresIn: number;
}

/** S256 PKCE: a random verifier and its challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
  const challenge = new Bun.CryptoHasher("sha256").update(verifier).digest("base64url");
  return { verifier, challenge };
}

export function authorizationUrl(p: OAuthProviderSettings, input: { redirectUri: string; state: string; challenge: string }): string {
  const url = new URL(p.authorizeUrl);
  const params: Record<string, string> = {
    client_id: p.clientId,
    response_type: "code",
    redirect_uri: input.redirectUri,
    scope: p.scope,
    state: input.state,
    code_challenge: input.challenge,
    code_challenge_method: "S256",
    ...p.authorizeParams,
  };
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.href;
}

async function tokenRequest(p: OAuthProviderSettings, params: Record<string, string>, timeoutMs = 20_000): Promise<TokenSet> {
  let res: Response;
  try {
    res = await fetch(p.tokenUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams({ client_id: p.clientId, client_secret: p.clientSecret, ...params }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw new OAuthProblem(`${p.label} token endpoint unreachable: ${error instanceof Error ? error.message : String(error)}`, "unavailable");
  }
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok || typeof body.access_token !== "string") {
    const code = typeof body.error === "string" ? body.error : `HTTP ${res.status}`;
    // the provider's description may name the account, never a token
    if (code === "invalid_grant") throw new OAuthProblem(`${p.label} refused the grant (invalid_grant)`, "revoked");
    throw new OAuthProblem(`${p.label} token endpoint answered ${code}`, "unavailable");
  }
  const expiresIn = Number(body.expires_in);
  return { accessToken: body.access_token, refreshToken: typeof body.refresh_token === "string" && body.refresh_token ? body.refresh_token : null, expiresIn: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : 3600 };
}

export function exchangeCode(p: OAuthProviderSettings, input: { code: string; verifier: string; redirectUri: string }): Promise<TokenSet> {
  return tokenRequest(p, { grant_type: "authorization_code", code: input.code, code_verifier: input.verifier, redirect_uri: input.redirectUri });
}

export function refreshTokens(p: OAuthProviderSettings, refreshToken: string): Promise<TokenSet> {
  return tokenRequest(p, { grant_type: "refresh_token", refresh_token: refreshToken, scope: p.scope });
}

/**
 * An authorised call to the provider's API: `token()` gives the access token in force (refreshed
 * when it expires soon); a 401 refreshes once (`token(true)`) and tries again.
 */
export type ApiCall = (path: string, init?: { method?: string; json?: unknown }) => Promise<Response>;

export function apiCaller(p: OAuthProviderSettings, token: (force?: boolean) => Promise<string>, timeoutMs = 60_000): ApiCall {
  return async (path, init = {}) => {
    const send = async (accessToken: string) => {
      try {
        return await fetch(`${p.apiBase}${path}`, {
          method: init.method ?? "GET",
          headers: { authorization: `Bearer ${accessToken}`, accept: "application/json", ...(init.json !== undefined ? { "content-type": "application/json" } : {}) },
          body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        throw new OAuthProblem(`${p.label} API unreachable: ${error instanceof Error ? error.message : String(error)}`, "unavailable");
      }
    };
    let res = await send(await token());
    if (res.status === 401) res = await send(await token(true));
    return res;
  };
}

/** The API answer as JSON, or an OAuthProblem saying which call failed. */
export async function okJson<T>(p: OAuthProviderSettings, what: string, res: Response): Promise<T> {
  if (!res.ok) {
    const body = (await res.text().catch(() => "")).slice(0, 300);
    throw new OAuthProblem(`${p.label} API: ${what} failed (HTTP ${res.status}) ${body}`.trim(), res.status === 401 || res.status === 403 ? "revoked" : "unavailable");
  }
  return (await res.json()) as T;
}
