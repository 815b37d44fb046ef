import { PagePlaceholder } from "../../components/PagePlaceholder";

export default function ContactPage() {
  return <PagePlaceholder title="Contact Us" />;
}
