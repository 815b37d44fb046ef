import { PagePlaceholder } from "../../components/PagePlaceholder";

export default function SettingsPage() {
  return <PagePlaceholder title="Settings" />;
}
