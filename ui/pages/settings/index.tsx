import { PagePlaceholder } from "../../components/PagePlaceholder";
import { AlertChannelsSection } from "./AlertChannelsSection";
import { ApiTokensSection } from "./ApiTokensSection";
import { AuditLogSection } from "./AuditLogSection";
import { BrandingSection } from "./BrandingSection";
import { MembersSection } from "./MembersSection";
import { ReportMailboxSection } from "./ReportMailboxSection";
import { SettingsForm } from "./SettingsForm";
import { SingleSignOnSection } from "./SingleSignOnSection";
import { TwoFactorSection } from "./TwoFactorSection";

export default function SettingsPage() {
  return (
    <PagePlaceholder title="Settings">
      <div className="mt-6 grid grid-cols-1 gap-6">
        <SettingsForm />
        <AlertChannelsSection />
        <ReportMailboxSection />
        <MembersSection />
        <TwoFactorSection />
        <SingleSignOnSection />
        <BrandingSection />
        <ApiTokensSection />
        <AuditLogSection />
      </div>
    </PagePlaceholder>
  );
}
