/**
 * A real OpenID Connect provider (`oidc-provider`) on 127.0.0.1 for the single sign-on tests.
 * Its sign-in page is the library's development interaction: any login name with any password
 * signs in, and the login name is the account: "ada@example.test" signs in as that address,
 * verified; "unverified:ada@example.test" as that address, not verified. Consent is granted
 * without a page. The provider issues RS256 ID tokens from its own key, published at its JWKS.
 *
 * `tamperTokens` lets a test change what the token endpoint answers (for example hand back an
 * ID token a different flow, client or provider issued), to prove the app refuses it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

export interface OidcClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

export interface TestOidcProvider {
  issuer: string;
  /** the provider's own address (127.0.0.1:port) */
  origin: string;
  /** changes the token endpoint's next answers (null: answer as the provider does) */
  tamperTokens(fn: ((answer: Record<string, unknown>) => Record<string, unknown>) | null): void;
  close(): Promise<void>;
}

export interface ProviderOptions {
  clients: OidcClient[];
  /** "127.0.0.1" (default) or "localhost": the issuer's host name */
  host?: string;
}

function accountOf(login: string) {
  const unverified = login.startsWith("unverified:");
  const email = unverified ? login.slice("unverified:".length) : login;
  return {
    accountId: login,
    async claims() {
      return { sub: `acct-${Buffer.from(login).toString("hex").slice(0, 40)}`, email, email_verified: !unverified, name: email.split("@")[0] };
    },
  };
}

export async function startOidcProvider(options: ProviderOptions): Promise<TestOidcProvider> {
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  let tamper: ((answer: Record<string, unknown>) => Record<string, unknown>) | null = null;
  const server: Server = createServer((req, res) => {
    if (tamper && req.method === "POST" && req.url?.startsWith("/token")) {
      const change = tamper;
      const end = res.end.bind(res);
      // the provider answers the token request with one end(body) call: rewrite that body
      (res as { end: unknown }).end = (chunk?: unknown, ...rest: unknown[]) => {
        if (chunk && res.statusCode === 200) {
          const changed = JSON.stringify(change(JSON.parse(String(chunk))));
          res.setHeader("content-length", Buffer.byteLength(changed));
          return end(changed, ...(rest as []));
        }
        return end(chunk as string, ...(rest as []));
      };
    }
    handler!(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  const issuer = `http://${options.host ?? "127.0.0.1"}:${port}`;
  const provider = new Provider(issuer, {
    clients: options.clients.map((c) => ({
      client_id: c.clientId,
      client_secret: c.clientSecret,
      redirect_uris: c.redirectUris,
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
    })),
    findAccount: async (_ctx: unknown, id: string) => accountOf(id),
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ["dmarcwarden-test-provider-cookie-key"] },
    // consent without a page: the test accounts grant what the client asks for
    loadExistingGrant: async (ctx: any) => {
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
      grant.addOIDCScope("openid email profile");
      await grant.save();
      return grant;
    },
    renderError: async (ctx: any, out: Record<string, unknown>) => {
      ctx.type = "html";
      ctx.body = `<!doctype html><title>Provider error</title><pre>${JSON.stringify(out)}</pre>`;
    },
  } as any);
  // the provider's own "is this an https deployment" checks: plain http on 127.0.0.1 in the tests
  provider.proxy = false;
  handler = provider.callback();
  return {
    issuer,
    origin,
    tamperTokens(fn) {
      tamper = fn;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A small cookie jar for following the provider's redirects outside a browser. */
export class CookieJar {
  private readonly cookies = new Map<string, Map<string, string>>();
  store(origin: string, res: Response) {
    const jar = this.cookies.get(origin) ?? new Map<string, string>();
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const i = pair!.indexOf("=");
      const name = pair!.slice(0, i).trim();
      const value = pair!.slice(i + 1).trim();
      if (/max-age=0/i.test(line) || /expires=Thu, 01 Jan 1970/i.test(line) || value === "") jar.delete(name);
      else jar.set(name, value);
    }
    this.cookies.set(origin, jar);
  }
  header(origin: string): string {
    return [...(this.cookies.get(origin) ?? new Map()).entries()].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

/**
 * Signs in at the provider as `login`, from its authorisation URL: follows its redirects, posts
 * its login form, and stops at the first redirect that leaves the provider (the app's callback,
 * with code and state). Answers that callback URL. `connectTo` is the address the browser reaches
 * the provider's host name at (as a hosts entry would give it), for a provider named by a test
 * DNS name.
 */
export async function signInAtProvider(authorizationUrl: string, login: string, jar = new CookieJar(), connectTo?: string): Promise<URL> {
  let url = new URL(authorizationUrl);
  const providerOrigin = url.origin;
  let method = "GET";
  let body: string | undefined;
  for (let hop = 0; hop < 20; hop++) {
    const at = new URL(url);
    if (connectTo) at.hostname = connectTo;
    const res = await fetch(at, {
      method,
      redirect: "manual",
      headers: { host: url.host, cookie: jar.header(providerOrigin), ...(body ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
      body,
    });
    jar.store(providerOrigin, res);
    if (res.status >= 300 && res.status < 400) {
      const next = new URL(res.headers.get("location")!, url);
      await res.arrayBuffer();
      if (next.origin !== providerOrigin) return next;
      url = next;
      method = "GET";
      body = undefined;
      continue;
    }
    const html = await res.text();
    if (res.status !== 200) throw new Error(`the provider answered ${res.status}: ${html.slice(0, 500)}`);
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action || !html.includes('name="login"')) throw new Error(`unexpected provider page: ${html.slice(0, 500)}`);
    url = new URL(action.replace(/&amp;/g, "&"), url);
    method = "POST";
    body = new URLSearchParams({ prompt: "login", login, password: "any" }).toString();
  }
  throw new Error("too many redirects at the provider");
}
