/**
 * What an organization has set up to receive its DMARC reports — this server's report address
 * (SMTP receiver on), a connected IMAP mailbox, the rua address in its settings — for the
 * report paths of src/lib/report-path.ts (tasks, the onboarding checklist, the wizards, the
 * domain page).
 */
import type { OrgContext } from "../../http/access";
import type { ReportDestination } from "../../lib/report-path";
import { getSettings } from "../settings/service";
import { getMailbox, reportAddress } from "./service";

export async function reportDestination(ctx: OrgContext): Promise<ReportDestination> {
  const [receiver, mailbox, settings] = await Promise.all([reportAddress(ctx), getMailbox(ctx), getSettings(ctx)]);
  return {
    receiverAddress: receiver.address,
    mailboxConnected: mailbox !== null,
    mailboxAddress: mailbox && mailbox.username.includes("@") ? mailbox.username : null,
    configuredRua: (settings.dmarcRua ?? "").replace(/^mailto:/i, ""),
  };
}
