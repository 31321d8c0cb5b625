import { PageHeader } from '../../components/page-header';

export function ContactDetailPage() {
  return <PageHeader title="Contact" />;
}
