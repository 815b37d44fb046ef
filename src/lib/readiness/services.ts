/**
 * How the common sending services are authorised for a customer's domain: the SPF include they
 * document and the DKIM selectors their custom-domain signing publishes. Keyed by the base
 * domain of the sender's reverse DNS (the key of the parsedmarc service map), so a record's
 * `base_domain` finds its set-up. A service absent here still gets a fix, in general words.
 */
export interface ServiceSetup {
  /** the SPF include the service documents, e.g. "sendgrid.net" */
  spfInclude?: string;
  /** selectors its custom-domain DKIM uses (shown as a hint) */
  dkimSelectors?: string[];
  /** where in the service DKIM signing for your own domain is turned on */
  dkimWhere?: string;
}

const SETUPS: Record<string, ServiceSetup> = {
  "google.com": { spfInclude: "_spf.google.com", dkimSelectors: ["google"], dkimWhere: "the Google Admin console (Apps → Google Workspace → Gmail → Authenticate email)" },
  "outlook.com": { spfInclude: "spf.protection.outlook.com", dkimSelectors: ["selector1", "selector2"], dkimWhere: "the Microsoft Defender portal (Email authentication settings → DKIM)" },
  "sendgrid.net": { spfInclude: "sendgrid.net", dkimSelectors: ["s1", "s2"], dkimWhere: "SendGrid's Sender Authentication (domain authentication)" },
  "sendgrid.com": { spfInclude: "sendgrid.net", dkimSelectors: ["s1", "s2"], dkimWhere: "SendGrid's Sender Authentication (domain authentication)" },
  "mcsv.net": { spfInclude: "servers.mcsv.net", dkimSelectors: ["k2", "k3"], dkimWhere: "Mailchimp's domain authentication" },
  "rsgsv.net": { spfInclude: "servers.mcsv.net", dkimSelectors: ["k2", "k3"], dkimWhere: "Mailchimp's domain authentication" },
  "mandrillapp.com": { spfInclude: "spf.mandrillapp.com", dkimSelectors: ["mte1", "mte2"], dkimWhere: "Mailchimp Transactional's sending domains" },
  "amazonses.com": { spfInclude: "amazonses.com", dkimWhere: "Amazon SES's verified identities (Easy DKIM)" },
  "mailgun.net": { spfInclude: "mailgun.org", dkimWhere: "Mailgun's domain settings" },
  "mtasv.net": { spfInclude: "spf.mtasv.net", dkimWhere: "Postmark's sender signatures (DNS settings)" },
  "sendinblue.com": { spfInclude: "spf.brevo.com", dkimSelectors: ["brevo1", "brevo2"], dkimWhere: "Brevo's domain authentication" },
  "brevo.com": { spfInclude: "spf.brevo.com", dkimSelectors: ["brevo1", "brevo2"], dkimWhere: "Brevo's domain authentication" },
  "mailjet.com": { spfInclude: "spf.mailjet.com", dkimSelectors: ["mailjet"], dkimWhere: "Mailjet's domain authentication" },
  "sparkpostmail.com": { spfInclude: "sparkpostmail.com", dkimWhere: "SparkPost's sending domains" },
  "zoho.com": { spfInclude: "zohomail.com", dkimWhere: "Zoho Mail's admin console (Domains → Email configuration → DKIM)" },
  "hubspotemail.net": { spfInclude: "_spf.hubspotemail.net", dkimSelectors: ["hs1", "hs2"], dkimWhere: "HubSpot's email sending domains" },
  "salesforce.com": { spfInclude: "_spf.salesforce.com", dkimWhere: "Salesforce Setup (DKIM Keys)" },
  "exacttarget.com": { spfInclude: "cust-spf.exacttarget.com", dkimWhere: "Marketing Cloud's sender authentication package" },
  "constantcontact.com": { spfInclude: "spf.constantcontact.com", dkimSelectors: ["ctct1", "ctct2"], dkimWhere: "Constant Contact's self-authentication" },
  "fastmail.com": { spfInclude: "spf.messagingengine.com", dkimSelectors: ["fm1", "fm2", "fm3"], dkimWhere: "Fastmail's domain settings" },
  "zendesk.com": { spfInclude: "mail.zendesk.com", dkimSelectors: ["zendesk1", "zendesk2"], dkimWhere: "Zendesk's email settings (digital signatures)" },
};

/** The set-up of the service behind a reverse-DNS base domain, or an empty one. */
export function serviceSetupOf(baseDomain: string | null | undefined): ServiceSetup {
  return (baseDomain && SETUPS[baseDomain.toLowerCase()]) || {};
}
