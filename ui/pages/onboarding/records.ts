/**
 * The copy-ready DNS values the setup wizards show (SPEC §9 sample SPF/DMARC): SPF authorises a
 * large email provider with a soft-fail ending (real estate adds a bulk email sender); DMARC
 * starts at policy none with aggregate reports sent to a mailbox at the entered domain, or at
 * the wizard's sample domain while none is entered.
 */
export type WizardKind = "professional" | "healthcare" | "realestate";

export const SAMPLE_DOMAINS: Record<WizardKind, string> = {
  professional: "yourfirm.com",
  healthcare: "yourpractice.com",
  realestate: "youragency.com",
};

/** The mailbox (local part) that receives aggregate reports. */
export const REPORT_MAILBOXES: Record<WizardKind, string> = {
  professional: "dmarc",
  healthcare: "dmarc",
  realestate: "security",
};

export const EMAIL_PROVIDER_INCLUDE = "include:_spf.google.com";
export const BULK_SENDER_INCLUDE = "include:sendgrid.net";

/** The entered domain, tidied, or the sample domain when nothing is entered. */
export function recordDomain(kind: WizardKind, entered: string): string {
  const domain = entered
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, "")
    .replace(/\/.*$/, "");
  return domain || SAMPLE_DOMAINS[kind];
}

export function spfRecord(kind: WizardKind): string {
  return kind === "realestate" ? `v=spf1 ${EMAIL_PROVIDER_INCLUDE} ${BULK_SENDER_INCLUDE} ~all` : `v=spf1 ${EMAIL_PROVIDER_INCLUDE} ~all`;
}

export function dmarcRecord(kind: WizardKind, entered: string): string {
  return `v=DMARC1; p=none; rua=mailto:${REPORT_MAILBOXES[kind]}@${recordDomain(kind, entered)}`;
}
