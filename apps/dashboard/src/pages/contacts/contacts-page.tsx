import { PageHeader } from '../../components/page-header';

export function ContactsPage() {
  return <PageHeader title="Contacts" />;
}
