/**
 * How several organizations receive their reports, at once, for views across organizations
 * (the MSP portfolio): one statement per table over the given ids, never one per organization.
 */
import { oneOf } from "../../db/id-set";
import type { ServiceContext } from "../../http/access";
import { reportDestinationOf } from "../../lib/task-inputs";
import type { ReportDestination } from "../../lib/report-path";
import { reportTokensOfOrgs } from "../orgs/across-orgs";
import { dmarcRuaOfOrgs } from "../settings/across-orgs";

/**
 * Each given organization's report address (reportAddress' set-based twin: `<token>@<smtp-domain>`
 * when the SMTP receiver is on, else null), its report destination (reportDestination's), and
 * the rua of its settings. Organizations that no longer exist are left out.
 */
export async function reportDestinationsOfOrgs(
  ctx: Pick<ServiceContext, "store" | "config">,
  orgIds: string[],
): Promise<Map<string, { address: string | null; dmarcRua: string | null; destination: ReportDestination }>> {
  const out = new Map<string, { address: string | null; dmarcRua: string | null; destination: ReportDestination }>();
  if (!orgIds.length) return out;
  const { reportMailboxes: m, oauthMailboxes: o } = ctx.store.t;
  const domain = ctx.config.smtpDomain.toLowerCase();
  const receiverOn = !!domain && !!ctx.config.smtpPort;
  // the four reads run together
  const [tokens, ruaRows, imapRows, oauthRows] = await Promise.all([
    reportTokensOfOrgs(ctx, orgIds),
    dmarcRuaOfOrgs(ctx, orgIds),
    ctx.store.db.select({ orgId: m.orgId, username: m.username }).from(m).where(oneOf(ctx.store.dialect, m.orgId, orgIds)),
    ctx.store.db.select({ orgId: o.orgId, email: o.email, status: o.status, createdAt: o.createdAt }).from(o).where(oneOf(ctx.store.dialect, o.orgId, orgIds)),
  ]);
  const rua = new Map(ruaRows.map((r) => [r.orgId, r.dmarcRua]));
  const imap = new Map(imapRows.map((r) => [r.orgId, r.username]));
  const oauth = new Map<string, { email: string; status: string; createdAt: Date }[]>();
  for (const { orgId, ...row } of oauthRows) {
    const list = oauth.get(orgId);
    if (list) list.push(row);
    else oauth.set(orgId, [row]);
  }
  for (const { orgId, token } of tokens) {
    const address = receiverOn ? `${token}@${domain}` : null;
    const dmarcRua = rua.get(orgId) ?? null;
    out.set(orgId, { address, dmarcRua, destination: reportDestinationOf({ receiverAddress: address, imapUsername: imap.get(orgId) ?? null, oauth: oauth.get(orgId) ?? [], dmarcRua }) });
  }
  return out;
}
