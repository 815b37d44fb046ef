import { PagePlaceholder } from "../../components/PagePlaceholder";

export default function DomainsPage() {
  return <PagePlaceholder title="Domain Management" />;
}
