/**
 * Delivers an invitation: by mail when outgoing mail is configured, otherwise (or when the
 * relay fails) as a link the inviter copies. A link that was mailed is not returned, so it
 * only ever reaches the invited address.
 */
import type { OrgContext } from "../../http/access";
import { mailBaseFor } from "../branding/service";
import { invitationMail } from "../mail/templates";
import type { InvitationView, InviteResponse } from "./contract";
import { organizationName } from "./service";

const ROLE_WORDS = { owner: "an owner", admin: "an admin", member: "a member", viewer: "a viewer" } as const;

export const MAIL_FAILED_MESSAGE = "The invitation mail could not be sent. The invitation is ready: copy the link and send it yourself.";

export async function deliverInvitation(
  ctx: Pick<OrgContext, "store" | "log" | "mailer" | "actor" | "stripe" | "config">,
  invitation: InvitationView,
  token: string,
  /** base address for the copy-the-link fallback when no --public-url is set */
  requestOrigin: string,
): Promise<InviteResponse> {
  const { actor, mailer } = ctx;
  // as every mail about an organisation: an MSP's organisations are invited to its own hostname
  const link = `${(await mailBaseFor(ctx, actor.orgId)) || requestOrigin}/invite?token=${encodeURIComponent(token)}`;
  if (!mailer) return { invitation, emailed: false, link };
  const organization = (await organizationName(ctx, actor.orgId)) ?? "an organization";
  try {
    await mailer.send(
      invitationMail({ to: invitation.email, inviterName: actor.user.name, organization, role: ROLE_WORDS[invitation.role], link, expiresAt: new Date(invitation.expiresAt) }),
    );
    ctx.log.info("mail_sent", { kind: "invitation", invitationId: invitation.id });
    return { invitation, emailed: true };
  } catch (error) {
    ctx.log.warn("mail_failed", { kind: "invitation", invitationId: invitation.id, error: error instanceof Error ? error.message : String(error) });
    return { invitation, emailed: false, link, message: MAIL_FAILED_MESSAGE };
  }
}
