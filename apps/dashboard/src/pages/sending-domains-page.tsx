import { Alert } from '@mantine/core';
import { IconInfoCircle } from '@tabler/icons-react';
import { PageHeader } from '../components/page-header';

/** Sending domains (§13) get their page once the API has the routes; this keeps its place. */
export function SendingDomainsPage() {
  return (
    <>
      <PageHeader
        title="Sending domains"
        description="Domains your email is sent from, their DNS records and verification."
      />
      <Alert icon={<IconInfoCircle size={18} />} title="Not available yet" color="blue">
        Sending domains are not part of this version of the API. When they are, this page will list
        each domain with the DNS records to publish (with copy buttons) and a button to verify them.
      </Alert>
    </>
  );
}
