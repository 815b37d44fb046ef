import { HeartPulse, ShieldCheck } from "lucide-react";
import { DkimStep, DmarcStep, SpfStep, StepNote, Wizard, WizardBanner, type WizardConfig } from "./Wizard";

export const HEALTHCARE_WIZARD: WizardConfig = {
  kind: "healthcare",
  heading: "Healthcare Practice Email Security Setup",
  intro: "Protect patient communications from spoofing and phishing in 4 simple steps.",
  icon: HeartPulse,
  banner: (
    <WizardBanner tone="info" icon={ShieldCheck} title="HIPAA Compliance">
      Email authentication protects patients from messages that pretend to come from your practice and supports the HIPAA Security Rule's safeguards for
      electronic protected health information (ePHI).
    </WizardBanner>
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
  renderStep: (step, { domain }) => {
    switch (step) {
      case 2:
        return (
          <SpfStep
            kind="healthcare"
            domain={domain}
            note={
              <StepNote tone="warning" label="HIPAA note:">
                only authorize email services that have signed a Business Associate Agreement (BAA) with your practice if they handle patient information.
              </StepNote>
            }
          />
        );
      case 3:
        return <DkimStep intro="DKIM adds a digital signature to every email your practice sends, so patients' mail servers can prove it really came from you." />;
      case 4:
        return (
          <DmarcStep
            kind="healthcare"
            domain={domain}
            complete={
              <>
                Monitoring has started for your practice. Once the records are live, dmarcwarden collects the reports for {domain} and shows who sends email in your
                practice's name.
              </>
            }
          />
        );
    }
  },
  helpButtons: ["Contact Support", "HIPAA Compliance Guide"],
};

export default function OnboardingHealthcarePage() {
  return <Wizard config={HEALTHCARE_WIZARD} />;
}
