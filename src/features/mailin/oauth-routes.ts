import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { access } from "../../http/access";
import { NotFoundError, parseInput, ServiceError } from "../../http/errors";
import { currentUser, readCookie } from "../../http/tenant";
import { auditRequest } from "../audit/service";
import { ingestFile } from "../reports/ingest";
import { MAILBOX_TEST_RATE_LIMIT } from "./contract";
import { connectOAuthMailboxSchema, OAUTH_SIGNED_OUT_LOCATION, type OAuthConnectStart } from "./oauth-contract";
import { deleteOAuthMailbox, finishOAuthConnect, getOAuthMailbox, listOAuthMailboxes, OAUTH_FLOW_COOKIE, oauthFlowCookie, pollOAuthMailbox, startOAuthConnect } from "./oauth-service";

/**
 * The provider's return reaching a browser that is no longer signed in (the session ended
 * during the consent): it goes to the sign-in page and from there back to Settings, and the
 * flow cookie is dropped, so nothing is connected without a verified session. Thrown before the
 * route's access check, only for a page load (Accept: text/html) with no session and no API
 * token; any other caller still gets the 401.
 */
class SignedOutReturn extends ServiceError {
  constructor(cookie: string) {
    super(302, "signed_out", "Please sign in to continue.", undefined, { location: OAUTH_SIGNED_OUT_LOCATION, "cache-control": "no-store", "set-cookie": cookie });
  }
}

/**
 * OAuth2 report mailboxes in Settings: the list (any member), connecting one through the
 * provider's consent page, the provider's return, "Check now" and removal (owners and admins).
 */
export function oauthMailboxRoutes(deps: AppDeps) {
  return new Elysia({ name: "mailin-oauth" })
    .use(access(deps))
    .get("/api/settings/oauth-mailboxes", ({ ctx }) => listOAuthMailboxes(ctx), { org: "read" })
    .post(
      "/api/settings/oauth-mailboxes/connect",
      ({ ctx, body, request, set }) => {
        const { redirectUrl, cookie } = startOAuthConnect(ctx, request, parseInput(connectOAuthMailboxSchema, body ?? {}));
        set.headers["cache-control"] = "no-store";
        set.headers["set-cookie"] = cookie;
        return { redirectUrl } satisfies OAuthConnectStart;
      },
      { org: "settings:manage" },
    )
    .get(
      "/api/settings/oauth-mailboxes/callback",
      async ({ ctx, query, request }) => {
        const done = await finishOAuthConnect(ctx, query as Record<string, string | undefined>, readCookie(request, OAUTH_FLOW_COOKIE));
        if (done.mailbox) {
          // the address, provider and folder; tokens never
          await auditRequest(ctx, request, "mailbox.changed", { target: done.mailbox.email, data: { provider: done.mailbox.provider, folder: done.mailbox.folder } });
        }
        const headers = new Headers({ location: `/app/settings?oauth_mailbox=${done.result}#report-mail`, "cache-control": "no-store" });
        headers.append("set-cookie", oauthFlowCookie(ctx.config, null));
        return new Response(null, { status: 302, headers });
      },
      {
        org: "settings:manage",
        // runs before the access check (which would answer a signed-out browser with JSON)
        transform: async ({ request }) => {
          if (request.headers.has("authorization") || !request.headers.get("accept")?.includes("text/html")) return;
          if (!(await currentUser(deps, request))) throw new SignedOutReturn(oauthFlowCookie(deps.config, null));
        },
      },
    )
    .post(
      "/api/settings/oauth-mailboxes/:id/poll",
      async ({ ctx, params }) => {
        await deps.limiter.hit("mailbox-poll", ctx.actor.orgId, MAILBOX_TEST_RATE_LIMIT.limit, MAILBOX_TEST_RATE_LIMIT.windowSeconds);
        if (!(await getOAuthMailbox(ctx, params.id))) throw new NotFoundError("No such mailbox in this organization.");
        const result = await pollOAuthMailbox(ctx, ctx.actor.orgId, params.id, ingestFile);
        return { ...result, mailbox: await getOAuthMailbox(ctx, params.id) };
      },
      { org: "settings:manage" },
    )
    .delete(
      "/api/settings/oauth-mailboxes/:id",
      async ({ ctx, params, request }) => {
        const removed = await deleteOAuthMailbox(ctx, params.id);
        await auditRequest(ctx, request, "mailbox.removed", { target: removed.email, data: { provider: removed.provider } });
        return { success: true };
      },
      { org: "settings:manage" },
    );
}
