import { Briefcase, Lock } from "lucide-react";
import { DkimStep, DmarcStep, SpfStep, Wizard, WizardBanner, type WizardConfig } from "./Wizard";

export const PROFESSIONAL_WIZARD: WizardConfig = {
  kind: "professional",
  heading: "Professional Firm Email Security Setup",
  intro: "Protect your firm and your clients' confidential information in 4 simple steps.",
  icon: Briefcase,
  banner: (
    <WizardBanner tone="info" icon={Lock} title="Client Confidentiality">
      Law, accounting and consulting firms are prime targets for invoice fraud and partner impersonation. Email authentication stops criminals from sending mail
      as your firm.
    </WizardBanner>
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
  renderStep: (step, { domain }) => {
    switch (step) {
      case 2:
        return <SpfStep kind="professional" domain={domain} />;
      case 3:
        return <DkimStep intro="DKIM signs every email your firm sends, so clients' mail servers can prove it really came from you." />;
      case 4:
        return (
          <DmarcStep
            kind="professional"
            domain={domain}
            complete={
              <>
                Monitoring has started for your firm. Once the records are live, dmarcwarden collects the reports for {domain} and shows who sends email in your firm's
                name.
              </>
            }
          />
        );
    }
  },
  helpButtons: ["Contact Support", "Email Security Guide"],
};

export default function OnboardingProfessionalPage() {
  return <Wizard config={PROFESSIONAL_WIZARD} />;
}
