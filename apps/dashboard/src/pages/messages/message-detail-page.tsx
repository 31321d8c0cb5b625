// One message: per recipient, its delivery attempts and engagement events in time order.
import {
  Anchor,
  CopyButton,
  Button,
  Group,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  Timeline,
  Title,
} from '@mantine/core';
import { IconMailForward, IconEye } from '@tabler/icons-react';
import { Link, useParams } from 'react-router';
import { api, dataOf } from '../../api/client';
import type { components } from '../../api/schema';
import { PageHeader } from '../../components/page-header';
import { EmptyState, QueryState } from '../../components/query-state';
import { useOrgQuery } from '../../hooks/use-org-query';
import { formatDateTime } from '../../lib/format';
import { channelLabel, MessageStatusBadge } from './message-status';

type Schemas = components['schemas'];
type Message = Schemas['MessageResponse'];
type DeliveryAttempt = Schemas['DeliveryAttemptResponse'];
type EngagementEvent = Schemas['EngagementEventResponse'];

type Entry =
  | { at: string; kind: 'attempt'; a: DeliveryAttempt }
  | { at: string; kind: 'event'; e: EngagementEvent };

function timelineOf(m: Message, recipient: string): Entry[] {
  const entries: Entry[] = [
    ...m.deliveryAttempts
      .filter((a) => a.recipient === recipient)
      .map((a) => ({ at: a.attemptedAt, kind: 'attempt' as const, a })),
    ...m.engagementEvents
      .filter((e) => e.recipient === recipient)
      .map((e) => ({ at: e.occurredAt, kind: 'event' as const, e })),
  ];
  return entries.sort((x, y) => x.at.localeCompare(y.at));
}

function Detail({ label, value, copy }: { label: string; value: string | null; copy?: boolean }) {
  return (
    <div>
      <Text size="xs" c="dimmed" fw={600} tt="uppercase">
        {label}
      </Text>
      <Group gap={6} wrap="nowrap">
        <Text size="sm" style={{ wordBreak: 'break-all' }}>
          {value ?? '—'}
        </Text>
        {copy && value && (
          <CopyButton value={value}>
            {({ copied, copy: doCopy }) => (
              <Button
                size="compact-xs"
                variant="subtle"
                onClick={doCopy}
                aria-label={`Copy ${label}`}
              >
                {copied ? 'Copied' : 'Copy'}
              </Button>
            )}
          </CopyButton>
        )}
      </Group>
    </div>
  );
}

/** Where an email attempt went: the MX host and the address it left from. */
function hostOf(a: DeliveryAttempt): string {
  return `${a.mxHost ?? 'no host'}${a.outboundIp ? ` from ${a.outboundIp}` : ''}`;
}

/** What the provider said of an SMS or push attempt beyond its text: its code, the segments. */
function providerOf(a: DeliveryAttempt): string {
  const parts = [
    a.providerCode ? `provider code ${a.providerCode}` : null,
    a.segments ? `${a.segments} segment${a.segments === 1 ? '' : 's'}` : null,
  ].filter(Boolean);
  return parts.length ? parts.join(' · ') : 'through the provider';
}

function RecipientTimeline({ m, recipient }: { m: Message; recipient: string }) {
  const entries = timelineOf(m, recipient);
  const email = (m.channel ?? 'email') === 'email';
  return (
    <Paper withBorder p="md" radius="md" data-testid={`recipient-${recipient}`}>
      <Title order={2} size="h4" mb="md">
        {recipient}
      </Title>
      {entries.length === 0 ? (
        <Text size="sm" c="dimmed">
          No attempt yet: the message is queued for this recipient.
        </Text>
      ) : (
        <Timeline bulletSize={24} lineWidth={2}>
          {entries.map((x, i) =>
            x.kind === 'attempt' ? (
              <Timeline.Item
                key={i}
                bullet={<IconMailForward size={14} />}
                title={<MessageStatusBadge status={x.a.status} />}
              >
                <Text size="sm">
                  {[x.a.smtpCode, x.a.smtpMessage].filter(Boolean).join(' ') ||
                    (email ? 'No SMTP reply' : 'No provider reply')}
                </Text>
                <Text size="xs" c="dimmed">
                  {formatDateTime(x.at)} · {email ? hostOf(x.a) : providerOf(x.a)} · retry{' '}
                  {x.a.retryCount}
                </Text>
              </Timeline.Item>
            ) : (
              <Timeline.Item
                key={i}
                bullet={<IconEye size={14} />}
                title={<MessageStatusBadge status={x.e.type} />}
              >
                {x.e.url && <Text size="sm">{x.e.url}</Text>}
                <Text size="xs" c="dimmed">
                  {formatDateTime(x.at)}
                  {x.e.userAgent ? ` · ${x.e.userAgent}` : ''}
                </Text>
              </Timeline.Item>
            ),
          )}
        </Timeline>
      )}
    </Paper>
  );
}

export function MessageDetailPage() {
  const { jobId = '' } = useParams();
  const message = useOrgQuery(
    ['message', jobId],
    () => dataOf(api.GET('/api/v1/user/messages/{jobId}', { params: { path: { jobId } } })),
    { refetchInterval: (m) => (m && ['queued', 'deferred'].includes(m.status) ? 3000 : false) },
  );
  const m = message.data;
  return (
    <QueryState isLoading={message.isLoading} error={message.error}>
      {m && (
        <>
          <PageHeader
            title="Message"
            description={`Sent ${formatDateTime(m.createdAt)} from ${m.senderAddress}`}
            actions={<MessageStatusBadge status={m.status} />}
          />
          <Stack>
            <Paper withBorder p="md" radius="md">
              <SimpleGrid cols={{ base: 1, md: 3 }}>
                <Detail label="Channel" value={channelLabel(m.channel)} />
                <Detail label="Job id" value={m.jobId} copy />
                <Detail label="Message-ID" value={m.messageId} copy />
                <Detail label="Kept for" value={`${m.retentionDays} days`} />
                {m.campaignId && (
                  <div>
                    <Text size="xs" c="dimmed" fw={600} tt="uppercase">
                      Campaign
                    </Text>
                    <Anchor component={Link} to={`/campaigns/${m.campaignId}`} size="sm">
                      Open the campaign
                    </Anchor>
                  </div>
                )}
                {m.contactId && (
                  <div>
                    <Text size="xs" c="dimmed" fw={600} tt="uppercase">
                      Contact
                    </Text>
                    <Anchor component={Link} to={`/contacts/${m.contactId}`} size="sm">
                      Open the contact
                    </Anchor>
                  </div>
                )}
              </SimpleGrid>
            </Paper>
            {m.recipients.length === 0 ? (
              <EmptyState title="No recipient" />
            ) : (
              m.recipients.map((r) => <RecipientTimeline key={r} m={m} recipient={r} />)
            )}
          </Stack>
        </>
      )}
    </QueryState>
  );
}
