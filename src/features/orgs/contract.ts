import { z } from "zod";
import { ROLES } from "../../db/schema/accounts";
import { emailSchema } from "../auth/contract";

export const roleSchema = z.enum(ROLES, { error: "Role must be owner, admin, member or viewer" });

export const createClientSchema = z.object({
  name: z.string({ error: "Organization name must be at least 2 characters" }).trim().min(2, "Organization name must be at least 2 characters").max(100, "Organization name must be at most 100 characters"),
});
export type CreateClientInput = z.input<typeof createClientSchema>;

export const inviteSchema = z.object({ email: emailSchema, role: roleSchema.default("member") });
export type InviteInput = z.input<typeof inviteSchema>;

export const changeRoleSchema = z.object({ role: roleSchema });

export const invitationTokenSchema = z.object({ token: z.string({ error: "The invitation link is not valid" }).min(10, "The invitation link is not valid").max(200, "The invitation link is not valid") });

export interface MemberView {
  /** membership id */
  id: string;
  userId: string;
  name: string;
  email: string;
  role: z.infer<typeof roleSchema>;
  joinedAt: string;
}
export interface InvitationView {
  id: string;
  email: string;
  role: z.infer<typeof roleSchema>;
  expiresAt: string;
  createdAt: string;
}
export interface MembersResponse {
  members: MemberView[];
  /** pending invitations; only for those who may manage members */
  invitations: InvitationView[];
}

/** POST /api/members/invitations: mailed (no link: it goes only to the invited address), or a link to copy. */
export type InviteResponse =
  | { invitation: InvitationView; emailed: true }
  | { invitation: InvitationView; emailed: false; link: string; message?: string };
