import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { access } from "../../http/access";
import { clientAddress } from "../../http/client";
import { parseInput } from "../../http/errors";
import { meOf } from "../auth/service";
import { changeRoleSchema, createClientSchema, invitationTokenSchema, inviteSchema } from "./contract";
import { organizationsOf } from "./directory";
import { deliverInvitation } from "./invitation-mail";
import { acceptInvitation, changeRole, describeInvitation, invite, listMembers, removeMember, revokeInvitation } from "./members";
import { createClient, switchOrganization } from "./service";
import { auditRequest, recordAudit } from "../audit/service";

/** Organisations (switch, MSP clients), members and invitations. */
export function orgsRoutes(deps: AppDeps) {
  return new Elysia({ name: "orgs" })
    .use(access(deps))
    .get(
      "/api/orgs",
      async ({ ctx }) => (await organizationsOf(ctx, ctx.user.userId)).map((o) => ({ ...o, current: o.id === ctx.user.currentOrgId })),
      { signedIn: true },
    )
    .post(
      "/api/orgs/clients",
      async ({ ctx, body, set, request }) => {
        const { name } = parseInput(createClientSchema, body);
        // the client and the managing organisation's audit record commit together
        const client = await ctx.store.write(async () => {
          const created = await createClient(ctx, name);
          await auditRequest(ctx, request, "client.created", { target: created.name, data: { clientId: created.id } });
          return created;
        });
        set.status = 201;
        return client;
      },
      { org: "clients:manage" },
    )
    .post(
      "/api/orgs/:id/switch",
      async ({ ctx, params }) => {
        await switchOrganization(ctx, params.id);
        return meOf(ctx, { ...ctx.user, currentOrgId: params.id });
      },
      { signedIn: true },
    )
    .get("/api/members", ({ ctx }) => listMembers(ctx), { org: "read" })
    .post(
      "/api/members/invitations",
      async ({ ctx, request, body, set }) => {
        const input = parseInput(inviteSchema, body);
        const { invitation, token } = await invite(ctx, input.email, input.role);
        await auditRequest(ctx, request, "member.invited", { target: invitation.email, data: { role: invitation.role } });
        const origin = ctx.config.publicUrl ? ctx.config.publicUrl.replace(/\/+$/, "") : new URL(request.url).origin;
        set.status = 201;
        set.headers["cache-control"] = "no-store";
        return deliverInvitation(ctx, invitation, token, origin);
      },
      { org: "members:manage" },
    )
    .delete(
      "/api/members/invitations/:id",
      async ({ ctx, params, request }) => {
        await revokeInvitation(ctx, params.id);
        await auditRequest(ctx, request, "member.invitation_revoked", { data: { invitationId: params.id } });
        return { success: true };
      },
      { org: "members:manage" },
    )
    .patch(
      "/api/members/:id",
      async ({ ctx, params, body, request }) => {
        const { role } = parseInput(changeRoleSchema, body);
        const member = await changeRole(ctx, params.id, role);
        await auditRequest(ctx, request, "member.role_changed", { target: member.email, data: { role: member.role } });
        return member;
      },
      { org: "members:manage" },
    )
    .delete(
      "/api/members/:id",
      async ({ ctx, params, request }) => {
        const removed = (await listMembers(ctx)).members.find((m) => m.id === params.id);
        await removeMember(ctx, params.id);
        await auditRequest(ctx, request, "member.removed", { target: removed?.email ?? null, data: { membershipId: params.id, role: removed?.role ?? null } });
        return { success: true };
      },
      // anyone may leave; removing someone else needs members:manage (checked by the service)
      { org: "read" },
    )
    .post(
      "/api/invitations/lookup",
      async ({ ctx, request, body }) => {
        await ctx.limiter.hit("invitation-lookup", clientAddress(ctx, request), 30, 600);
        const { token } = parseInput(invitationTokenSchema, body);
        return describeInvitation(ctx, token);
      },
      { public: true },
    )
    .post(
      "/api/invitations/accept",
      async ({ ctx, request, body }) => {
        await ctx.limiter.hit("invitation-accept", clientAddress(ctx, request), 30, 600);
        const { token } = parseInput(invitationTokenSchema, body);
        const orgId = await acceptInvitation(ctx, token);
        await recordAudit(ctx, { orgId, actor: { kind: "user", id: ctx.user.userId, label: ctx.user.email }, action: "member.joined", target: ctx.user.email, address: clientAddress(ctx, request) });
        return meOf(ctx, { ...ctx.user, currentOrgId: orgId });
      },
      { signedIn: true },
    );
}
