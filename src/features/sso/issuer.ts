/**
 * Talking to an organisation's identity provider. Its address comes from an organisation admin,
 * so every request the server makes for it (discovery, JWKS, token, userinfo) goes through one
 * guarded fetch (src/features/net/outbound.ts): https only, connected to a checked public address
 * only, no redirects, a time limit and a size limit — the mailbox and webhook rules — unless the
 * operator allows otherwise with --allow-insecure-oidc (tests, a lab). ID tokens are verified
 * against the issuer's JWKS (openid-client's non-repudiation checks) besides the claims checks.
 */
import * as oidc from "openid-client";
import type { AppDeps } from "../../deps";
import { OutboundError, outboundFetch, readBounded } from "../net/outbound";

export type IssuerDeps = Pick<AppDeps, "config" | "resolver" | "log" | "store">;

const FETCH_TIMEOUT_MS = 10_000;
const MAX_ANSWER_BYTES = 1024 * 1024;

export const insecureOidcAllowed = (deps: Pick<AppDeps, "config">) => deps.config.allowInsecureOidc;

/** Why the issuer address may not be used, in words for the admin, or null. */
export function issuerAddressProblem(deps: Pick<AppDeps, "config">, issuer: string): string | null {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return "The issuer is not a URL. Copy it from your identity provider, e.g. https://accounts.google.com.";
  }
  if (url.username || url.password) return "The issuer URL must not contain a user name or password.";
  if (url.search || url.hash) return "The issuer URL has no query or fragment (nothing after ? or #).";
  if (url.protocol !== "https:" && !(url.protocol === "http:" && insecureOidcAllowed(deps))) return "The issuer must be an https:// address.";
  return null;
}

export class IssuerUnreachableError extends Error {}

/** The fetch openid-client uses for this server: every request through the outbound guard, its answer bounded. */
export function guardedFetch(deps: IssuerDeps): oidc.CustomFetch {
  const policy = { allowPrivate: insecureOidcAllowed(deps), flag: "--allow-insecure-oidc" };
  return async (url, options) => {
    const target = new URL(url);
    try {
      const res = await outboundFetch(deps, target, { method: options.method, headers: options.headers as HeadersInit, body: options.body as BodyInit | null | undefined, signal: options.signal, timeoutMs: FETCH_TIMEOUT_MS }, policy);
      const body = await readBounded(res, MAX_ANSWER_BYTES, target.host);
      // a Response with status 204 or 304 may not be given a body, not even an empty one
      return new Response(res.status === 204 || res.status === 304 ? null : body, { status: res.status, statusText: res.statusText, headers: res.headers });
    } catch (error) {
      if (error instanceof OutboundError) throw new IssuerUnreachableError(error.message);
      throw error;
    }
  };
}

export interface IssuerClient {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/**
 * The provider's configuration from its discovery document (`<issuer>/.well-known/openid-configuration`,
 * whose `issuer` must equal the one given), as a confidential client (client_secret_basic).
 */
export async function discoverIssuer(deps: IssuerDeps, client: IssuerClient): Promise<oidc.Configuration> {
  const execute = [oidc.enableNonRepudiationChecks];
  if (insecureOidcAllowed(deps)) execute.push(oidc.allowInsecureRequests);
  return oidc.discovery(new URL(client.issuer), client.clientId, { client_secret: client.clientSecret }, oidc.ClientSecretBasic(client.clientSecret), {
    [oidc.customFetch]: guardedFetch(deps),
    execute,
    timeout: FETCH_TIMEOUT_MS / 1000,
  });
}

/** How long a discovered configuration (with its JWKS) is used before the discovery document is read again. */
const CONFIGURATION_TTL_MS = 5 * 60_000;
const configurations = new WeakMap<object, Map<string, { configuration: Promise<oidc.Configuration>; expiresAt: number }>>();

/**
 * `discoverIssuer` for sign-ins, kept a few minutes per connection (per app: keyed by its store)
 * so a sign-in's start and callback do not each read the discovery document. `version` names the
 * connection's settings: a change to them (a new sealed secret included) is a new entry.
 */
export function cachedIssuer(deps: IssuerDeps, version: string, client: IssuerClient): Promise<oidc.Configuration> {
  let cache = configurations.get(deps.store);
  if (!cache) configurations.set(deps.store, (cache = new Map()));
  const now = Date.now();
  for (const [key, entry] of cache) if (entry.expiresAt <= now) cache.delete(key);
  const hit = cache.get(version);
  if (hit) return hit.configuration;
  const configuration = discoverIssuer(deps, client);
  cache.set(version, { configuration, expiresAt: now + CONFIGURATION_TTL_MS });
  // a failed discovery is tried again by the next sign-in
  configuration.catch(() => cache.delete(version));
  return configuration;
}

/** One line for the server log about a failure talking to the provider (never a secret: the library's messages name claims and URLs). */
export function describeIssuerError(error: unknown): string {
  if (error instanceof IssuerUnreachableError) return error.message;
  const cause = (error as { cause?: unknown })?.cause;
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string })?.code;
  const detail = cause instanceof Error ? `: ${cause.message}` : "";
  return `${code ? `${code}: ` : ""}${message}${detail}`.slice(0, 500);
}
