import { AlertTriangle, Home, Phone, ShieldCheck } from "lucide-react";
import { dmarcRecord, spfRecord } from "./records";
import { CopyableRecord, DkimProviderSteps, DnsRecordRow, PropagationNote, SetupComplete, Wizard, type WizardConfig } from "./Wizard";

export const REALESTATE_WIZARD: WizardConfig = {
  kind: "realestate",
  heading: "Real Estate Agency Email Security Setup",
  intro: "Stop criminals from sending fake wire instructions in your agency's name, in 4 simple steps.",
  icon: Home,
  banner: (
    <div className="alert alert-error alert-soft items-start" role="note">
      <AlertTriangle className="h-5 w-5" aria-hidden />
      <div>
        <h2 className="font-bold">Wire Fraud Alert</h2>
        <p className="text-sm">
          Real estate wire fraud causes over $150M in annual losses. Criminals impersonate agents and title companies to redirect closing funds. Email
          authentication stops them from sending mail as your domain.
        </p>
      </div>
    </div>
  ),
  details: {
    title: "Enter Your Agency Details",
    description: "Tell us about your agency so we can build DNS records for your domain.",
    nameLabel: "Agency Name",
    namePlaceholder: "e.g. Oak Street Realty",
    domainLabel: "Agency Domain",
    emailLabel: "Email Address",
    emailPlaceholder: "e.g. broker@youragency.com",
  },
  stepTitles: ["Enter Your Agency Details", "Configure SPF Record", "Enable DKIM Authentication", "Set Up DMARC Policy"],
  renderStep: (step, { domain }) => {
    switch (step) {
      case 2:
        return (
          <div className="grid gap-4">
            <p className="opacity-80">
              SPF lists the services allowed to send email for {domain}. This value authorises Google Workspace and SendGrid, the bulk email service many listing
              alerts and newsletters go through.
            </p>
            <CopyableRecord label="SPF record value" value={spfRecord("realestate")} what="SPF record" />
            <p className="text-sm opacity-80">
              Ask your IT support or website provider to add a <strong>TXT record</strong> on the <strong>root domain</strong> (@) of {domain} with the value above.
              If an SPF record already exists, merge the includes into it: a domain must have only one SPF record.
            </p>
            <DnsRecordRow name="@" value={spfRecord("realestate")} />
          </div>
        );
      case 3:
        return (
          <div className="grid gap-4">
            <p className="opacity-80">DKIM signs every email your agency sends, so clients' mail servers can prove it really came from you.</p>
            <DkimProviderSteps />
            <div className="alert alert-info alert-soft text-sm" role="note">
              <span>
                <strong>CRM platforms:</strong> if you send listings, drip campaigns or newsletters from a real estate CRM or marketing platform, turn on DKIM (often
                called "domain authentication") in that platform too and add the DNS records it gives you.
              </span>
            </div>
          </div>
        );
      case 4:
        return (
          <div className="grid gap-4">
            <p className="opacity-80">DMARC tells receiving servers what to do with mail that fails SPF and DKIM, and sends you reports about who sends as {domain}.</p>
            <CopyableRecord label="DMARC record value" value={dmarcRecord("realestate", domain)} what="DMARC record" />
            <DnsRecordRow name="_dmarc" value={dmarcRecord("realestate", domain)} note={`Add a TXT record named _dmarc (that is, _dmarc.${domain}).`} />
            <PropagationNote />
            <SetupComplete>
              <p className="flex items-center gap-1 font-semibold">
                <ShieldCheck className="h-4 w-4" aria-hidden /> Wire Fraud Protection Active
              </p>
              <p>Once your records are live, dmarcwarden watches every message sent as {domain} and alerts you when someone tries to impersonate your agency.</p>
            </SetupComplete>
            <div className="alert alert-warning alert-soft text-sm" role="note">
              <Phone className="h-4 w-4" aria-hidden />
              <span>
                <strong>Tip:</strong> tell every client to verify wire instructions by phone, using a number they already know, before sending any funds.
              </span>
            </div>
          </div>
        );
    }
  },
  helpButtons: ["Contact Support", "Wire Fraud Prevention Guide"],
};

export default function OnboardingRealestatePage() {
  return <Wizard config={REALESTATE_WIZARD} />;
}
