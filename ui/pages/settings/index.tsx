import { PagePlaceholder } from "../../components/PagePlaceholder";
import { MembersSection } from "./MembersSection";
import { ReportMailboxSection } from "./ReportMailboxSection";
import { SettingsForm } from "./SettingsForm";

export default function SettingsPage() {
  return (
    <PagePlaceholder title="Settings">
      <div className="mt-6 grid grid-cols-1 gap-6">
        <SettingsForm />
        <ReportMailboxSection />
        <MembersSection />
      </div>
    </PagePlaceholder>
  );
}
