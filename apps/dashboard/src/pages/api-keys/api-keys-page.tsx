import { PageHeader } from '../../components/page-header';

export function ApiKeysPage() {
  return <PageHeader title="API keys" />;
}
