// Channels: the organization's provider accounts (Twilio for SMS, WhatsApp Cloud API, a Telegram
// bot, Blooio for iMessage, FCM and APNs for push, an HTTP endpoint for any channel), with their
// status and each channel's default, filtered by channel; connect one. An `http` account's
// generated secret is shown once before its page opens.
import { Anchor, Badge, Button, Group, Select, Table, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconPlugConnected } from '@tabler/icons-react';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, pageOf } from '../../api/client';
import type { ProviderChannel } from '../../api/types';
import { PageHeader } from '../../components/page-header';
import { Paginator } from '../../components/paginator';
import { EmptyState, QueryState } from '../../components/query-state';
import { useOrgQuery } from '../../hooks/use-org-query';
import { formatDate, formatNumber } from '../../lib/format';
import { optionsOf } from '../../lib/options';
import { useQueryState } from '../../lib/use-page';
import { ConnectProviderModal } from './connect-provider-modal';
import { CHANNEL_LABEL, PROVIDER_LABEL } from './provider-specs';
import { ProviderSecretModal } from './provider-secret-modal';
import { ProviderStatusBadge } from './provider-status';

const KEYS = ['channel'] as const;

export function ChannelsPage() {
  const navigate = useNavigate();
  const [connecting, { open, close }] = useDisclosure(false);
  const [created, setCreated] = useState<{ id: string; secret: string } | null>(null);
  const { values, page, setFilters, setPage } = useQueryState(KEYS);
  const channel = (values.channel || undefined) as ProviderChannel | undefined;
  const providers = useOrgQuery(['channel-providers', channel, page], () =>
    pageOf(
      api.GET('/api/v1/user/channel-providers', {
        params: { query: { page, limit: 20, ...(channel ? { channel } : {}) } },
      }),
    ),
  );
  const rows = providers.data?.data ?? [];

  return (
    <>
      <PageHeader
        title="Channels"
        description="The provider accounts that carry SMS, WhatsApp, Telegram, iMessage and push: your Twilio account, WhatsApp business number, Telegram bot, Blooio account, Firebase project or APNs key, or an HTTP endpoint of yours. Each channel sends through its default account."
        actions={
          <Button leftSection={<IconPlugConnected size={16} />} onClick={open}>
            Connect a provider
          </Button>
        }
      />
      <Group mb="md">
        <Select
          label="Channel"
          placeholder="All channels"
          data={optionsOf(CHANNEL_LABEL)}
          value={values.channel || null}
          onChange={(v) => setFilters({ channel: v ?? '' })}
          clearable
          w={190}
        />
      </Group>
      <QueryState
        isLoading={providers.isLoading}
        error={providers.error}
        isEmpty={rows.length === 0}
        empty={
          <EmptyState title={channel ? 'No provider for this channel' : 'No providers yet'}>
            Connect a Twilio account to send SMS, a WhatsApp business number, a Telegram bot, a
            Blooio account for iMessage, a Firebase project or APNs key for push notifications, or
            an HTTP endpoint of yours for any channel.
          </EmptyState>
        }
      >
        <Table.ScrollContainer minWidth={720}>
          <Table highlightOnHover data-testid="providers">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Channel</Table.Th>
                <Table.Th>Provider</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Messages a second</Table.Th>
                <Table.Th>Added</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((p) => (
                <Table.Tr key={p.id} data-provider-id={p.id}>
                  <Table.Td>
                    <Group gap="xs" wrap="nowrap">
                      <Anchor component={Link} to={`/channels/${p.id}`} size="sm" fw={500}>
                        {p.name}
                      </Anchor>
                      {p.isDefault && (
                        <Badge variant="outline" color="blue" size="sm">
                          default
                        </Badge>
                      )}
                    </Group>
                  </Table.Td>
                  <Table.Td>{CHANNEL_LABEL[p.channel]}</Table.Td>
                  <Table.Td>{PROVIDER_LABEL[p.provider] ?? p.provider}</Table.Td>
                  <Table.Td>
                    <ProviderStatusBadge status={p.status} />
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{formatNumber(p.maxPerSecond)}</Text>
                  </Table.Td>
                  <Table.Td>{formatDate(p.createdAt)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        <Paginator meta={providers.data?.meta} onChange={setPage} />
      </QueryState>
      <ConnectProviderModal
        opened={connecting}
        onClose={close}
        onCreated={(p) => {
          close();
          if (p.secret) setCreated({ id: p.id, secret: p.secret });
          else navigate(`/channels/${p.id}`);
        }}
      />
      <ProviderSecretModal
        secret={created?.secret ?? null}
        onClose={() => {
          const id = created?.id;
          setCreated(null);
          if (id) navigate(`/channels/${id}`);
        }}
      />
    </>
  );
}
