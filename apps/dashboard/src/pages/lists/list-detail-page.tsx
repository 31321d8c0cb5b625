import { PageHeader } from '../../components/page-header';

export function ListDetailPage() {
  return <PageHeader title="List" />;
}
