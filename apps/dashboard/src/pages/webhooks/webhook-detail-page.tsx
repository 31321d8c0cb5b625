import { PageHeader } from '../../components/page-header';

export function WebhookDetailPage() {
  return <PageHeader title="Webhook endpoint" />;
}
