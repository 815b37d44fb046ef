import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { access } from "../../http/access";
import { NotFoundError, parseInput } from "../../http/errors";
import { readCookie } from "../../http/tenant";
import { auditRequest } from "../audit/service";
import { ingestFile } from "../reports/ingest";
import { MAILBOX_TEST_RATE_LIMIT } from "./contract";
import { connectOAuthMailboxSchema, type OAuthConnectStart } from "./oauth-contract";
import { deleteOAuthMailbox, finishOAuthConnect, getOAuthMailbox, listOAuthMailboxes, OAUTH_FLOW_COOKIE, oauthFlowCookie, pollOAuthMailbox, startOAuthConnect } from "./oauth-service";

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
      { org: "settings:manage" },
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
