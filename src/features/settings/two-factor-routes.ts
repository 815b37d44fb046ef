import { Elysia } from "elysia";
import { z } from "zod";
import type { AppDeps } from "../../deps";
import { access } from "../../http/access";
import { clientAddress } from "../../http/client";
import { ConflictError, ForbiddenError, parseInput } from "../../http/errors";
import { auditSecurityEvent } from "../auth/security-audit";
import { auditTokensHeldBack } from "../tokens/service";
import { setTwoFactorRequired, twoFactorRequiredIn } from "./two-factor-policy";

const policySchema = z.object({ required: z.boolean({ error: "required must be true or false" }) });

/** The owner's rule that every member of the organisation signs in with two factors. */
export function twoFactorPolicyRoutes(deps: AppDeps) {
  return new Elysia({ name: "two-factor-policy" })
    .use(access(deps))
    .get("/api/settings/two-factor", async ({ ctx }) => ({ required: await twoFactorRequiredIn(ctx, ctx.actor.orgId) }), { org: "read" })
    .put(
      "/api/settings/two-factor",
      async ({ ctx, body, request }) => {
        const { required } = parseInput(policySchema, body);
        if ((ctx.actor as { token?: unknown }).token) throw new ForbiddenError("API tokens cannot change sign-in rules. Sign in to the app as an owner.");
        if (required && !ctx.actor.user.twoFactorEnabled) throw new ConflictError("Turn on two-factor sign-in for your own account first, then require it for everyone.");
        const before = await twoFactorRequiredIn(ctx, ctx.actor.orgId);
        await setTwoFactorRequired(ctx, ctx.actor.orgId, required, ctx.now());
        const actor = { kind: "user" as const, id: ctx.actor.user.userId, label: ctx.actor.user.email };
        const address = clientAddress(ctx, request);
        await auditSecurityEvent(ctx, { orgId: ctx.actor.orgId, actor, action: "settings.changed", target: "Two-factor sign-in required", address, data: { requireTwoFactor: required } });
        // the tokens of members without two-factor sign-in stop working now: each is named once, here
        if (required && !before) await auditTokensHeldBack(ctx, { orgId: ctx.actor.orgId }, actor, address);
        return { required };
      },
      { org: "security:manage" },
    );
}
