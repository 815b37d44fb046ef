import { PagePlaceholder } from "../../components/PagePlaceholder";

export default function TrialPage() {
  return <PagePlaceholder title="Start your 7-day free trial" />;
}
