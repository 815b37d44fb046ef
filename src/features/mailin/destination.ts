/**
 * What an organization has set up to receive its DMARC reports — this server's report address
 * (SMTP receiver on), a connected mailbox (IMAP, or Microsoft 365 / Google Workspace through
 * OAuth), the rua address in its settings — for the report paths of src/lib/report-path.ts
 * (tasks, the onboarding checklist, the wizards, the domain page).
 */
import type { OrgContext } from "../../http/access";
import type { ReportDestination } from "../../lib/report-path";
import { reportDestinationOf } from "../../lib/task-inputs";
import { getSettings } from "../settings/service";
import { listOAuthMailboxes } from "./oauth-service";
import { getMailbox, reportAddress } from "./service";

export async function reportDestination(ctx: OrgContext): Promise<ReportDestination> {
  const [receiver, mailbox, oauth, settings] = await Promise.all([reportAddress(ctx), getMailbox(ctx), listOAuthMailboxes(ctx), getSettings(ctx)]);
  return reportDestinationOf({
    receiverAddress: receiver.address,
    imapUsername: mailbox?.username ?? null,
    oauth: oauth.mailboxes.map((m) => ({ email: m.email, status: m.status, createdAt: new Date(m.createdAt) })),
    dmarcRua: settings.dmarcRua,
  });
}
