/**
 * Report mailboxes connected with OAuth2 (Microsoft 365 through Microsoft Graph, Google
 * Workspace through the Gmail API): the authorization code flow with PKCE started from Settings
 * (what the callback checks lives in a short-lived cookie sealed with the server key, like
 * single sign-on), tokens sealed with the server key, the access token refreshed before it
 * expires and on a 401, and polls with the same Processed/Invalid handling as IMAP. A refused
 * refresh token marks the mailbox "reconnect" and raises the mailbox alert.
 */
import { and, eq, sql } from "drizzle-orm";
import type { OAuthMailbox, OAuthMailProvider } from "../../db/schema";
import { claimLease } from "../../db/leases";
import type { OrgContext, ServiceContext } from "../../http/access";
import { ForbiddenError, NotFoundError, ServiceError } from "../../http/errors";
import { conditionKey } from "../../lib/alerts/conditions";
import { recordEvents } from "../alerts/events";
import { mailboxPolls } from "../metrics/registry";
import { oauthReportSource } from "../reports/sources";
import type { PollOutcome } from "./imap-client";
import { OAUTH_CALLBACK_PATH, OAUTH_PROVIDERS, reconnectNeeded, type OAuthConnectResult, type OAuthMailboxList, type OAuthMailboxView } from "./oauth-contract";
import { gmailMailbox } from "./oauth-gmail";
import { graphMailbox } from "./oauth-graph";
import { apiCaller, authorizationUrl, exchangeCode, OAuthProblem, pkcePair, PROVIDER_LABELS, providerSettings, refreshTokens, type OAuthProviderSettings, type TokenSet } from "./oauth-providers";
import { decryptSecret, encryptSecret, SecretKeyError } from "./secret-box";
import { serverKey } from "./server-key";
import { ingestMessage, maxMessageBytes, type IngestFn, type PollResult } from "./service";

export const OAUTH_FLOW_COOKIE = "dw_oauth_mailbox";
export const OAUTH_FLOW_MINUTES = 10;
const FLOW_CONTEXT = "oauth-mailbox-flow";
/** an access token this close to its expiry is refreshed before use */
const REFRESH_MARGIN_MS = 60_000;

/** Tokens are sealed to their organisation: a copied row does not decrypt elsewhere. */
const tokenContext = (orgId: string) => `oauth-mailbox:${orgId}`;

/** What the browser carries between the start and the callback (sealed). */
interface FlowState {
  orgId: string;
  userId: string;
  provider: OAuthMailProvider;
  folder: string;
  state: string;
  verifier: string;
  redirectUri: string;
  expiresAt: number;
}

export function oauthFlowCookie(config: { publicUrl: string }, sealed: string | null): string {
  const secure = config.publicUrl.startsWith("https:") ? "; Secure" : "";
  const value = sealed ? `${sealed}; Max-Age=${OAUTH_FLOW_MINUTES * 60}` : "; Max-Age=0";
  // Lax: the provider sends the browser back with a top-level GET from its own site
  return `${OAUTH_FLOW_COOKIE}=${value}; HttpOnly; SameSite=Lax; Path=/api/settings/oauth-mailboxes${secure}`;
}

function view(row: OAuthMailbox): OAuthMailboxView {
  return {
    id: row.id,
    provider: row.provider,
    providerLabel: PROVIDER_LABELS[row.provider],
    email: row.email,
    folder: row.folder,
    status: row.status,
    lastPolledAt: row.lastPolledAt ? row.lastPolledAt.toISOString() : null,
    lastError: row.lastError,
    lastPollMessages: row.lastPollMessages,
    createdAt: row.createdAt.toISOString(),
  };
}

const tokensRefused = (ctx: OrgContext) => {
  if (ctx.actor.token) throw new ForbiddenError("API tokens cannot connect mailboxes: the provider's consent needs a person signed in to the app.");
};

export async function listOAuthMailboxes(ctx: OrgContext): Promise<OAuthMailboxList> {
  const { oauthMailboxes } = ctx.store.t;
  const rows = await ctx.store.db.select().from(oauthMailboxes).where(eq(oauthMailboxes.orgId, ctx.actor.orgId));
  rows.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.email.localeCompare(b.email));
  return {
    providers: OAUTH_PROVIDERS.map((provider) => ({ provider, label: PROVIDER_LABELS[provider], configured: !!providerSettings(ctx.config, provider) })),
    mailboxes: rows.map(view),
  };
}

async function findOAuthMailbox(ctx: ServiceContext, orgId: string, id: string): Promise<OAuthMailbox | undefined> {
  const { oauthMailboxes } = ctx.store.t;
  const [row] = await ctx.store.db.select().from(oauthMailboxes).where(and(eq(oauthMailboxes.orgId, orgId), eq(oauthMailboxes.id, id)));
  return row;
}

export async function getOAuthMailbox(ctx: OrgContext, id: string): Promise<OAuthMailboxView | null> {
  const row = await findOAuthMailbox(ctx, ctx.actor.orgId, id);
  return row ? view(row) : null;
}

class ProviderNotConfigured extends ServiceError {
  constructor(provider: OAuthMailProvider) {
    super(409, "provider_not_configured", `This server is not set up for ${PROVIDER_LABELS[provider]} mailboxes. Ask the administrator to configure its client id and secret.`);
  }
}

export function oauthRedirectUri(ctx: Pick<ServiceContext, "config">, request: Request): string {
  const base = ctx.config.publicUrl || new URL(request.url).origin;
  return `${base}${OAUTH_CALLBACK_PATH}`;
}

/** The provider's consent page for the caller's organisation, and the sealed cookie the callback checks. */
export function startOAuthConnect(ctx: OrgContext, request: Request, input: { provider: OAuthMailProvider; folder: string }): { redirectUrl: string; cookie: string } {
  tokensRefused(ctx);
  const p = providerSettings(ctx.config, input.provider);
  if (!p) throw new ProviderNotConfigured(input.provider);
  const { verifier, challenge } = pkcePair();
  const flow: FlowState = {
    orgId: ctx.actor.orgId,
    userId: ctx.actor.user.userId,
    provider: input.provider,
    folder: input.folder,
    state: Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64url"),
    verifier,
    redirectUri: oauthRedirectUri(ctx, request),
    expiresAt: ctx.now().getTime() + OAUTH_FLOW_MINUTES * 60_000,
  };
  const redirectUrl = authorizationUrl(p, { redirectUri: flow.redirectUri, state: flow.state, challenge });
  return { redirectUrl, cookie: oauthFlowCookie(ctx.config, encryptSecret(serverKey(ctx), JSON.stringify(flow), FLOW_CONTEXT)) };
}

function mailClient(p: OAuthProviderSettings, token: (force?: boolean) => Promise<string>) {
  const api = apiCaller(p, token);
  return p.provider === "microsoft" ? graphMailbox(p, api) : gmailMailbox(p, api);
}

const expiry = (ctx: ServiceContext, tokens: TokenSet) => new Date(ctx.now().getTime() + tokens.expiresIn * 1000);

/**
 * The callback: checks the sealed flow against the caller and `state`, exchanges the code with
 * the PKCE verifier, asks the provider which mailbox it is, and stores (or reconnects) it.
 * Answers the result word for the settings page.
 */
export async function finishOAuthConnect(ctx: OrgContext, query: Record<string, string | undefined>, sealed: string | null): Promise<{ result: OAuthConnectResult; mailbox?: OAuthMailboxView }> {
  let flow: FlowState;
  try {
    if (!sealed) return { result: "expired" };
    flow = JSON.parse(decryptSecret(serverKey(ctx), sealed, FLOW_CONTEXT)) as FlowState;
  } catch {
    return { result: "expired" };
  }
  // the flow belongs to this person in this organisation, is recent, and answers this state
  if (flow.orgId !== ctx.actor.orgId || flow.userId !== ctx.actor.user.userId || flow.expiresAt < ctx.now().getTime() || !query.state || query.state !== flow.state) {
    ctx.log.warn("oauth_mailbox_state_refused", { org: ctx.actor.orgId });
    return { result: "expired" };
  }
  if (query.error || !query.code) {
    ctx.log.info("oauth_mailbox_consent_declined", { org: ctx.actor.orgId, provider: flow.provider, error: query.error ?? "no code" });
    return { result: "denied" };
  }
  const p = providerSettings(ctx.config, flow.provider);
  if (!p) return { result: "unconfigured" };
  let tokens: TokenSet;
  let email: string;
  try {
    tokens = await exchangeCode(p, { code: query.code, verifier: flow.verifier, redirectUri: flow.redirectUri });
    if (!tokens.refreshToken) throw new OAuthProblem(`${p.label} issued no refresh token (is offline access granted?)`, "unavailable");
    const accessToken = tokens.accessToken;
    email = await mailClient(p, async () => accessToken).address();
  } catch (error) {
    if (!(error instanceof OAuthProblem)) throw error;
    ctx.log.warn("oauth_mailbox_connect_failed", { org: ctx.actor.orgId, provider: flow.provider, detail: error.message });
    return { result: error.kind === "revoked" ? "denied" : "failed" };
  }
  const key = serverKey(ctx);
  const context = tokenContext(ctx.actor.orgId);
  const refreshTokenEncrypted = encryptSecret(key, tokens.refreshToken!, context);
  const accessTokenEncrypted = encryptSecret(key, tokens.accessToken, context);
  const { oauthMailboxes } = ctx.store.t;
  const values = {
    folder: flow.folder,
    refreshTokenEncrypted,
    accessTokenEncrypted,
    accessTokenExpiresAt: expiry(ctx, tokens),
    status: "active" as const,
    lastError: null,
    consecutiveFailures: 0,
    updatedAt: ctx.now(),
  };
  const [row] = await ctx.store.write((tx) =>
    tx
      .insert(oauthMailboxes)
      .values({ orgId: ctx.actor.orgId, provider: flow.provider, email, ...values })
      .onConflictDoUpdate({ target: [oauthMailboxes.orgId, oauthMailboxes.provider, oauthMailboxes.email], set: values })
      .returning(),
  );
  return { result: "connected", mailbox: view(row!) };
}

export async function deleteOAuthMailbox(ctx: OrgContext, id: string): Promise<OAuthMailboxView> {
  const { oauthMailboxes } = ctx.store.t;
  const [removed] = await ctx.store.write((tx) => tx.delete(oauthMailboxes).where(and(eq(oauthMailboxes.orgId, ctx.actor.orgId), eq(oauthMailboxes.id, id))).returning());
  if (!removed) throw new NotFoundError("No such mailbox in this organization.");
  return view(removed);
}

/**
 * The access token in force for a mailbox: the stored one while it lives, else (or when
 * `force`d after a 401) a new one from the refresh token, stored with a rotated refresh token.
 */
function tokenSource(deps: ServiceContext, p: OAuthProviderSettings, row: OAuthMailbox): (force?: boolean) => Promise<string> {
  const key = serverKey(deps);
  const context = tokenContext(row.orgId);
  let current = row.accessTokenEncrypted && row.accessTokenExpiresAt ? { token: decryptSecret(key, row.accessTokenEncrypted, context), expiresAt: row.accessTokenExpiresAt.getTime() } : null;
  let refreshToken = decryptSecret(key, row.refreshTokenEncrypted, context);
  // a token fetched during this poll serves the whole poll, however short the provider makes it
  let fresh = false;
  return async (force = false) => {
    if (!force && current && (fresh || current.expiresAt - REFRESH_MARGIN_MS > deps.now().getTime())) return current.token;
    const tokens = await refreshTokens(p, refreshToken);
    if (tokens.refreshToken) refreshToken = tokens.refreshToken;
    const expiresAt = expiry(deps, tokens);
    current = { token: tokens.accessToken, expiresAt: expiresAt.getTime() };
    fresh = true;
    const set = { accessTokenEncrypted: encryptSecret(key, tokens.accessToken, context), accessTokenExpiresAt: expiresAt, ...(tokens.refreshToken ? { refreshTokenEncrypted: encryptSecret(key, tokens.refreshToken, context) } : {}) };
    const { oauthMailboxes } = deps.store.t;
    await deps.store.write((tx) => tx.update(oauthMailboxes).set(set).where(and(eq(oauthMailboxes.orgId, row.orgId), eq(oauthMailboxes.id, row.id))));
    deps.log.info("oauth_mailbox_token_refreshed", { org: row.orgId, mailbox: row.id, provider: row.provider });
    return current.token;
  };
}

/** Polls in progress, by mailbox: a "Check now" during a scheduled poll joins it. */
const polling = new Map<string, Promise<PollResult>>();

/** Polls one OAuth mailbox and records the outcome on its row. Never throws. */
export function pollOAuthMailbox(deps: ServiceContext, orgId: string, id: string, ingest: IngestFn): Promise<PollResult> {
  const running = polling.get(id);
  if (running) return running;
  const poll = pollOnce(deps, orgId, id, ingest)
    .catch((error): PollResult => {
      deps.log.error("oauth_mailbox_poll_failed", { org: orgId, mailbox: id, error: error instanceof Error ? error.message : String(error) });
      return { ok: false, error: "Polling failed because of an error on this server; it is tried again at the next poll." };
    })
    .then((result) => {
      mailboxPolls.inc({ outcome: result.ok ? "ok" : "error" });
      return result;
    })
    .finally(() => polling.delete(id));
  polling.set(id, poll);
  return poll;
}

async function pollOnce(deps: ServiceContext, orgId: string, id: string, ingest: IngestFn): Promise<PollResult> {
  const { oauthMailboxes } = deps.store.t;
  const row = await findOAuthMailbox(deps, orgId, id);
  if (!row) return { ok: false, error: "No such mailbox in this organization." };
  const label = PROVIDER_LABELS[row.provider];
  const where = and(eq(oauthMailboxes.orgId, orgId), eq(oauthMailboxes.id, id));
  const startedAt = deps.now();
  if (row.status === "reconnect") return { ok: false, error: reconnectNeeded(label, row.email) };
  const p = providerSettings(deps.config, row.provider);
  if (!p) {
    const error = `This server is no longer set up for ${label} mailboxes (its client id and secret are not configured).`;
    await deps.store.write((tx) => tx.update(oauthMailboxes).set({ lastPolledAt: startedAt, lastError: error }).where(where));
    return { ok: false, error };
  }
  try {
    let lastFailure: string | null = null;
    const outcome: PollOutcome = await mailClient(p, tokenSource(deps, p, row)).poll(
      row.folder,
      ({ id: messageId, bytes }) =>
        ingestMessage(deps, ingest, { orgId, fileName: `${row.provider}-${messageId.slice(0, 40)}.eml`, bytes, event: "oauth_mailbox_message", fields: { mailbox: id }, source: oauthReportSource(row.provider) }, (reason) => {
          lastFailure = reason;
        }),
      { maxBytes: maxMessageBytes(deps), onOversize: (messageId, size) => deps.log.warn("oauth_mailbox_message_too_large", { org: orgId, mailbox: id, message: messageId, bytes: size }) },
    );
    const error = outcome.retried ? `${outcome.retried} message(s) could not be ingested and will be tried again (${lastFailure}).` : null;
    await deps.store.write((tx) => tx.update(oauthMailboxes).set({ lastPolledAt: startedAt, lastError: error, lastPollMessages: outcome.processed + outcome.invalid, consecutiveFailures: 0 }).where(where));
    deps.log.info("oauth_mailbox_poll", { org: orgId, mailbox: id, provider: row.provider, ...outcome });
    return { ok: true, outcome };
  } catch (error) {
    if (!(error instanceof OAuthProblem) && !(error instanceof SecretKeyError)) throw error;
    const revoked = error instanceof OAuthProblem && error.kind === "revoked";
    const message = revoked
      ? reconnectNeeded(label, row.email)
      : error instanceof SecretKeyError
        ? "The stored authorization cannot be decrypted with this server's key (was the key changed?). Reconnect the mailbox in Settings."
        : error.kind === "folder"
          ? error.message
          : `Could not reach ${label} to read ${row.email}; it is tried again at the next poll.`;
    deps.log.warn("oauth_mailbox_poll_failed", { org: orgId, mailbox: id, provider: row.provider, kind: error instanceof OAuthProblem ? error.kind : "key", detail: error.message });
    await deps.store.write(async (tx) => {
      const [counted] = await tx
        .update(oauthMailboxes)
        .set({ lastPolledAt: startedAt, lastError: message, consecutiveFailures: sql`${oauthMailboxes.consecutiveFailures} + 1`, ...(revoked ? { status: "reconnect" as const } : {}) })
        .where(where)
        .returning({ failures: oauthMailboxes.consecutiveFailures });
      // consent withdrawn: one alert now, since no later poll can succeed without a person
      if (revoked && counted) {
        await recordEvents(deps, orgId, [
          {
            type: "account.mailbox_failing",
            domain: null,
            data: { host: label, username: row.email, failures: Number(counted.failures), error: message },
            dedupeKey: conditionKey("account.mailbox_failing", null, `oauth:${id}:${startedAt.getTime()}`),
          },
        ]);
      }
    });
    return { ok: false, error: message };
  }
}

/** Polls every connected OAuth mailbox one after another; one failing mailbox never stops the others. */
export async function pollAllOAuthMailboxes(deps: ServiceContext, ingest: IngestFn, leaseSeconds = 0): Promise<void> {
  const { oauthMailboxes } = deps.store.t;
  const rows = await deps.store.db.select({ id: oauthMailboxes.id, orgId: oauthMailboxes.orgId }).from(oauthMailboxes).where(eq(oauthMailboxes.status, "active"));
  for (const { id, orgId } of rows) {
    try {
      if (leaseSeconds > 0 && !(await claimLease(deps.store, `oauth-mailbox-poll:${id}`, leaseSeconds, deps.now()))) continue;
      await pollOAuthMailbox(deps, orgId, id, ingest);
    } catch (error) {
      deps.log.error("oauth_mailbox_poll_failed", { org: orgId, mailbox: id, error: error instanceof Error ? error.message : String(error) });
    }
  }
}
