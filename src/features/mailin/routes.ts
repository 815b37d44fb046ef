import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { NotFoundError, parseInput } from "../../http/errors";
import { requireActor } from "../../http/tenant";
import { MAILBOX_TEST_RATE_LIMIT, mailboxInputSchema } from "./contract";
import { ingestFile } from "../reports/ingest";
import { deleteMailbox, getMailbox, pollMailbox, reportAddress, saveMailbox, testMailbox } from "./service";

/** The organisation's report address (SMTP receiver) and its IMAP report mailbox. */
export function mailinRoutes(deps: AppDeps) {
  const db = deps.store.db;
  return new Elysia({ name: "mailin" })
    .get("/api/settings/report-address", ({ request }) => {
      const actor = requireActor(db, request, "read");
      return reportAddress(deps, actor.orgId);
    })
    .get("/api/settings/mailbox", ({ request }) => {
      const actor = requireActor(db, request, "read");
      return { mailbox: getMailbox(deps, actor.orgId) };
    })
    .put("/api/settings/mailbox", ({ request, body }) => {
      const actor = requireActor(db, request, "settings:manage");
      return { mailbox: saveMailbox(deps, actor.orgId, parseInput(mailboxInputSchema, body)) };
    })
    .delete("/api/settings/mailbox", ({ request }) => {
      const actor = requireActor(db, request, "settings:manage");
      deleteMailbox(deps, actor.orgId);
      return { success: true };
    })
    .post("/api/settings/mailbox/test", ({ request, body }) => {
      const actor = requireActor(db, request, "settings:manage");
      deps.limiter.hit("mailbox-test", actor.orgId, MAILBOX_TEST_RATE_LIMIT.limit, MAILBOX_TEST_RATE_LIMIT.windowSeconds);
      const submitted = body && typeof body === "object" && Object.keys(body).length ? parseInput(mailboxInputSchema, body) : null;
      return testMailbox(deps, actor.orgId, submitted);
    })
    .post("/api/settings/mailbox/poll", async ({ request }) => {
      const actor = requireActor(db, request, "settings:manage");
      deps.limiter.hit("mailbox-poll", actor.orgId, MAILBOX_TEST_RATE_LIMIT.limit, MAILBOX_TEST_RATE_LIMIT.windowSeconds);
      if (!getMailbox(deps, actor.orgId)) throw new NotFoundError("No report mailbox is configured for this organisation.");
      const result = await pollMailbox(deps, actor.orgId, ingestFile);
      return { ...result, mailbox: getMailbox(deps, actor.orgId) };
    });
}
