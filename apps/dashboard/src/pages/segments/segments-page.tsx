import { PageHeader } from '../../components/page-header';

export function SegmentsPage() {
  return <PageHeader title="Segments" />;
}
