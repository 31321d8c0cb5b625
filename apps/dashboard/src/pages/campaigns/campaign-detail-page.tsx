import { PageHeader } from '../../components/page-header';

export function CampaignDetailPage() {
  return <PageHeader title="Campaign" />;
}
