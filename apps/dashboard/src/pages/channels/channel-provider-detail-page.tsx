// One provider account: its status and settings; the callback URL for providers that need it in
// their console; make default, disable/enable; change its name, throughput, settings and
// (write-only) credentials; send a test; delete (confirmed).
import { Alert, Button, Code, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import { IconInfoCircle } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useNavigate, useParams } from 'react-router';
import { api, dataOf, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { PageHeader } from '../../components/page-header';
import { QueryState } from '../../components/query-state';
import { useOrgQuery } from '../../hooks/use-org-query';
import { confirmDestructive } from '../../lib/confirm';
import { formatDate, formatNumber } from '../../lib/format';
import { runChange } from '../../lib/mutate';
import {
  CHANNEL_LABEL,
  type ConnectableProvider,
  PROVIDER_LABEL,
  PROVIDER_SPECS,
} from './provider-specs';
import { CallbackUrl } from './callback-url';
import { ProviderEditForm } from './provider-edit-form';
import { ProviderStatusBadge, STATUS_HELP } from './provider-status';
import { TestSend } from './test-send';

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

/** A stored setting under its form label (`settings.from` → From), else its API name. */
function settingLabel(provider: ConnectableProvider | null, name: string): string {
  if (name === 'apiBaseUrl') return 'API base URL';
  const field =
    provider && PROVIDER_SPECS[provider].fields.find((f) => f.path === `settings.${name}`);
  return field ? field.label : name;
}

/** Alert titles take their colour's shade, under 4.5:1 on the tint: keep them in text colour. */
const ALERT_STYLES = { title: { color: 'var(--mantine-color-text)' } };

type UpdateBody = components['schemas']['UpdateChannelProviderDto'];

export function ChannelProviderDetailPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const queries = useQueryClient();
  const account = useOrgQuery(['channel-provider', id], () =>
    dataOf(api.GET('/api/v1/user/channel-providers/{id}', { params: { path: { id } } })),
  );
  const a = account.data;
  const path = { params: { path: { id } } };
  const patch = (body: Pick<UpdateBody, 'isDefault' | 'status'>, done: string) =>
    void runChange(
      queries,
      () => dataOf(api.PATCH('/api/v1/user/channel-providers/{id}', { ...path, body })),
      done,
    );
  const connectable =
    a && a.provider in PROVIDER_SPECS ? (a.provider as ConnectableProvider) : null;
  const callbackHelp = connectable ? PROVIDER_SPECS[connectable].callbackHelp : undefined;

  const remove = () =>
    confirmDestructive({
      title: 'Delete provider',
      body: (
        <Stack gap="xs">
          <Text size="sm">
            <b>{a?.name}</b> and its stored credentials are deleted irreversibly.
          </Text>
          <Text size="sm">
            {a?.isDefault
              ? `It is the default for ${CHANNEL_LABEL[a.channel]}: the channel’s oldest remaining account becomes the default, and with none left, ${CHANNEL_LABEL[a.channel]} messages have no provider to go through.`
              : 'Nothing is sent through it any more. Connecting it again needs its credentials again.'}
          </Text>
        </Stack>
      ),
      confirmLabel: 'Delete provider',
      onConfirm: async () => {
        const done = await runChange(
          queries,
          () => unwrap(api.DELETE('/api/v1/user/channel-providers/{id}', path)),
          'Provider deleted',
        );
        if (done) navigate('/channels');
      },
    });

  return (
    <QueryState isLoading={account.isLoading} error={account.error}>
      {a && (
        <>
          <PageHeader
            title={a.name}
            description={`${PROVIDER_LABEL[a.provider] ?? a.provider} · ${CHANNEL_LABEL[a.channel]}`}
            actions={
              <>
                {!a.isDefault && (
                  <Button
                    variant="light"
                    onClick={() => patch({ isDefault: true }, 'Default changed')}
                  >
                    Make default
                  </Button>
                )}
                {a.status === 'disabled' ? (
                  <Button
                    variant="light"
                    onClick={() => patch({ status: 'active' }, 'Provider enabled')}
                  >
                    Enable
                  </Button>
                ) : (
                  <Button
                    variant="light"
                    color="gray"
                    onClick={() => patch({ status: 'disabled' }, 'Provider disabled')}
                  >
                    Disable
                  </Button>
                )}
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
                  <ProviderStatusBadge status={a.status} testId="provider-status" />
                </Item>
                <Item label="Default">
                  <span data-testid="provider-default">
                    {a.isDefault ? `Yes, for ${CHANNEL_LABEL[a.channel]}` : 'No'}
                  </span>
                </Item>
                <Item label="Messages a second">{formatNumber(a.maxPerSecond)}</Item>
                <Item label="Added">{formatDate(a.createdAt)}</Item>
                <Item label="Credentials">
                  {a.hasCredentials ? 'Stored, encrypted; never shown' : 'None'}
                </Item>
                {Object.entries(a.settings).map(([k, v]) => (
                  <Item key={k} label={settingLabel(connectable, k)}>
                    <Code style={{ wordBreak: 'break-all' }}>{String(v)}</Code>
                  </Item>
                ))}
              </SimpleGrid>
            </Paper>
            {a.status !== 'active' && (
              <Alert
                color={a.status === 'failing' ? 'red' : 'gray'}
                icon={<IconInfoCircle size={18} />}
                styles={ALERT_STYLES}
                title={a.status === 'failing' ? 'Failing' : 'Disabled'}
              >
                {STATUS_HELP[a.status]}
              </Alert>
            )}
            {callbackHelp && <CallbackUrl id={a.id} help={callbackHelp} />}
            <ProviderEditForm account={a} provider={connectable} />
            <TestSend account={a} />
          </Stack>
        </>
      )}
    </QueryState>
  );
}
