import { PagePlaceholder } from "../../components/PagePlaceholder";

export default function OnboardingHealthcarePage() {
  return <PagePlaceholder title="Setup guide: healthcare" />;
}
