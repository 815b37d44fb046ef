/**
 * A local stand-in for the two OAuth2 mail providers, on 127.0.0.1, for tests: the
 * authorization endpoint (consents at once, as the person named by consentAs), the token
 * endpoint (authorization code with PKCE S256, refresh token; short-lived access tokens;
 * invalid_grant once consent is revoked), and the few Microsoft Graph and Gmail API calls the
 * product makes. Mailboxes live in memory; tests deliver mail and count folders/labels.
 *
 *   /ms/authorize  /ms/token  /ms/graph/v1.0/...       (Microsoft identity platform, Graph)
 *   /google/authorize  /google/token  /google/gmail/v1/... (Google OAuth, Gmail API)
 */
import type { Config } from "../../src/config";

export type StandInProvider = "microsoft" | "google";

export const MS_CLIENT = { id: "ms-client-id-test", secret: "ms-client-secret-test" };
export const GOOGLE_CLIENT = { id: "google-client-id-test.apps.googleusercontent.com", secret: "google-client-secret-test" };

interface StoredMessage {
  id: string;
  raw: string;
  /** Graph: the folder id; Gmail: the label ids */
  folder: string;
  labels: Set<string>;
  read: boolean;
}

interface Account {
  email: string;
  provider: StandInProvider;
  /** folder (Graph) or label (Gmail) id → its name */
  folders: Map<string, string>;
  messages: Map<string, StoredMessage>;
}

interface Grant {
  provider: StandInProvider;
  email: string;
  clientId: string;
  redirectUri: string;
  challenge: string;
  scope: string;
}

export interface RecordedCall {
  method: string;
  path: string;
  /** form parameters of token requests (secrets included: tests check what was sent) */
  params: Record<string, string>;
  authorization: string | null;
}

export interface OAuthMailStandIn {
  url: string;
  calls: RecordedCall[];
  /** the next consent at the provider is given as this address (default: the last one set) */
  consentAs(provider: StandInProvider, email: string): void;
  /** the next consent is declined (?error=access_denied) */
  declineNext(): void;
  /** seconds an access token lives (default 3600) */
  accessTokenSeconds: number;
  /** the person withdraws consent: every refresh token and access token of the account stops working */
  revoke(provider: StandInProvider, email: string): void;
  /** every access token issued so far stops working (a 401 on the next call) */
  expireAccessTokens(): void;
  deliver(provider: StandInProvider, email: string, mime: string, folder?: string): string;
  /** messages in a folder (Graph) or with a label (Gmail), unread or not; null when the folder/label does not exist */
  count(provider: StandInProvider, email: string, folder: string): number | null;
  unread(provider: StandInProvider, email: string, folder: string): number;
  /** token grants answered, by type */
  grants(grantType: "authorization_code" | "refresh_token", provider?: StandInProvider): RecordedCall[];
  /** every token value issued (to check none leaks into answers or logs) */
  issuedTokens: string[];
  close(): void;
}

/** Config members that point the product at the stand-in. */
export function oauthMailConfig(url: string, providers: StandInProvider[] = ["microsoft", "google"]): Partial<Config> {
  return {
    ...(providers.includes("microsoft")
      ? { microsoftClientId: MS_CLIENT.id, microsoftClientSecret: MS_CLIENT.secret, microsoftAuthorizeUrl: `${url}/ms/authorize`, microsoftTokenUrl: `${url}/ms/token`, microsoftGraphUrl: `${url}/ms/graph/v1.0` }
      : {}),
    ...(providers.includes("google")
      ? { googleClientId: GOOGLE_CLIENT.id, googleClientSecret: GOOGLE_CLIENT.secret, googleAuthorizeUrl: `${url}/google/authorize`, googleTokenUrl: `${url}/google/token`, gmailApiUrl: `${url}/google/gmail/v1` }
      : {}),
  };
}

/** The same as command-line flags, for `dmarcwarden serve` in the e2e tests. */
export function oauthMailArgs(url: string, providers: StandInProvider[] = ["microsoft", "google"]): string[] {
  const flags: Record<string, string | undefined> = {
    microsoftClientId: "--microsoft-client-id",
    microsoftClientSecret: "--microsoft-client-secret",
    microsoftAuthorizeUrl: "--microsoft-authorize-url",
    microsoftTokenUrl: "--microsoft-token-url",
    microsoftGraphUrl: "--microsoft-graph-url",
    googleClientId: "--google-client-id",
    googleClientSecret: "--google-client-secret",
    googleAuthorizeUrl: "--google-authorize-url",
    googleTokenUrl: "--google-token-url",
    gmailApiUrl: "--gmail-api-url",
  };
  return Object.entries(oauthMailConfig(url, providers)).flatMap(([key, value]) => [flags[key]!, String(value)]);
}

const random = (prefix: string) => `${prefix}${Buffer.from(crypto.getRandomValues(new Uint8Array(18))).toString("base64url")}`;
const sha256url = (value: string) => new Bun.CryptoHasher("sha256").update(value).digest("base64url");

export function startOAuthMailStandIn(): OAuthMailStandIn {
  const calls: RecordedCall[] = [];
  const accounts = new Map<string, Account>();
  const consenting: Record<StandInProvider, string> = { microsoft: "dmarc@contoso.example", google: "dmarc@fabrikam.example" };
  let decline = false;
  const codes = new Map<string, Grant>();
  const refreshTokens = new Map<string, { provider: StandInProvider; email: string; clientId: string }>();
  const accessTokens = new Map<string, { provider: StandInProvider; email: string; expiresAt: number }>();
  const issuedTokens: string[] = [];
  let messageCounter = 0;

  const accountOf = (provider: StandInProvider, email: string): Account => {
    const key = `${provider}:${email}`;
    let account = accounts.get(key);
    if (!account) {
      account = { email, provider, folders: new Map(), messages: new Map() };
      if (provider === "microsoft") account.folders.set("AAMkInbox", "Inbox");
      else for (const system of ["INBOX", "UNREAD", "SENT"]) account.folders.set(system, system);
      accounts.set(key, account);
    }
    return account;
  };
  /** a folder id by name (Graph "inbox" is the well-known name) */
  const folderIdOf = (account: Account, name: string): string | null => {
    if (account.provider === "microsoft" && name.toLowerCase() === "inbox") return "AAMkInbox";
    for (const [id, n] of account.folders) if (n === name) return id;
    return null;
  };

  const json = (body: unknown, status = 200) => Response.json(body, { status });
  const oauthError = (error: string, status = 400) => json({ error, error_description: `stand-in: ${error}` }, status);
  const graphError = (status: number, code: string) => json({ error: { code, message: code } }, status);

  function issue(provider: StandInProvider, email: string, clientId: string, withRefresh: boolean) {
    const accessToken = random("at-");
    const expiresIn = standIn.accessTokenSeconds;
    accessTokens.set(accessToken, { provider, email, expiresAt: Date.now() + expiresIn * 1000 });
    issuedTokens.push(accessToken);
    const body: Record<string, unknown> = { token_type: "Bearer", access_token: accessToken, expires_in: expiresIn, scope: "stand-in" };
    if (withRefresh) {
      const refreshToken = random("rt-");
      refreshTokens.set(refreshToken, { provider, email, clientId });
      issuedTokens.push(refreshToken);
      body.refresh_token = refreshToken;
    }
    return body;
  }

  async function token(provider: StandInProvider, request: Request): Promise<Response> {
    const params = Object.fromEntries(new URLSearchParams(await request.text()));
    calls[calls.length - 1]!.params = params;
    const client = provider === "microsoft" ? MS_CLIENT : GOOGLE_CLIENT;
    if (params.client_id !== client.id || params.client_secret !== client.secret) return oauthError("invalid_client", 401);
    if (params.grant_type === "authorization_code") {
      const grant = codes.get(params.code ?? "");
      codes.delete(params.code ?? "");
      if (!grant || grant.provider !== provider || grant.clientId !== params.client_id) return oauthError("invalid_grant");
      if (grant.redirectUri !== params.redirect_uri) return oauthError("invalid_grant");
      if (!params.code_verifier || sha256url(params.code_verifier) !== grant.challenge) return oauthError("invalid_grant");
      return json(issue(provider, grant.email, grant.clientId, true));
    }
    if (params.grant_type === "refresh_token") {
      const held = refreshTokens.get(params.refresh_token ?? "");
      if (!held || held.provider !== provider) return oauthError("invalid_grant");
      // Microsoft rotates refresh tokens; Google keeps the one it gave
      if (provider === "microsoft") refreshTokens.delete(params.refresh_token!);
      return json(issue(provider, held.email, held.clientId, provider === "microsoft"));
    }
    return oauthError("unsupported_grant_type");
  }

  function authorize(provider: StandInProvider, url: URL): Response {
    const q = url.searchParams;
    const client = provider === "microsoft" ? MS_CLIENT : GOOGLE_CLIENT;
    const redirectUri = q.get("redirect_uri") ?? "";
    if (q.get("client_id") !== client.id || q.get("response_type") !== "code" || q.get("code_challenge_method") !== "S256" || !q.get("code_challenge") || !redirectUri) {
      return new Response("bad authorization request", { status: 400 });
    }
    const back = new URL(redirectUri);
    back.searchParams.set("state", q.get("state") ?? "");
    if (decline) {
      decline = false;
      back.searchParams.set("error", "access_denied");
    } else {
      const code = random("code-");
      codes.set(code, { provider, email: consenting[provider], clientId: client.id, redirectUri, challenge: q.get("code_challenge")!, scope: q.get("scope") ?? "" });
      back.searchParams.set("code", code);
    }
    return new Response(null, { status: 302, headers: { location: back.href } });
  }

  function caller(provider: StandInProvider, request: Request): Account | null {
    const bearer = /^Bearer (.+)$/.exec(request.headers.get("authorization") ?? "")?.[1];
    const held = bearer ? accessTokens.get(bearer) : undefined;
    if (!held || held.provider !== provider || held.expiresAt <= Date.now()) return null;
    return accountOf(provider, held.email);
  }

  async function graph(path: string, url: URL, request: Request): Promise<Response> {
    const account = caller("microsoft", request);
    if (!account) return graphError(401, "InvalidAuthenticationToken");
    const method = request.method;
    if (path === "/me" && method === "GET") return json({ mail: account.email, userPrincipalName: account.email });
    if (path === "/me/mailFolders" && method === "GET") {
      const filter = url.searchParams.get("$filter") ?? "";
      const name = /^displayName eq '(.*)'$/.exec(filter)?.[1]?.replace(/''/g, "'");
      const value = [...account.folders].filter(([, n]) => name === undefined || n === name).map(([id, displayName]) => ({ id, displayName }));
      return json({ value });
    }
    if (path === "/me/mailFolders" && method === "POST") {
      const { displayName } = (await request.json()) as { displayName: string };
      if (folderIdOf(account, displayName)) return graphError(409, "ErrorFolderExists");
      const id = random("AAMkF");
      account.folders.set(id, displayName);
      return json({ id, displayName }, 201);
    }
    let m = /^\/me\/mailFolders\/([^/]+)\/messages$/.exec(path);
    if (m && method === "GET") {
      const folder = m[1] === "inbox" ? "AAMkInbox" : decodeURIComponent(m[1]!);
      if (!account.folders.has(folder)) return graphError(404, "ErrorItemNotFound");
      const unreadOnly = (url.searchParams.get("$filter") ?? "").endsWith("isRead eq false");
      const top = Number(url.searchParams.get("$top") ?? 10);
      const value = [...account.messages.values()].filter((x) => x.folder === folder && (!unreadOnly || !x.read)).slice(0, top).map((x) => ({ id: x.id }));
      return json({ value });
    }
    m = /^\/me\/messages\/([^/]+)\/\$value$/.exec(path);
    if (m && method === "GET") {
      const message = account.messages.get(decodeURIComponent(m[1]!));
      if (!message) return graphError(404, "ErrorItemNotFound");
      return new Response(message.raw, { headers: { "content-type": "message/rfc822" } });
    }
    m = /^\/me\/messages\/([^/]+)\/move$/.exec(path);
    if (m && method === "POST") {
      const message = account.messages.get(decodeURIComponent(m[1]!));
      const { destinationId } = (await request.json()) as { destinationId: string };
      if (!message || !account.folders.has(destinationId)) return graphError(404, "ErrorItemNotFound");
      // a moved message gets a new id in Graph
      account.messages.delete(message.id);
      message.id = `msg-${++messageCounter}`;
      message.folder = destinationId;
      account.messages.set(message.id, message);
      return json({ id: message.id }, 201);
    }
    m = /^\/me\/messages\/([^/]+)$/.exec(path);
    if (m && method === "PATCH") {
      const message = account.messages.get(decodeURIComponent(m[1]!));
      if (!message) return graphError(404, "ErrorItemNotFound");
      const body = (await request.json()) as { isRead?: boolean };
      if (typeof body.isRead === "boolean") message.read = body.isRead;
      return json({ id: message.id, isRead: message.read });
    }
    return graphError(400, "UnsupportedByStandIn");
  }

  async function gmail(path: string, url: URL, request: Request): Promise<Response> {
    const account = caller("google", request);
    if (!account) return json({ error: { code: 401, message: "Request had invalid authentication credentials.", status: "UNAUTHENTICATED" } }, 401);
    const method = request.method;
    if (path === "/users/me/profile") return json({ emailAddress: account.email, messagesTotal: account.messages.size });
    if (path === "/users/me/labels" && method === "GET") return json({ labels: [...account.folders].map(([id, name]) => ({ id, name, type: id === name ? "system" : "user" })) });
    if (path === "/users/me/labels" && method === "POST") {
      const { name } = (await request.json()) as { name: string };
      if (folderIdOf(account, name)) return json({ error: { code: 409, message: "Label name exists or conflicts" } }, 409);
      const id = random("Label_");
      account.folders.set(id, name);
      return json({ id, name, type: "user" });
    }
    if (path === "/users/me/messages" && method === "GET") {
      const label = url.searchParams.get("labelIds");
      const unreadOnly = (url.searchParams.get("q") ?? "").includes("is:unread");
      const max = Number(url.searchParams.get("maxResults") ?? 100);
      // newest first, as Gmail lists
      const messages = [...account.messages.values()]
        .filter((x) => (!label || x.labels.has(label)) && (!unreadOnly || x.labels.has("UNREAD")))
        .reverse()
        .slice(0, max)
        .map((x) => ({ id: x.id, threadId: x.id }));
      return json(messages.length ? { messages, resultSizeEstimate: messages.length } : { resultSizeEstimate: 0 });
    }
    let m = /^\/users\/me\/messages\/([^/]+)$/.exec(path);
    if (m && method === "GET") {
      const message = account.messages.get(decodeURIComponent(m[1]!));
      if (!message) return json({ error: { code: 404, message: "Requested entity was not found." } }, 404);
      if (url.searchParams.get("format") !== "raw") return json({ id: message.id, labelIds: [...message.labels] });
      return json({ id: message.id, labelIds: [...message.labels], sizeEstimate: message.raw.length, raw: Buffer.from(message.raw).toString("base64url") });
    }
    m = /^\/users\/me\/messages\/([^/]+)\/modify$/.exec(path);
    if (m && method === "POST") {
      const message = account.messages.get(decodeURIComponent(m[1]!));
      if (!message) return json({ error: { code: 404, message: "Requested entity was not found." } }, 404);
      const body = (await request.json()) as { addLabelIds?: string[]; removeLabelIds?: string[] };
      for (const id of body.addLabelIds ?? []) {
        if (!account.folders.has(id)) return json({ error: { code: 400, message: `Invalid label: ${id}` } }, 400);
        message.labels.add(id);
      }
      for (const id of body.removeLabelIds ?? []) message.labels.delete(id);
      return json({ id: message.id, labelIds: [...message.labels] });
    }
    return json({ error: { code: 400, message: "unsupported by the stand-in" } }, 400);
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      calls.push({ method: request.method, path: url.pathname, params: Object.fromEntries(url.searchParams), authorization: request.headers.get("authorization") });
      const p = url.pathname;
      if (p === "/ms/authorize") return authorize("microsoft", url);
      if (p === "/google/authorize") return authorize("google", url);
      if (p === "/ms/token" && request.method === "POST") return token("microsoft", request);
      if (p === "/google/token" && request.method === "POST") return token("google", request);
      if (p.startsWith("/ms/graph/v1.0/")) return graph(decodeURIComponent(p.slice("/ms/graph/v1.0".length)), url, request);
      if (p.startsWith("/google/gmail/v1/")) return gmail(p.slice("/google/gmail/v1".length), url, request);
      return new Response("not found", { status: 404 });
    },
  });

  const standIn: OAuthMailStandIn = {
    url: `http://127.0.0.1:${server.port}`,
    calls,
    accessTokenSeconds: 3600,
    issuedTokens,
    consentAs(provider, email) {
      consenting[provider] = email;
    },
    declineNext() {
      decline = true;
    },
    revoke(provider, email) {
      for (const [value, held] of refreshTokens) if (held.provider === provider && held.email === email) refreshTokens.delete(value);
      for (const [value, held] of accessTokens) if (held.provider === provider && held.email === email) accessTokens.delete(value);
    },
    expireAccessTokens() {
      accessTokens.clear();
    },
    deliver(provider, email, mime, folder = provider === "microsoft" ? "Inbox" : "INBOX") {
      const account = accountOf(provider, email);
      let folderId = folderIdOf(account, folder);
      if (!folderId) {
        folderId = provider === "microsoft" ? random("AAMkF") : random("Label_");
        account.folders.set(folderId, folder);
      }
      const id = `msg-${++messageCounter}`;
      account.messages.set(id, { id, raw: mime, folder: folderId, labels: new Set(provider === "google" ? [folderId, "UNREAD"] : []), read: false });
      return id;
    },
    count(provider, email, folder) {
      const account = accountOf(provider, email);
      const folderId = folderIdOf(account, folder);
      if (!folderId) return null;
      return [...account.messages.values()].filter((x) => (provider === "microsoft" ? x.folder === folderId : x.labels.has(folderId))).length;
    },
    unread(provider, email, folder) {
      const account = accountOf(provider, email);
      const folderId = folderIdOf(account, folder);
      return [...account.messages.values()].filter((x) => (provider === "microsoft" ? x.folder === folderId && !x.read : x.labels.has(folderId ?? "") && x.labels.has("UNREAD"))).length;
    },
    grants(grantType, provider) {
      return calls.filter((c) => (provider ? c.path === (provider === "microsoft" ? "/ms/token" : "/google/token") : c.path.endsWith("/token")) && c.params.grant_type === grantType);
    },
    close() {
      server.stop(true);
    },
  };
  return standIn;
}
