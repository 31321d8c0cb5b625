import { PageHeader } from '../../components/page-header';

export function MessagesPage() {
  return <PageHeader title="Messages" />;
}
