import { PagePlaceholder } from "../../components/PagePlaceholder";

export default function TasksPage() {
  return <PagePlaceholder title="Tasks & Issues" />;
}
