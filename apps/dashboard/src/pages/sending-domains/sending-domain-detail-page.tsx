// One sending domain: what to publish where, each DNS record with copy buttons and its status,
// "Verify now", and delete (confirmed: the DKIM key goes with it).
import {
  ActionIcon,
  Alert,
  Button,
  Code,
  CopyButton,
  Group,
  List,
  Paper,
  SimpleGrid,
  Spoiler,
  Stack,
  Table,
  Text,
  Title,
  Tooltip,
} from '@mantine/core';
import { IconCheck, IconCopy, IconInfoCircle } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { Fragment, useState, type ReactNode } from 'react';
import { useNavigate, useParams } from 'react-router';
import { api, dataOf, unwrap } from '../../api/client';
import type { DnsRecord, SendingDomain } from '../../api/types';
import { PageHeader } from '../../components/page-header';
import { QueryState } from '../../components/query-state';
import { useOrgQuery } from '../../hooks/use-org-query';
import { confirmDestructive } from '../../lib/confirm';
import { formatDate, formatDateTime } from '../../lib/format';
import { runChange } from '../../lib/mutate';
import { DomainStatusBadge, PURPOSE } from './domain-status';

function Item({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed" fw={600} tt="uppercase">
        {label}
      </Text>
      <Text size="sm" component="div">
        {children}
      </Text>
    </div>
  );
}

/** A record's name or value, shown as `children`, with a button copying it exactly. */
function Copyable({
  value,
  label,
  children,
}: {
  value: string;
  label: string;
  children: ReactNode;
}) {
  return (
    <Group gap={4} wrap="nowrap" align="flex-start">
      <div style={{ flex: 1, minWidth: 0 }}>{children}</div>
      <CopyButton value={value}>
        {({ copied, copy }) => (
          <Tooltip label={copied ? 'Copied' : 'Copy'} withArrow>
            <ActionIcon
              variant="subtle"
              color={copied ? 'green' : 'gray'}
              onClick={copy}
              aria-label={label}
            >
              {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
            </ActionIcon>
          </Tooltip>
        )}
      </CopyButton>
    </Group>
  );
}

/** A DNS name that wraps after its dots rather than inside a label (`<wbr>` adds no character). */
function DnsName({ name }: { name: string }) {
  const labels = name.split('.');
  return (
    <Code>
      {labels.map((label, i) => (
        <Fragment key={i}>
          {label}
          {i < labels.length - 1 && (
            <>
              .<wbr />
            </>
          )}
        </Fragment>
      ))}
    </Code>
  );
}

const SPOILER_STYLES = { control: { fontSize: 'var(--mantine-font-size-xs)' } };

/** Alert titles take their colour's shade, under 4.5:1 on the green tint: keep them in text colour. */
const ALERT_STYLES = { title: { color: 'var(--mantine-color-text)' } };

function StatusExplanation({ d }: { d: SendingDomain }) {
  if (d.status === 'verified') {
    return (
      <Alert
        color="green"
        icon={<IconInfoCircle size={18} />}
        styles={ALERT_STYLES}
        title="Verified"
      >
        Mail From {d.name} and its subdomains is signed with this domain’s key. Keep the records
        published: they are checked again every day.
      </Alert>
    );
  }
  if (d.status === 'failed') {
    return (
      <Alert
        color="red"
        icon={<IconInfoCircle size={18} />}
        styles={ALERT_STYLES}
        title="A required record is missing"
      >
        A required record below was not found or does not match. Publish it again as shown, then
        click Verify now.
      </Alert>
    );
  }
  return (
    <Alert
      color="blue"
      icon={<IconInfoCircle size={18} />}
      styles={ALERT_STYLES}
      title="Publish the records below"
    >
      Add them where the DNS of {d.name} is managed, usually at your domain registrar or DNS host.
      The domain is verified once both required records are found: we look every 10 minutes for 72
      hours, and Verify now looks at once. A new record can take a while to be visible.
    </Alert>
  );
}

function RecordsTable({ records }: { records: DnsRecord[] }) {
  return (
    <Table.ScrollContainer minWidth={960}>
      <Table layout="fixed" verticalSpacing="sm" data-testid="dns-records">
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={160}>Purpose</Table.Th>
            <Table.Th w={64}>Type</Table.Th>
            <Table.Th w={200}>Name</Table.Th>
            <Table.Th>Value</Table.Th>
            <Table.Th w={86}>Required</Table.Th>
            <Table.Th w={104}>Status</Table.Th>
            <Table.Th w={112}>Last checked</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {records.map((r) => {
            const p = PURPOSE[r.purpose];
            return (
              <Table.Tr key={r.purpose} data-purpose={r.purpose} style={{ verticalAlign: 'top' }}>
                <Table.Td>
                  <Text size="sm" fw={500}>
                    {p.label}
                  </Text>
                  <Text size="xs" c="dimmed">
                    {p.help}
                  </Text>
                </Table.Td>
                <Table.Td>{r.type}</Table.Td>
                <Table.Td>
                  <Copyable value={r.name} label={`Copy ${p.label} name`}>
                    <DnsName name={r.name} />
                  </Copyable>
                </Table.Td>
                <Table.Td>
                  <Copyable value={r.value} label={`Copy ${p.label} value`}>
                    <Spoiler
                      maxHeight={60}
                      showLabel="Show all"
                      hideLabel="Show less"
                      styles={SPOILER_STYLES}
                    >
                      <Code style={{ wordBreak: 'break-all' }}>{r.value}</Code>
                    </Spoiler>
                  </Copyable>
                </Table.Td>
                <Table.Td>{r.required ? 'Yes' : 'No'}</Table.Td>
                <Table.Td>
                  <DomainStatusBadge status={r.status} testId={`record-status-${r.purpose}`} />
                </Table.Td>
                <Table.Td>
                  <Text size="xs">{formatDateTime(r.lastCheckedAt)}</Text>
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

export function SendingDomainDetailPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const queries = useQueryClient();
  const [verifying, setVerifying] = useState(false);
  const domain = useOrgQuery(['sending-domain', id], () =>
    dataOf(api.GET('/api/v1/user/sending-domains/{id}', { params: { path: { id } } })),
  );
  const d = domain.data;
  const path = { params: { path: { id } } };

  const verify = async () => {
    setVerifying(true);
    await runChange(
      queries,
      () => dataOf(api.POST('/api/v1/user/sending-domains/{id}/verify', path)),
      'DNS records checked',
    );
    setVerifying(false);
  };
  const remove = () =>
    confirmDestructive({
      title: 'Delete sending domain',
      body: (
        <Stack gap="xs">
          <Text size="sm">
            <Code>{d?.name}</Code> and its DKIM key are deleted irreversibly.
          </Text>
          <Text size="sm">
            Mail From this domain and its subdomains can no longer be signed, so receivers may
            reject it or file it as spam; where only verified domains may send, it is refused.
            Adding the domain again makes a new key, with a new DKIM record to publish.
          </Text>
        </Stack>
      ),
      confirmLabel: 'Delete domain',
      onConfirm: async () => {
        const done = await runChange(
          queries,
          () => unwrap(api.DELETE('/api/v1/user/sending-domains/{id}', path)),
          'Sending domain deleted',
        );
        if (done) navigate('/sending-domains');
      },
    });

  return (
    <QueryState isLoading={domain.isLoading} error={domain.error}>
      {d && (
        <>
          <PageHeader
            title={d.name}
            description="Sending domain"
            actions={
              <>
                <Button onClick={() => void verify()} loading={verifying}>
                  Verify now
                </Button>
                <Button color="red" variant="light" onClick={remove}>
                  Delete
                </Button>
              </>
            }
          />
          <Stack>
            <Paper withBorder p="md" radius="md">
              <SimpleGrid cols={{ base: 2, md: 4 }} spacing="md">
                <Item label="Status">
                  <DomainStatusBadge status={d.status} testId="domain-status" />
                </Item>
                <Item label="Verified">{formatDateTime(d.verifiedAt)}</Item>
                <Item label="Added">{formatDate(d.createdAt)}</Item>
                <Item label="DKIM selector">
                  <Code>{d.dkimSelector}</Code>
                </Item>
              </SimpleGrid>
            </Paper>
            <StatusExplanation d={d} />
            <div>
              <Title order={2} size="h4" mb={4}>
                DNS records
              </Title>
              <Text size="sm" c="dimmed">
                Create each record with the type, name and value shown; the copy buttons copy them
                exactly.
              </Text>
            </div>
            <RecordsTable records={d.dnsRecords} />
            <List size="sm" c="dimmed" spacing={4}>
              <List.Item>
                The DKIM value is longer than 255 characters. Most DNS hosts split it for you; in a
                zone file, write it as two quoted strings one after the other.
              </List.Item>
              <List.Item>
                A domain has only one SPF record: if yours already has one, add the{' '}
                <Code>include:</Code> part to it instead of creating a second.
              </List.Item>
              <List.Item>
                Some DNS hosts add your domain to every name themselves: there, leave out the final
                “.{d.name}”, and enter @ for the name {d.name} itself.
              </List.Item>
            </List>
          </Stack>
        </>
      )}
    </QueryState>
  );
}
