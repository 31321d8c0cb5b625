// One endpoint: its settings, the secret placeholder and regeneration, a test event, on/off,
// delete (irreversible, confirmed), and its deliveries.
import { Badge, Button, Code, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useNavigate, useParams } from 'react-router';
import { api, dataOf, unwrap } from '../../api/client';
import { PageHeader } from '../../components/page-header';
import { QueryState } from '../../components/query-state';
import { useOrgQuery } from '../../hooks/use-org-query';
import { confirmDestructive } from '../../lib/confirm';
import { formatDateTime, formatPercent } from '../../lib/format';
import { runChange } from '../../lib/mutate';
import { Deliveries } from './deliveries';
import { EndpointFormModal } from './endpoint-form';
import { SecretModal } from './secret-modal';
import { retriesOf, SECRET_PLACEHOLDER } from './webhook-rules';

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

export function WebhookDetailPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const queries = useQueryClient();
  const [editing, { open, close }] = useDisclosure(false);
  const [secret, setSecret] = useState<string | null>(null);
  const endpoint = useOrgQuery(['webhook-endpoint', id], () =>
    dataOf(api.GET('/api/v1/user/webhook-endpoints/{id}', { params: { path: { id } } })),
  );
  const e = endpoint.data;
  const path = { params: { path: { id } } };

  const test = () =>
    runChange(
      queries,
      () => unwrap(api.POST('/api/v1/user/webhook-endpoints/{id}/test', path)),
      'Test event queued',
    );
  const toggle = (isActive: boolean) =>
    runChange(
      queries,
      () =>
        unwrap(api.PATCH('/api/v1/user/webhook-endpoints/{id}', { ...path, body: { isActive } })),
      isActive ? 'Endpoint activated' : 'Endpoint deactivated',
    );
  const regenerate = () =>
    confirmDestructive({
      title: 'Regenerate the signing secret',
      body: 'A new secret replaces the current one at once: requests signed with the old secret stop verifying on your server.',
      confirmLabel: 'Regenerate secret',
      onConfirm: async () => {
        const result = await runChange(
          queries,
          () => dataOf(api.POST('/api/v1/user/webhook-endpoints/{id}/regenerate-secret', path)),
          'Secret regenerated',
        );
        if (result) setSecret(result.secret);
      },
    });
  const remove = () =>
    confirmDestructive({
      title: 'Delete webhook endpoint',
      body: (
        <Stack gap="xs">
          <Text size="sm">
            <Code>{e?.url}</Code>
          </Text>
          <Text size="sm">
            The endpoint, its secret and its delivery history are deleted irreversibly. Events are
            no longer sent to this URL.
          </Text>
        </Stack>
      ),
      confirmLabel: 'Delete endpoint',
      onConfirm: async () => {
        const done = await runChange(
          queries,
          () => unwrap(api.DELETE('/api/v1/user/webhook-endpoints/{id}', path)),
          'Endpoint deleted',
        );
        if (done) navigate('/webhooks');
      },
    });

  return (
    <QueryState isLoading={endpoint.isLoading} error={endpoint.error}>
      {e && (
        <>
          <PageHeader
            title="Webhook endpoint"
            description={e.url}
            actions={
              <>
                <Button variant="default" onClick={() => void test()} disabled={!e.isActive}>
                  Send test event
                </Button>
                <Button variant="default" onClick={open}>
                  Edit
                </Button>
                <Button variant="default" onClick={() => void toggle(!e.isActive)}>
                  {e.isActive ? 'Deactivate' : 'Activate'}
                </Button>
                <Button color="red" variant="light" onClick={remove}>
                  Delete
                </Button>
              </>
            }
          />
          <Stack>
            <Paper withBorder p="md" radius="md">
              <SimpleGrid cols={{ base: 1, md: 3 }} spacing="md">
                <Item label="Status">
                  <Badge variant="light" color={e.isActive ? 'green' : 'gray'}>
                    {e.isActive ? 'active' : 'inactive'}
                  </Badge>
                </Item>
                <Item label="Success rate">
                  {e.totalDeliveries
                    ? `${formatPercent(e.successRate)} of ${e.totalDeliveries}`
                    : 'No delivery yet'}
                </Item>
                <Item label="Last event">{formatDateTime(e.lastTriggeredAt)}</Item>
                <Item label="Retries">
                  {retriesOf(e.maxRetries)} ({e.maxRetries} attempt{e.maxRetries === 1 ? '' : 's'}{' '}
                  in all)
                </Item>
                <Item label="Timeout">{e.timeoutSeconds} s</Item>
                <Item label="Signing secret">
                  <Group gap="xs">
                    <Code>{SECRET_PLACEHOLDER}</Code>
                    <Button size="compact-xs" variant="subtle" onClick={regenerate}>
                      Regenerate
                    </Button>
                  </Group>
                </Item>
              </SimpleGrid>
              <Title order={3} size="h5" mt="md" mb={4}>
                Events
              </Title>
              <Group gap={6}>
                {e.events.map((ev) => (
                  <Badge key={ev} variant="outline" color="gray">
                    {ev}
                  </Badge>
                ))}
              </Group>
              {e.customHeaders.length > 0 && (
                <Text size="sm" mt="sm">
                  Custom headers: {e.customHeaders.map((h) => h.key).join(', ')}
                </Text>
              )}
            </Paper>
            <Deliveries endpointId={e.id} />
          </Stack>
          {editing && (
            <EndpointFormModal
              endpoint={e}
              opened={editing}
              onClose={close}
              onSaved={() => close()}
            />
          )}
          <SecretModal secret={secret} onClose={() => setSecret(null)} />
        </>
      )}
    </QueryState>
  );
}
