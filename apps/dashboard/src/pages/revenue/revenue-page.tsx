import { PageHeader } from '../../components/page-header';

export function RevenuePage() {
  return <PageHeader title="Revenue" />;
}
