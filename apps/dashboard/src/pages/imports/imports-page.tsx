import { PageHeader } from '../../components/page-header';

export function ImportsPage() {
  return <PageHeader title="Imports" />;
}
