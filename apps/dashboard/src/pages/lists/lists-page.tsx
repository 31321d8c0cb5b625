import { PageHeader } from '../../components/page-header';

export function ListsPage() {
  return <PageHeader title="Lists" />;
}
