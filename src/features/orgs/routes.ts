import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { clientAddress } from "../../http/client";
import { parseInput, UnauthorizedError } from "../../http/errors";
import { currentUser, requireActor } from "../../http/tenant";
import { meOf } from "../auth/service";
import { changeRoleSchema, createClientSchema, invitationTokenSchema, inviteSchema } from "./contract";
import { organizationsOf } from "./directory";
import { deliverInvitation } from "./invitation-mail";
import { acceptInvitation, changeRole, describeInvitation, invite, listMembers, removeMember, revokeInvitation } from "./members";
import { createClient, switchOrganization } from "./service";

/** Organisations (switch, MSP clients), members and invitations. */
export function orgsRoutes(deps: AppDeps) {
  const db = deps.store.db;
  const signedIn = (request: Request) => {
    const user = currentUser(db, request);
    if (!user) throw new UnauthorizedError();
    return user;
  };
  return new Elysia({ name: "orgs" })
    .get("/api/orgs", ({ request }) => {
      const user = signedIn(request);
      return organizationsOf(db, user.userId).map((o) => ({ ...o, current: o.id === user.currentOrgId }));
    })
    .post("/api/orgs/clients", ({ request, body, set }) => {
      const actor = requireActor(db, request, "clients:manage");
      const { name } = parseInput(createClientSchema, body);
      set.status = 201;
      return createClient(db, actor, name);
    })
    .post("/api/orgs/:id/switch", ({ request, params }) => {
      const user = signedIn(request);
      switchOrganization(db, user, params.id);
      return meOf(db, { ...user, currentOrgId: params.id });
    })
    .get("/api/members", ({ request }) => listMembers(db, requireActor(db, request, "read"), deps.now()))
    .post("/api/members/invitations", async ({ request, body, set }) => {
      const actor = requireActor(db, request, "members:manage");
      const input = parseInput(inviteSchema, body);
      const { invitation, token } = invite(db, actor, input.email, input.role, deps.now());
      const origin = deps.config.publicUrl ? deps.config.publicUrl.replace(/\/+$/, "") : new URL(request.url).origin;
      set.status = 201;
      set.headers["cache-control"] = "no-store";
      return deliverInvitation(deps, actor, invitation, token, origin);
    })
    .delete("/api/members/invitations/:id", ({ request, params }) => {
      revokeInvitation(db, requireActor(db, request, "members:manage"), params.id);
      return { success: true };
    })
    .patch("/api/members/:id", ({ request, params, body }) => {
      const actor = requireActor(db, request, "members:manage");
      const { role } = parseInput(changeRoleSchema, body);
      return changeRole(db, actor, params.id, role);
    })
    .delete("/api/members/:id", ({ request, params }) => {
      removeMember(db, requireActor(db, request, "read"), params.id);
      return { success: true };
    })
    .post("/api/invitations/lookup", ({ request, body }) => {
      deps.limiter.hit("invitation-lookup", clientAddress(deps, request), 30, 600);
      const { token } = parseInput(invitationTokenSchema, body);
      return describeInvitation(db, token, deps.now());
    })
    .post("/api/invitations/accept", ({ request, body }) => {
      const user = signedIn(request);
      deps.limiter.hit("invitation-accept", clientAddress(deps, request), 30, 600);
      const { token } = parseInput(invitationTokenSchema, body);
      const orgId = acceptInvitation(db, user, token, deps.now());
      return meOf(db, { ...user, currentOrgId: orgId });
    });
}
