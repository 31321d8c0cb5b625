import { PageHeader } from '../../components/page-header';

export function CampaignsPage() {
  return <PageHeader title="Campaigns" />;
}
