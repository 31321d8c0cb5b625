import { PageHeader } from '../../components/page-header';

export function NewImportPage() {
  return <PageHeader title="New import" />;
}
