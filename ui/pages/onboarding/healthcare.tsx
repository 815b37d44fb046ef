import { HeartPulse, ShieldCheck } from "lucide-react";
import { dmarcRecord, spfRecord } from "./records";
import { CopyableRecord, DkimProviderSteps, DnsRecordRow, PropagationNote, SetupComplete, Wizard, type WizardConfig } from "./Wizard";

export const HEALTHCARE_WIZARD: WizardConfig = {
  kind: "healthcare",
  heading: "Healthcare Practice Email Security Setup",
  intro: "Protect patient communications from spoofing and phishing in 4 simple steps.",
  icon: HeartPulse,
  banner: (
    <div className="alert alert-info alert-soft items-start" role="note">
      <ShieldCheck className="h-5 w-5" aria-hidden />
      <div>
        <h2 className="font-bold">HIPAA Compliance</h2>
        <p className="text-sm">
          Email authentication protects patients from messages that pretend to come from your practice and supports the HIPAA Security Rule's safeguards for
          electronic protected health information (ePHI).
        </p>
      </div>
    </div>
  ),
  details: {
    title: "Enter Your Practice Details",
    description: "Tell us about your practice so we can build DNS records for your domain.",
    nameLabel: "Practice Name",
    namePlaceholder: "e.g. Riverside Family Medicine",
    domainLabel: "Practice Domain",
    emailLabel: "Administrator Email",
    emailPlaceholder: "e.g. admin@yourpractice.com",
  },
  stepTitles: ["Enter Your Practice Details", "Configure SPF Record", "Enable DKIM Authentication", "Set Up DMARC Policy"],
  renderStep: (step, { domain }) => {
    switch (step) {
      case 2:
        return (
          <div className="grid gap-4">
            <p className="opacity-80">SPF lists the services allowed to send email for {domain}. Receiving servers reject or flag mail from anywhere else.</p>
            <CopyableRecord label="SPF record value" value={spfRecord("healthcare")} what="SPF record" />
            <div className="alert alert-warning alert-soft text-sm" role="note">
              <span>
                <strong>HIPAA note:</strong> only authorise email services that have signed a Business Associate Agreement (BAA) with your practice if they handle
                patient information.
              </span>
            </div>
            <p className="text-sm opacity-80">
              Ask your IT support to add a <strong>TXT record</strong> on the <strong>root domain</strong> (@) of {domain} with the value above. If an SPF record
              already exists, merge the include into it: a domain must have only one SPF record.
            </p>
            <DnsRecordRow name="@" value={spfRecord("healthcare")} />
          </div>
        );
      case 3:
        return (
          <div className="grid gap-4">
            <p className="opacity-80">DKIM adds a digital signature to every email your practice sends, so patients' mail servers can prove it really came from you.</p>
            <DkimProviderSteps />
          </div>
        );
      case 4:
        return (
          <div className="grid gap-4">
            <p className="opacity-80">DMARC tells receiving servers what to do with mail that fails SPF and DKIM, and sends you reports about who sends as {domain}.</p>
            <CopyableRecord label="DMARC record value" value={dmarcRecord("healthcare", domain)} what="DMARC record" />
            <DnsRecordRow name="_dmarc" value={dmarcRecord("healthcare", domain)} note={`Add a TXT record named _dmarc (that is, _dmarc.${domain}).`} />
            <PropagationNote />
            <SetupComplete>
              Your practice is ready for monitoring. Once the records are live, dmarcwarden collects the reports for {domain} and shows who sends email in your
              practice's name.
            </SetupComplete>
          </div>
        );
    }
  },
  helpButtons: ["Contact Support", "HIPAA Compliance Guide"],
};

export default function OnboardingHealthcarePage() {
  return <Wizard config={HEALTHCARE_WIZARD} />;
}
