import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { access } from "../../http/access";
import { parseInput, ValidationError } from "../../http/errors";
import { alertThresholdsSchema } from "../../lib/alerts/report-thresholds";
import { channelDeliveries, createChannel, deleteChannel, listChannels, queueTestDelivery, updateChannel } from "./channels";
import { createChannelSchema, readEventsSchema, updateChannelSchema } from "./contract";
import { deliverOne } from "./delivery";
import { listEvents, markAllRead, markRead } from "./feed";
import { getAlertLimit, getThresholds, saveAlertLimit, saveThresholds } from "./thresholds";
import { alertLimitSchema } from "../../lib/alerts/volume";
import { auditRequest } from "../audit/service";

/** "Send a test" at most this often per organisation. */
const TEST_RATE_LIMIT = { limit: 10, windowSeconds: 600 };

function pageOf(query: Record<string, string | undefined>): number {
  const raw = query.page ?? "1";
  if (!/^\d{1,6}$/.test(raw) || Number(raw) < 1) throw new ValidationError("page must be a whole number from 1", { page: "page must be a whole number from 1" });
  return Number(raw);
}

/** Alert channels (admins change, everyone reads), their delivery log, the events feed, the thresholds and the volume limit. */
export function alertsRoutes(deps: AppDeps) {
  return new Elysia({ name: "alerts" })
    .use(access(deps))
    .get("/api/alerts/channels", async ({ ctx }) => ({ channels: await listChannels(ctx) }), { org: "read" })
    .post(
      "/api/alerts/channels",
      async ({ ctx, body, set }) => {
        const channel = await createChannel(ctx, parseInput(createChannelSchema, body));
        set.status = 201;
        return channel;
      },
      { org: "settings:manage" },
    )
    .patch("/api/alerts/channels/:id", ({ ctx, params, body }) => updateChannel(ctx, params.id, parseInput(updateChannelSchema, body)), { org: "settings:manage" })
    .delete(
      "/api/alerts/channels/:id",
      async ({ ctx, params }) => {
        await deleteChannel(ctx, params.id);
        return { success: true };
      },
      { org: "settings:manage" },
    )
    .post(
      "/api/alerts/channels/:id/test",
      async ({ ctx, params }) => {
        await deps.limiter.hit("alert-test", ctx.actor.orgId, TEST_RATE_LIMIT.limit, TEST_RATE_LIMIT.windowSeconds);
        const deliveryId = await queueTestDelivery(ctx, params.id);
        // sent now, outside any transaction; a failure stays in the log and is retried like any delivery
        const result = await deliverOne(ctx, deliveryId);
        return { deliveryId, ok: result?.ok ?? false, statusCode: result?.statusCode ?? null, error: result?.error ?? null };
      },
      { org: "settings:manage" },
    )
    .get("/api/alerts/channels/:id/deliveries", async ({ ctx, params }) => ({ deliveries: await channelDeliveries(ctx, params.id) }), { org: "read" })
    .get("/api/alerts/thresholds", ({ ctx }) => getThresholds(ctx), { org: "read" })
    .put("/api/alerts/thresholds", ({ ctx, body }) => saveThresholds(ctx, parseInput(alertThresholdsSchema, body)), { org: "settings:manage" })
    .get("/api/alerts/limit", ({ ctx }) => getAlertLimit(ctx), { org: "read" })
    .put(
      "/api/alerts/limit",
      async ({ ctx, body, request }) => {
        const { view, before } = await saveAlertLimit(ctx, parseInput(alertLimitSchema, body).perWindow);
        if (before !== view.perWindow) await auditRequest(ctx, request, "settings.changed", { data: { alertsPerWindow: view.perWindow } });
        return view;
      },
      { org: "settings:manage" },
    )
    .get("/api/events", ({ ctx, query }) => listEvents(ctx, pageOf(query as Record<string, string | undefined>)), { org: "read" })
    .post("/api/events/read", ({ ctx, body }) => markRead(ctx, parseInput(readEventsSchema, body).ids), { org: "read" })
    .post("/api/events/read-all", ({ ctx }) => markAllRead(ctx), { org: "read" });
}
