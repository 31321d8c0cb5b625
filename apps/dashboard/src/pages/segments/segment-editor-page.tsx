import { PageHeader } from '../../components/page-header';

export function SegmentEditorPage() {
  return <PageHeader title="Segment" />;
}
