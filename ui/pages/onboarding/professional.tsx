import { PagePlaceholder } from "../../components/PagePlaceholder";

export default function OnboardingProfessionalPage() {
  return <PagePlaceholder title="Setup guide: professional" />;
}
