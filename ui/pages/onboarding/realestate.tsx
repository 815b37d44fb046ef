import { PagePlaceholder } from "../../components/PagePlaceholder";

export default function OnboardingRealestatePage() {
  return <PagePlaceholder title="Setup guide: realestate" />;
}
