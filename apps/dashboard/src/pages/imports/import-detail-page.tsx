import { PageHeader } from '../../components/page-header';

export function ImportDetailPage() {
  return <PageHeader title="Import" />;
}
