import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { access } from "../../http/access";
import { NotFoundError, parseInput } from "../../http/errors";
import { MAILBOX_TEST_RATE_LIMIT, mailboxInputSchema } from "./contract";
import { ingestFile } from "../reports/ingest";
import { deleteMailbox, getMailbox, pollMailbox, reportAddress, saveMailbox, testMailbox } from "./service";
import { auditRequest } from "../audit/service";
import { oauthMailboxRoutes } from "./oauth-routes";

/** The organisation's report address (SMTP receiver) and its IMAP report mailbox. */
export function mailinRoutes(deps: AppDeps) {
  return new Elysia({ name: "mailin" })
    .use(access(deps))
    .use(oauthMailboxRoutes(deps))
    .get("/api/settings/report-address", ({ ctx }) => reportAddress(ctx), { org: "read" })
    .get("/api/settings/mailbox", async ({ ctx }) => ({ mailbox: await getMailbox(ctx) }), { org: "read" })
    .put(
      "/api/settings/mailbox",
      async ({ ctx, body, request }) => {
        const mailbox = await saveMailbox(ctx, parseInput(mailboxInputSchema, body));
        // host, port, user and folder; the password never
        await auditRequest(ctx, request, "mailbox.changed", { target: `${mailbox.username}@${mailbox.host}`, data: { host: mailbox.host, port: mailbox.port, folder: mailbox.folder } });
        return { mailbox };
      },
      { org: "settings:manage" },
    )
    .delete(
      "/api/settings/mailbox",
      async ({ ctx, request }) => {
        await deleteMailbox(ctx);
        await auditRequest(ctx, request, "mailbox.removed");
        return { success: true };
      },
      { org: "settings:manage" },
    )
    .post(
      "/api/settings/mailbox/test",
      async ({ ctx, body }) => {
        await deps.limiter.hit("mailbox-test", ctx.actor.orgId, MAILBOX_TEST_RATE_LIMIT.limit, MAILBOX_TEST_RATE_LIMIT.windowSeconds);
        const submitted = body && typeof body === "object" && Object.keys(body).length ? parseInput(mailboxInputSchema, body) : null;
        return testMailbox(ctx, submitted);
      },
      { org: "settings:manage" },
    )
    .post(
      "/api/settings/mailbox/poll",
      async ({ ctx }) => {
        await deps.limiter.hit("mailbox-poll", ctx.actor.orgId, MAILBOX_TEST_RATE_LIMIT.limit, MAILBOX_TEST_RATE_LIMIT.windowSeconds);
        if (!(await getMailbox(ctx))) throw new NotFoundError("No report mailbox is configured for this organization.");
        const result = await pollMailbox(ctx, ctx.actor.orgId, ingestFile);
        return { ...result, mailbox: await getMailbox(ctx) };
      },
      { org: "settings:manage" },
    );
}
