import { PagePlaceholder } from "../../components/PagePlaceholder";

export default function DemoPage() {
  return <PagePlaceholder title="Demo Dashboard" />;
}
