import { PageHeader } from '../../components/page-header';

export function MessageDetailPage() {
  return <PageHeader title="Message" />;
}
