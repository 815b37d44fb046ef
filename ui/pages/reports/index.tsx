import { PagePlaceholder } from "../../components/PagePlaceholder";

export default function ReportsPage() {
  return <PagePlaceholder title="DMARC Reports" />;
}
