/**
 * What an organization has set up to receive its DMARC reports — this server's report address
 * (SMTP receiver on), a connected mailbox (IMAP, or Microsoft 365 / Google Workspace through
 * OAuth), the rua address in its settings — for the report paths of src/lib/report-path.ts
 * (tasks, the onboarding checklist, the wizards, the domain page).
 */
import type { OrgContext } from "../../http/access";
import type { ReportDestination } from "../../lib/report-path";
import { getSettings } from "../settings/service";
import { listOAuthMailboxes } from "./oauth-service";
import { getMailbox, reportAddress } from "./service";

export async function reportDestination(ctx: OrgContext): Promise<ReportDestination> {
  const [receiver, mailbox, oauth, settings] = await Promise.all([reportAddress(ctx), getMailbox(ctx), listOAuthMailboxes(ctx), getSettings(ctx)]);
  // a mailbox whose consent was withdrawn reads nothing until reconnected
  const oauthActive = oauth.mailboxes.filter((m) => m.status === "active");
  const imapAddress = mailbox && mailbox.username.includes("@") ? mailbox.username : null;
  return {
    receiverAddress: receiver.address,
    mailboxConnected: mailbox !== null || oauthActive.length > 0,
    mailboxAddress: imapAddress ?? oauthActive[0]?.email ?? null,
    configuredRua: (settings.dmarcRua ?? "").replace(/^mailto:/i, ""),
  };
}
