/**
 * OAuth2 report mailboxes against a local stand-in of Microsoft's and Google's endpoints
 * (tests/support/oauth-mail-standin.ts): connecting one through the authorization code flow
 * with PKCE (through app.handle, the browser's steps followed by hand), polling it (reports
 * ingested and moved to Processed, the rest to Invalid), refreshing its short-lived access
 * token, and a withdrawn consent that asks for a reconnection. Tokens never reach an answer or
 * the log.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { OAUTH_CALLBACK_PATH, OAUTH_SIGNED_OUT_LOCATION, reconnectNeeded } from "../../src/features/mailin/oauth-contract";
import { OAUTH_FLOW_COOKIE, pollAllOAuthMailboxes, pollOAuthMailbox } from "../../src/features/mailin/oauth-service";
import { ingestFile } from "../../src/features/reports/ingest";
import { BASE, cookieFrom, makeTestApp, type TestApp } from "../support/app";
import { addMember, createUser, signedInMember, signIn } from "../support/fixtures";
import { GOOGLE_CLIENT, MS_CLIENT, oauthMailConfig, startOAuthMailStandIn, type OAuthMailStandIn, type StandInProvider } from "../support/oauth-mail-standin";
import { aggregateReportMail } from "../support/smtp";

setDefaultTimeout(30_000);

let standIn: OAuthMailStandIn;
beforeAll(() => {
  standIn = startOAuthMailStandIn();
});
afterAll(() => standIn.close());

async function world(providers?: StandInProvider[]) {
  const t = await makeTestApp({ config: { ...oauthMailConfig(standIn.url, providers), publicUrl: BASE } });
  const org = async (domain: string) => {
    const member = await signedInMember(t.deps.store, "owner");
    await t.deps.store.write((tx) => tx.insert(t.deps.store.t.domains).values({ orgId: member.orgId, name: domain }));
    return member;
  };
  return { t, org };
}

/** What a browser does: start in Settings, follow the provider's consent page back to the callback with the flow cookie. */
async function connect(t: TestApp, cookie: string, provider: StandInProvider, options: { folder?: string; tamperState?: boolean; otherCookie?: string } = {}) {
  const start = await t.json("POST", "/api/settings/oauth-mailboxes/connect", { cookie, body: { provider, folder: options.folder ?? "INBOX" } });
  expect(start.status).toBe(200);
  const flow = cookieFrom(start, OAUTH_FLOW_COOKIE)!;
  expect(flow).toBeTruthy();
  const consent = await fetch(start.body.redirectUrl, { redirect: "manual" });
  expect(consent.status).toBe(302);
  const back = new URL(consent.headers.get("location")!);
  expect(back.pathname).toBe(OAUTH_CALLBACK_PATH);
  if (options.tamperState) back.searchParams.set("state", "forged-state");
  const done = await t.request("GET", back.pathname + back.search, { cookie: `${options.otherCookie ?? cookie}; ${flow}` });
  expect(done.status).toBe(302);
  return { start, location: done.headers.get("location")!, authorizeUrl: new URL(start.body.redirectUrl) };
}

const reports = (t: TestApp, orgId: string) => t.deps.store.db.select().from(t.deps.store.t.aggregateReports).where(eq(t.deps.store.t.aggregateReports.orgId, orgId));
const rows = (t: TestApp, orgId: string) => t.deps.store.db.select().from(t.deps.store.t.oauthMailboxes).where(eq(t.deps.store.t.oauthMailboxes.orgId, orgId));
const notAReport = "From: someone@spam.test\r\nTo: dmarc@example.com\r\nSubject: hello\r\n\r\nNot a report.\r\n";

function expectNoTokens(t: TestApp, ...answers: unknown[]) {
  const text = JSON.stringify(answers) + t.logs.join("\n");
  for (const token of standIn.issuedTokens) expect(text).not.toContain(token);
  for (const secret of [MS_CLIENT.secret, GOOGLE_CLIENT.secret]) expect(text).not.toContain(secret);
}

describe.each([
  ["microsoft", "Microsoft 365", "dmarc@contoso-ms.example"],
  ["google", "Google Workspace", "dmarc@fabrikam-g.example"],
] as const)("%s report mailbox", (provider, label, email) => {
  test("connects through the consent page (PKCE, state), stored with its tokens encrypted", async () => {
    const { t, org } = await world();
    const a = await org("example.com");
    standIn.consentAs(provider, email);
    const { start, location, authorizeUrl } = await connect(t, a.cookie, provider);
    expect(location).toBe("/app/settings?oauth_mailbox=connected#report-mail");
    expect(authorizeUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorizeUrl.searchParams.get("redirect_uri")).toBe(`${BASE}${OAUTH_CALLBACK_PATH}`);
    // the code went to the token endpoint with the PKCE verifier
    const exchange = standIn.grants("authorization_code", provider).at(-1)!;
    expect(exchange.params.code_verifier).toBeTruthy();

    const list = await t.json("GET", "/api/settings/oauth-mailboxes", { cookie: a.cookie });
    expect(list.body.providers.find((p: any) => p.provider === provider)).toEqual({ provider, label, configured: true });
    expect(list.body.mailboxes).toHaveLength(1);
    expect(list.body.mailboxes[0]).toMatchObject({ provider, providerLabel: label, email, folder: "INBOX", status: "active", lastError: null });
    const [row] = await rows(t, a.orgId);
    expect(row!.refreshTokenEncrypted.startsWith("v1.")).toBe(true);
    expectNoTokens(t, start.body, list.body, row);

    // connecting the same address again reconnects it, a second address is a second mailbox
    await connect(t, a.cookie, provider);
    standIn.consentAs(provider, `second-${email}`);
    await connect(t, a.cookie, provider, { folder: "DMARC" });
    expect((await rows(t, a.orgId)).map((r) => r.email).sort()).toEqual([email, `second-${email}`]);
    t.close();
  });

  test("a forged state, another person's session or a declined consent connects nothing", async () => {
    const { t, org } = await world();
    const a = await org("example.com");
    standIn.consentAs(provider, email);
    expect((await connect(t, a.cookie, provider, { tamperState: true })).location).toBe("/app/settings?oauth_mailbox=expired#report-mail");
    // an admin of the same organization finishing the owner's flow
    const adminId = await createUser(t.deps.store);
    await addMember(t.deps.store, a.orgId, adminId, "admin");
    const adminCookie = await signIn(t.deps.store, adminId, a.orgId);
    expect((await connect(t, a.cookie, provider, { otherCookie: adminCookie })).location).toBe("/app/settings?oauth_mailbox=expired#report-mail");
    standIn.declineNext();
    expect((await connect(t, a.cookie, provider)).location).toBe("/app/settings?oauth_mailbox=denied#report-mail");
    expect(await rows(t, a.orgId)).toHaveLength(0);
    t.close();
  });

  test("a poll ingests unread report mail into Processed and the rest into Invalid", async () => {
    const { t, org } = await world();
    const a = await org("example.com");
    const address = `poll-${email}`;
    standIn.consentAs(provider, address);
    await connect(t, a.cookie, provider);
    const [row] = await rows(t, a.orgId);
    standIn.deliver(provider, address, aggregateReportMail({ domain: "example.com", reportId: `${provider}-1` }));
    standIn.deliver(provider, address, aggregateReportMail({ domain: "example.com", reportId: `${provider}-2`, orgName: "outlook.com" }));
    standIn.deliver(provider, address, notAReport);
    const inbox = provider === "microsoft" ? "Inbox" : "INBOX";

    const poll = await t.json("POST", `/api/settings/oauth-mailboxes/${row!.id}/poll`, { cookie: a.cookie });
    expect(poll.status).toBe(200);
    expect(poll.body).toMatchObject({ ok: true, outcome: { processed: 2, invalid: 1, retried: 0 } });
    expect(poll.body.mailbox).toMatchObject({ lastError: null, lastPollMessages: 3 });
    expect((await reports(t, a.orgId)).map((r) => r.reportId).sort()).toEqual([`${provider}-1`, `${provider}-2`]);
    // recorded as fetched through this provider's mailbox, not as IMAP, and so in the reports API
    const source = provider === "microsoft" ? "microsoft" : "gmail";
    expect((await reports(t, a.orgId)).map((r) => r.source)).toEqual([source, source]);
    expect((await t.json("GET", "/api/dmarc-reports", { cookie: a.cookie })).body.map((r: any) => r.source)).toEqual([source, source]);
    expect(standIn.unread(provider, address, inbox)).toBe(0);
    expect(standIn.count(provider, address, "Processed")).toBe(2);
    expect(standIn.count(provider, address, "Invalid")).toBe(1);

    // nothing new: nothing stored twice
    expect(await pollOAuthMailbox(t.deps, a.orgId, row!.id, ingestFile)).toEqual({ ok: true, outcome: { processed: 0, invalid: 0, retried: 0 } });
    expect(await reports(t, a.orgId)).toHaveLength(2);

    // a message whose ingestion fails stays unread for the next poll
    standIn.deliver(provider, address, aggregateReportMail({ domain: "example.com", reportId: `${provider}-3` }));
    expect(await pollOAuthMailbox(t.deps, a.orgId, row!.id, async () => Promise.reject(new Error("database is locked")))).toEqual({ ok: true, outcome: { processed: 0, invalid: 0, retried: 1 } });
    expect(standIn.unread(provider, address, inbox)).toBe(1);
    await pollAllOAuthMailboxes(t.deps, ingestFile);
    expect((await reports(t, a.orgId)).map((r) => r.reportId)).toContain(`${provider}-3`);
    expectNoTokens(t, poll.body);
    t.close();
  });

  test("short-lived access tokens are refreshed before they expire and after a 401", async () => {
    const { t, org } = await world();
    const a = await org("example.com");
    const address = `refresh-${email}`;
    standIn.consentAs(provider, address);
    standIn.accessTokenSeconds = 30; // under the product's one-minute margin: refreshed before every poll
    try {
      await connect(t, a.cookie, provider);
      const [row] = await rows(t, a.orgId);
      const refreshesBefore = standIn.grants("refresh_token", provider).length;
      standIn.deliver(provider, address, aggregateReportMail({ domain: "example.com", reportId: `${provider}-refresh-1` }));
      expect(await pollOAuthMailbox(t.deps, a.orgId, row!.id, ingestFile)).toMatchObject({ ok: true, outcome: { processed: 1 } });
      expect(standIn.grants("refresh_token", provider).length).toBe(refreshesBefore + 1);
      const [after] = await rows(t, a.orgId);
      expect(after!.accessTokenEncrypted).not.toBe(row!.accessTokenEncrypted);

      // a long-lived token the provider stops accepting early: the 401 brings one refresh and a retry
      standIn.accessTokenSeconds = 3600;
      await pollOAuthMailbox(t.deps, a.orgId, row!.id, ingestFile); // stores a long-lived token
      const refreshes = standIn.grants("refresh_token", provider).length;
      expect(await pollOAuthMailbox(t.deps, a.orgId, row!.id, ingestFile)).toMatchObject({ ok: true });
      expect(standIn.grants("refresh_token", provider).length).toBe(refreshes); // still valid: no refresh
      standIn.expireAccessTokens();
      standIn.deliver(provider, address, aggregateReportMail({ domain: "example.com", reportId: `${provider}-refresh-2` }));
      expect(await pollOAuthMailbox(t.deps, a.orgId, row!.id, ingestFile)).toMatchObject({ ok: true, outcome: { processed: 1 } });
      expect(standIn.grants("refresh_token", provider).length).toBe(refreshes + 1);
      expect((await reports(t, a.orgId)).map((r) => r.reportId).sort()).toEqual([`${provider}-refresh-1`, `${provider}-refresh-2`]);
      expectNoTokens(t);
    } finally {
      standIn.accessTokenSeconds = 3600;
    }
    t.close();
  });

  test("withdrawn consent marks the mailbox for reconnection, says so in Settings, alerts once, and a reconnection restores it", async () => {
    const { t, org } = await world();
    const a = await org("example.com");
    const address = `revoked-${email}`;
    standIn.consentAs(provider, address);
    await connect(t, a.cookie, provider);
    const [row] = await rows(t, a.orgId);
    standIn.revoke(provider, address);
    const message = reconnectNeeded(label, address);

    const poll = await t.json("POST", `/api/settings/oauth-mailboxes/${row!.id}/poll`, { cookie: a.cookie });
    expect(poll.body).toMatchObject({ ok: false, error: message });
    const list = (await t.json("GET", "/api/settings/oauth-mailboxes", { cookie: a.cookie })).body;
    expect(list.mailboxes[0]).toMatchObject({ status: "reconnect", lastError: message });
    const events = await t.deps.store.db.select().from(t.deps.store.t.orgEvents).where(and(eq(t.deps.store.t.orgEvents.orgId, a.orgId), eq(t.deps.store.t.orgEvents.type, "account.mailbox_failing")));
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]!.data!)).toMatchObject({ host: label, username: address, error: message });
    // the scheduler leaves it alone until a person reconnects it
    const calls = standIn.calls.length;
    await pollAllOAuthMailboxes(t.deps, ingestFile);
    expect(standIn.calls.length).toBe(calls);

    await connect(t, a.cookie, provider);
    const [back] = await rows(t, a.orgId);
    expect(back).toMatchObject({ id: row!.id, status: "active", lastError: null });
    expect(await pollOAuthMailbox(t.deps, a.orgId, row!.id, ingestFile)).toMatchObject({ ok: true });
    expectNoTokens(t, poll.body, list);
    t.close();
  });
});

describe("OAuth mailboxes, whatever the provider", () => {
  test("a browser whose session ended during the consent is sent to sign in, then back to Settings; nothing is connected", async () => {
    const { t, org } = await world();
    const a = await org("example.com");
    standIn.consentAs("google", "late@fabrikam-g.example");
    const start = await t.json("POST", "/api/settings/oauth-mailboxes/connect", { cookie: a.cookie, body: { provider: "google", folder: "INBOX" } });
    const flow = cookieFrom(start, OAUTH_FLOW_COOKIE)!;
    const back = new URL((await fetch(start.body.redirectUrl, { redirect: "manual" })).headers.get("location")!);
    expect((await t.json("POST", "/api/auth/logout", { cookie: a.cookie })).status).toBe(200);
    const exchanges = standIn.grants("authorization_code", "google").length;
    const page = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };

    // the ended session's cookie, and no session cookie at all: both go to the sign-in page
    for (const cookie of [`${a.cookie}; ${flow}`, flow]) {
      const res = await t.request("GET", back.pathname + back.search, { cookie, headers: page });
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toBe(OAUTH_SIGNED_OUT_LOCATION);
      expect(res.headers.get("cache-control")).toBe("no-store");
      // the flow is dropped: its cookie is cleared
      expect(res.headers.getSetCookie().some((c) => c.startsWith(`${OAUTH_FLOW_COOKIE}=;`) && c.includes("Max-Age=0"))).toBe(true);
    }
    const login = new URL(OAUTH_SIGNED_OUT_LOCATION, BASE);
    expect(login.pathname).toBe("/login");
    expect(login.searchParams.get("next")).toBe("/app/settings?oauth_mailbox=signed_out#report-mail");
    // the provider's code was never exchanged, no mailbox was stored
    expect(standIn.grants("authorization_code", "google").length).toBe(exchanges);
    expect(await rows(t, a.orgId)).toHaveLength(0);
    // an API client (no page load) still gets the JSON 401
    const api = await t.json("GET", back.pathname + back.search, { cookie: flow });
    expect(api.status).toBe(401);
    expect(api.body.error.code).toBe("unauthorized");
    t.close();
  });

  test("a provider without a configured client is shown as such and cannot be started", async () => {
    const { t, org } = await world(["google"]);
    const a = await org("example.com");
    const list = await t.json("GET", "/api/settings/oauth-mailboxes", { cookie: a.cookie });
    expect(list.body.providers).toEqual([
      { provider: "microsoft", label: "Microsoft 365", configured: false },
      { provider: "google", label: "Google Workspace", configured: true },
    ]);
    const start = await t.json("POST", "/api/settings/oauth-mailboxes/connect", { cookie: a.cookie, body: { provider: "microsoft" } });
    expect(start.status).toBe(409);
    expect(start.body.error.message).toContain("not set up for Microsoft 365");
    t.close();
  });

  test("removing a mailbox removes only that one, and only in its own organization", async () => {
    const { t, org } = await world();
    const a = await org("a.example");
    const b = await org("b.example");
    standIn.consentAs("google", "one@a.example");
    await connect(t, a.cookie, "google");
    standIn.consentAs("microsoft", "two@a.example");
    await connect(t, a.cookie, "microsoft");
    const [first] = (await rows(t, a.orgId)).filter((r) => r.email === "one@a.example");
    expect((await t.json("DELETE", `/api/settings/oauth-mailboxes/${first!.id}`, { cookie: b.cookie })).status).toBe(404);
    expect((await t.json("POST", `/api/settings/oauth-mailboxes/${first!.id}/poll`, { cookie: b.cookie })).status).toBe(404);
    expect((await t.json("DELETE", `/api/settings/oauth-mailboxes/${first!.id}`, { cookie: a.cookie })).status).toBe(200);
    expect((await rows(t, a.orgId)).map((r) => r.email)).toEqual(["two@a.example"]);
    t.close();
  });

  test("a folder that does not exist is said as it is", async () => {
    const { t, org } = await world();
    const a = await org("example.com");
    standIn.consentAs("microsoft", "nofolder@contoso.example");
    await connect(t, a.cookie, "microsoft", { folder: "DMARC reports" });
    const [row] = await rows(t, a.orgId);
    expect(await pollOAuthMailbox(t.deps, a.orgId, row!.id, ingestFile)).toEqual({ ok: false, error: 'The folder "DMARC reports" does not exist in this mailbox.' });
    expect((await rows(t, a.orgId))[0]!.status).toBe("active");
    t.close();
  });
});
