/**
 * The first proof of an address (a verification or password link opened, a mailed invitation
 * accepted, an identity provider's word). Before it, anyone could have typed the address: with
 * mail on, what the account handed out until then — its API tokens, its invitations and the
 * members who joined through them, its other sessions — is dropped, and the owner is told by
 * mail and in each organisation's audit log.
 */
import type { ServiceContext } from "../../http/access";
import { recordAudit } from "../audit/service";
import { sendInBackground, type Mailer } from "../mail/mailer";
import { unprovedAccessRemovedMail } from "../mail/templates";
import { organizationInfo } from "../orgs/audience";
import { organizationsOf } from "../orgs/directory";
import { dropWhatWasInvitedBy } from "../orgs/members";
import { dropTokensCreatedBy } from "../tokens/service";
import { userById } from "./service";
import { deleteOtherSessionsOf } from "./sessions";

type Removed = { tokenName: string[]; invitations: string[]; members: string[] };

/** Runs inside the caller's transaction (the one that marks the address proved). */
export async function dropUnprovedAccess(ctx: Pick<ServiceContext, "store" | "log" | "now"> & { mailer: Mailer }, userId: string, keepSessionId: string | null): Promise<void> {
  const user = await userById(ctx, userId);
  if (!user) return;
  const tokens = await dropTokensCreatedBy(ctx, userId);
  const { invitations, members } = await dropWhatWasInvitedBy(ctx, userId);
  const sessions = await deleteOtherSessionsOf(ctx, userId, keepSessionId);
  if (!tokens.length && !invitations.length && !members.length && !sessions) return;

  const perOrg = new Map<string, Removed>();
  const of = (orgId: string) => perOrg.get(orgId) ?? perOrg.set(orgId, { tokenName: [], invitations: [], members: [] }).get(orgId)!;
  for (const t of tokens) of(t.orgId).tokenName.push(t.name);
  for (const i of invitations) of(i.orgId).invitations.push(`${i.email} (${i.role})`);
  for (const m of members) of(m.orgId).members.push(`${m.email} (${m.role})`);
  // ended sessions belong to no organisation: they are told in the account's first one
  const home = (await organizationsOf(ctx, userId))[0]?.id ?? null;
  if (home && sessions) of(home);
  const names = new Map<string, string>();
  for (const orgId of perOrg.keys()) names.set(orgId, (await organizationInfo(ctx, orgId))?.name ?? "(deleted organization)");

  const actor = { kind: "user" as const, id: userId, label: user.email };
  for (const [orgId, removed] of perOrg) {
    await recordAudit(ctx, { orgId, actor, action: "auth.unproved_access_removed", target: user.email, data: { ...removed, sessionCount: orgId === home ? sessions : 0 } });
  }
  ctx.log.info("unproved_access_removed", { userId, tokens: tokens.length, invitations: invitations.length, members: members.length, sessions });
  const org = (orgId: string) => names.get(orgId)!;
  sendInBackground(
    ctx.mailer,
    ctx.log,
    "unproved_access_removed",
    unprovedAccessRemovedMail({
      to: user.email,
      name: user.name,
      tokens: tokens.map((t) => ({ organization: org(t.orgId), name: t.name, role: t.role })),
      invitations: invitations.map((i) => ({ organization: org(i.orgId), email: i.email, role: i.role })),
      members: members.map((m) => ({ organization: org(m.orgId), email: m.email, role: m.role })),
      sessions,
      link: `${ctx.mailer.publicUrl}/app/settings`,
    }),
  );
}
