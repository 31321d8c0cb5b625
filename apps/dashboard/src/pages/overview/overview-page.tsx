import { PageHeader } from '../../components/page-header';

export function OverviewPage() {
  return <PageHeader title="Overview" />;
}
