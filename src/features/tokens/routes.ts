import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { access } from "../../http/access";
import { clientAddress } from "../../http/client";
import { parseInput } from "../../http/errors";
import { auditSecurityEvent } from "../auth/security-audit";
import { createTokenSchema } from "./contract";
import { createToken, listTokens, revokeToken } from "./service";

/** API tokens of the current organisation: admins and owners, signed in (a token cannot manage tokens). */
export function tokenRoutes(deps: AppDeps) {
  return new Elysia({ name: "tokens" })
    .use(access(deps))
    .get("/api/tokens", ({ ctx }) => listTokens(ctx), { org: "tokens:manage" })
    .post(
      "/api/tokens",
      async ({ ctx, body, request, set }) => {
        const input = parseInput(createTokenSchema, body);
        const created = await createToken(ctx, input);
        await auditSecurityEvent(ctx, {
          orgId: ctx.actor.orgId,
          actor: { kind: "user", id: ctx.actor.user.userId, label: ctx.actor.user.email },
          action: "token.created",
          target: created.name,
          address: clientAddress(ctx, request),
          data: { tokenId: created.id, tokenName: created.name, tokenRole: created.role },
        });
        set.status = 201;
        set.headers["cache-control"] = "no-store";
        return { id: created.id, token: created.token };
      },
      { org: "tokens:manage" },
    )
    .delete(
      "/api/tokens/:id",
      async ({ ctx, params, request }) => {
        const { name } = await revokeToken(ctx, params.id);
        await auditSecurityEvent(ctx, {
          orgId: ctx.actor.orgId,
          actor: { kind: "user", id: ctx.actor.user.userId, label: ctx.actor.user.email },
          action: "token.revoked",
          target: name,
          address: clientAddress(ctx, request),
          data: { tokenId: params.id, tokenName: name },
        });
        return { success: true };
      },
      { org: "tokens:manage" },
    );
}
