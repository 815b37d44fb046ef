import { Briefcase, Lock } from "lucide-react";
import { dmarcRecord, spfRecord } from "./records";
import { CopyableRecord, DkimProviderSteps, DnsRecordRow, PropagationNote, SetupComplete, Wizard, type WizardConfig } from "./Wizard";

export const PROFESSIONAL_WIZARD: WizardConfig = {
  kind: "professional",
  heading: "Professional Firm Email Security Setup",
  intro: "Protect your firm and your clients' confidential information in 4 simple steps.",
  icon: Briefcase,
  banner: (
    <div className="alert alert-info alert-soft items-start" role="note">
      <Lock className="h-5 w-5" aria-hidden />
      <div>
        <h2 className="font-bold">Client Confidentiality</h2>
        <p className="text-sm">
          Law, accounting and consulting firms are prime targets for invoice fraud and partner impersonation. Email authentication stops criminals from sending
          mail as your firm.
        </p>
      </div>
    </div>
  ),
  details: {
    title: "Enter Your Firm Details",
    description: "Tell us about your firm so we can build DNS records for your domain.",
    nameLabel: "Firm Name",
    namePlaceholder: "e.g. Whitfield & Partners",
    domainLabel: "Firm Domain",
    emailLabel: "Email Address",
    emailPlaceholder: "e.g. it@yourfirm.com",
  },
  stepTitles: ["Enter Your Firm Details", "Configure SPF Record", "Enable DKIM Authentication", "Set Up DMARC Policy"],
  renderStep: (step, { domain }) => {
    switch (step) {
      case 2:
        return (
          <div className="grid gap-4">
            <p className="opacity-80">SPF lists the services allowed to send email for {domain}. Receiving servers reject or flag mail from anywhere else.</p>
            <CopyableRecord label="SPF record value" value={spfRecord("professional")} what="SPF record" />
            <p className="text-sm opacity-80">
              Ask your IT support to add a <strong>TXT record</strong> on the <strong>root domain</strong> (@) of {domain} with the value above. If an SPF record
              already exists, merge the include into it: a domain must have only one SPF record.
            </p>
            <DnsRecordRow name="@" value={spfRecord("professional")} />
          </div>
        );
      case 3:
        return (
          <div className="grid gap-4">
            <p className="opacity-80">DKIM signs every email your firm sends, so clients' mail servers can prove it really came from you.</p>
            <DkimProviderSteps />
          </div>
        );
      case 4:
        return (
          <div className="grid gap-4">
            <p className="opacity-80">DMARC tells receiving servers what to do with mail that fails SPF and DKIM, and sends you reports about who sends as {domain}.</p>
            <CopyableRecord label="DMARC record value" value={dmarcRecord("professional", domain)} what="DMARC record" />
            <DnsRecordRow name="_dmarc" value={dmarcRecord("professional", domain)} note={`Add a TXT record named _dmarc (that is, _dmarc.${domain}).`} />
            <PropagationNote />
            <SetupComplete>
              Your firm is ready for monitoring. Once the records are live, dmarcwarden collects the reports for {domain} and shows who sends email in your firm's
              name.
            </SetupComplete>
          </div>
        );
    }
  },
  helpButtons: ["Contact Support", "Email Security Guide"],
};

export default function OnboardingProfessionalPage() {
  return <Wizard config={PROFESSIONAL_WIZARD} />;
}
