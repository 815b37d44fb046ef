import { PagePlaceholder } from "../../components/PagePlaceholder";

export default function ThreatsPage() {
  return <PagePlaceholder title="Threat Map" />;
}
