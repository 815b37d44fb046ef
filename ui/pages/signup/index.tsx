import { PagePlaceholder } from "../../components/PagePlaceholder";

export default function SignupPage() {
  return <PagePlaceholder title="Create your account" />;
}
