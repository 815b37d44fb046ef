import { AlertTriangle, Home, Phone, ShieldCheck } from "lucide-react";
import { DkimStep, DmarcStep, SpfStep, StepNote, Wizard, WizardBanner, type WizardConfig } from "./Wizard";

export const REALESTATE_WIZARD: WizardConfig = {
  kind: "realestate",
  heading: "Real Estate Agency Email Security Setup",
  intro: "Stop criminals from sending fake wire instructions in your agency's name, in 4 simple steps.",
  icon: Home,
  banner: (
    <WizardBanner tone="error" icon={AlertTriangle} title="Wire Fraud Alert">
      Real estate wire fraud causes over $150M in annual losses. Criminals impersonate agents and title companies to redirect closing funds. Email
      authentication stops them from sending mail as your domain.
    </WizardBanner>
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
  renderStep: (step, { domain }) => {
    switch (step) {
      case 2:
        return (
          <SpfStep
            kind="realestate"
            domain={domain}
            intro={
              <>
                SPF lists the services allowed to send email for {domain}. This value authorizes Google Workspace and SendGrid, the bulk email service many listing
                alerts and newsletters go through.
              </>
            }
            who="your IT support or website provider"
            includes="includes"
          />
        );
      case 3:
        return (
          <DkimStep
            intro="DKIM signs every email your agency sends, so clients' mail servers can prove it really came from you."
            note={
              <StepNote tone="info" label="CRM platforms:">
                if you send listings, drip campaigns or newsletters from a real estate CRM or marketing platform, turn on DKIM (often called "domain
                authentication") in that platform too and add the DNS records it gives you.
              </StepNote>
            }
          />
        );
      case 4:
        return (
          <DmarcStep
            kind="realestate"
            domain={domain}
            complete={
              <>
                <p className="flex items-center gap-1 font-semibold">
                  <ShieldCheck className="h-4 w-4" aria-hidden /> Wire Fraud Protection Active
                </p>
                <p>Once your records are live, dmarcwarden watches every message sent as {domain} and alerts you when someone tries to impersonate your agency.</p>
              </>
            }
            after={
              <StepNote tone="warning" icon={Phone} label="Tip:">
                tell every client to verify wire instructions by phone, using a number they already know, before sending any funds.
              </StepNote>
            }
          />
        );
    }
  },
  helpButtons: ["Contact Support", "Wire Fraud Prevention Guide"],
};

export default function OnboardingRealestatePage() {
  return <Wizard config={REALESTATE_WIZARD} />;
}
