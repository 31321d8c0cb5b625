// API keys: scopes and limits, the value shown once at creation, revoke.
import {
  Alert,
  Badge,
  Button,
  Code,
  CopyButton,
  Group,
  Modal,
  Stack,
  Table,
  Text,
  Tooltip,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { IconAlertTriangle, IconPlus } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, pageOf, unwrap } from '../../api/client';
import { scopeValues } from '../../api/schema-values';
import type { ApiKey } from '../../api/types';
import { PageHeader } from '../../components/page-header';
import { Paginator } from '../../components/paginator';
import { EmptyState, QueryState } from '../../components/query-state';
import { useOrgQuery } from '../../hooks/use-org-query';
import { confirmDestructive } from '../../lib/confirm';
import { formatCount, formatDate, formatDateTime } from '../../lib/format';
import { runChange } from '../../lib/mutate';
import { useQueryState } from '../../lib/use-page';
import { NewKeyModal } from './new-key-modal';

function KeyValueModal({ value, onClose }: { value: string | null; onClose: () => void }) {
  return (
    <Modal
      opened={value !== null}
      onClose={onClose}
      title="Your new API key"
      closeOnClickOutside={false}
      size="lg"
    >
      <Stack>
        <Alert color="yellow" icon={<IconAlertTriangle size={18} />}>
          Copy the key now: it is shown only this once. Only its first characters are kept for
          display.
        </Alert>
        <Code block data-testid="api-key-value" style={{ wordBreak: 'break-all' }}>
          {value}
        </Code>
        <Group justify="space-between">
          <CopyButton value={value ?? ''}>
            {({ copied, copy }) => <Button onClick={copy}>{copied ? 'Copied' : 'Copy key'}</Button>}
          </CopyButton>
          <Button variant="default" onClick={onClose}>
            I have stored it
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function keyState(k: ApiKey): { label: string; color: string } {
  if (k.revokedAt) return { label: 'revoked', color: 'gray' };
  if (k.expiresAt && new Date(k.expiresAt) <= new Date())
    return { label: 'expired', color: 'orange' };
  return { label: 'active', color: 'green' };
}

export function ApiKeysPage() {
  const queries = useQueryClient();
  const [creating, { open, close }] = useDisclosure(false);
  const [value, setValue] = useState<string | null>(null);
  const { page, setPage } = useQueryState([]);
  const keys = useOrgQuery(['api-keys', page], () =>
    pageOf(api.GET('/api/v1/user/api-keys', { params: { query: { page, limit: 20 } } })),
  );
  const rows = keys.data?.data ?? [];
  const revoke = (k: ApiKey) =>
    confirmDestructive({
      title: 'Revoke API key',
      body: `Requests with “${k.name}” (${k.prefix}…) are refused from now on. This cannot be undone.`,
      confirmLabel: 'Revoke key',
      onConfirm: () =>
        void runChange(
          queries,
          () =>
            unwrap(api.DELETE('/api/v1/user/api-keys/{id}', { params: { path: { id: k.id } } })),
          'Key revoked',
        ),
    });

  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys let your servers call the API and the SMTP relay for this organization."
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={open}>
            New API key
          </Button>
        }
      />
      <QueryState
        isLoading={keys.isLoading}
        error={keys.error}
        isEmpty={rows.length === 0}
        empty={<EmptyState title="No API keys yet" />}
      >
        <Table.ScrollContainer minWidth={900}>
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th>
                <Table.Th>Key</Table.Th>
                <Table.Th>Scopes</Table.Th>
                <Table.Th>Limits</Table.Th>
                <Table.Th>Last used</Table.Th>
                <Table.Th>Expires</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((k) => {
                const state = keyState(k);
                const all = scopeValues.every((s) => k.scopes.includes(s));
                return (
                  <Table.Tr key={k.id}>
                    <Table.Td fw={500}>{k.name}</Table.Td>
                    <Table.Td>
                      <Code>{k.prefix}…</Code>
                    </Table.Td>
                    <Table.Td>
                      <Tooltip label={k.scopes.join(', ')} multiline w={280}>
                        <Text size="sm" tabIndex={0}>
                          {all
                            ? 'all scopes'
                            : `${k.scopes.length} scope${k.scopes.length === 1 ? '' : 's'}`}
                        </Text>
                      </Tooltip>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm">
                        {formatCount(k.rateLimitPerMinute)}/min
                        {k.rateLimitPerDay ? `, ${formatCount(k.rateLimitPerDay)}/day` : ''}
                      </Text>
                    </Table.Td>
                    <Table.Td>{formatDateTime(k.lastUsedAt)}</Table.Td>
                    <Table.Td>{k.expiresAt ? formatDate(k.expiresAt) : 'never'}</Table.Td>
                    <Table.Td>
                      <Badge variant="light" color={state.color}>
                        {state.label}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      {!k.revokedAt && (
                        <Button
                          size="xs"
                          variant="light"
                          color="red"
                          onClick={() => revoke(k)}
                          aria-label={`Revoke ${k.name}`}
                        >
                          Revoke
                        </Button>
                      )}
                    </Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
        <Paginator meta={keys.data?.meta} onChange={setPage} />
      </QueryState>
      <NewKeyModal
        opened={creating}
        onClose={close}
        onCreated={(v) => {
          close();
          setValue(v);
        }}
      />
      <KeyValueModal value={value} onClose={() => setValue(null)} />
    </>
  );
}
