// The status badge of a domain or of one of its records, and what each record is for.
import { Badge } from '@mantine/core';
import type { DnsRecord, SendingDomain } from '../../api/types';

type DomainStatus = SendingDomain['status'];

const COLOR: Record<DomainStatus, string> = {
  pending: 'yellow',
  verified: 'green',
  failed: 'red',
};

export function DomainStatusBadge({ status, testId }: { status: DomainStatus; testId?: string }) {
  return (
    <Badge variant="light" color={COLOR[status]} data-testid={testId}>
      {status}
    </Badge>
  );
}

/** Each record's name in the table and a line on what it does, for people who are not DNS experts. */
export const PURPOSE: Record<DnsRecord['purpose'], { label: string; help: string }> = {
  dkim: {
    label: 'DKIM key',
    help: 'Lets receivers check that mail From this domain was signed by us.',
  },
  'return-path': {
    label: 'Return path',
    help: 'The address bounces come back to, on your domain.',
  },
  spf: {
    label: 'SPF',
    help: 'Lists our servers as allowed senders for your domain.',
  },
  dmarc: {
    label: 'DMARC',
    help: 'Tells receivers to check the signature. Any policy will do.',
  },
};
