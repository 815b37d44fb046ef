import { PagePlaceholder } from "../../components/PagePlaceholder";

export default function DnsPage() {
  return <PagePlaceholder title="DNS Lookup" />;
}
