import { PageHeader } from '../../components/page-header';

export function WebhooksPage() {
  return <PageHeader title="Webhooks" />;
}
