// A campaign by channel: its recipients on each channel by fan-out state (pending, held, sent,
// failed), and their messages by delivery status, as bar charts each with its numbers as a table.
import { BarChart } from '@mantine/charts';
import { Paper, SimpleGrid, Text, Title } from '@mantine/core';
import type { MessageStatus } from '../../api/types';
import { ChartDataTable } from '../../components/chart-data-table';
import { formatCount } from '../../lib/format';
import { type CampaignChannel, channelLabel, type ChannelSummary } from './campaign-channels';

const STATES = [
  { name: 'pending', label: 'Pending', color: 'gray.6' },
  { name: 'held', label: 'Held', color: 'yellow.6' },
  { name: 'sent', label: 'Sent', color: 'teal.7' },
  { name: 'failed', label: 'Failed', color: 'red.7' },
] as const;

/** Colours of the message statuses a campaign's messages usually have; others take a fallback. */
const STATUS_COLORS: Partial<Record<MessageStatus, string>> = {
  delivered: 'teal.7',
  sent: 'indigo.6',
  deferred: 'yellow.6',
  queued: 'gray.5',
  bounced: 'orange.7',
  failed: 'red.7',
  suppressed: 'grape.6',
};
const FALLBACK_COLORS = ['cyan.6', 'lime.7', 'pink.6', 'blue.7'];

export function CampaignByChannel(props: {
  channels: CampaignChannel[];
  byChannel: Partial<Record<CampaignChannel, ChannelSummary>>;
}) {
  // The campaign's order first, then any channel the counts name beyond it.
  const order = [
    ...props.channels,
    ...(Object.keys(props.byChannel) as CampaignChannel[]).filter(
      (c) => !props.channels.includes(c),
    ),
  ];
  const rows = order.map((c) => ({ channel: c, summary: props.byChannel[c] }));
  const statuses = [...new Set(rows.flatMap((r) => Object.keys(r.summary?.delivery ?? {})))].filter(
    (st) => rows.some((r) => (r.summary?.delivery[st] ?? 0) > 0),
  );
  const stateData = rows.map(({ channel, summary }) => ({
    channel: channelLabel(channel),
    ...Object.fromEntries(STATES.map((s) => [s.name, summary?.[s.name] ?? 0])),
  }));
  const deliveryData = rows.map(({ channel, summary }) => ({
    channel: channelLabel(channel),
    ...Object.fromEntries(statuses.map((st) => [st, summary?.delivery[st] ?? 0])),
  }));

  return (
    <SimpleGrid cols={{ base: 1, md: 2 }}>
      <Paper withBorder p="md" radius="md">
        <Title order={2} size="h4" mb="md">
          Recipients by channel
        </Title>
        <BarChart
          h={220}
          data={stateData}
          dataKey="channel"
          type="stacked"
          series={STATES.map((s) => ({ name: s.name, label: s.label, color: s.color }))}
          valueFormatter={(v) => formatCount(v)}
          withLegend
        />
        <ChartDataTable
          caption="Recipients by channel"
          columns={['Channel', 'Recipients', ...STATES.map((s) => s.label)]}
          rows={rows.map(({ channel, summary }) => [
            channelLabel(channel),
            summary?.recipients ?? 0,
            ...STATES.map((s) => summary?.[s.name] ?? 0),
          ])}
          testId="campaign-channel-table"
        />
      </Paper>
      <Paper withBorder p="md" radius="md">
        <Title order={2} size="h4" mb="md">
          Delivery by channel
        </Title>
        {statuses.length === 0 ? (
          <Text size="sm" c="dimmed">
            No message has a delivery status yet.
          </Text>
        ) : (
          <BarChart
            h={220}
            data={deliveryData}
            dataKey="channel"
            type="stacked"
            series={statuses.map((st, i) => ({
              name: st,
              color:
                STATUS_COLORS[st as MessageStatus] ?? FALLBACK_COLORS[i % FALLBACK_COLORS.length],
            }))}
            valueFormatter={(v) => formatCount(v)}
            withLegend
          />
        )}
        <ChartDataTable
          caption="Messages by channel and delivery status"
          columns={['Channel', ...statuses]}
          rows={rows.map(({ channel, summary }) => [
            channelLabel(channel),
            ...statuses.map((st) => summary?.delivery[st] ?? 0),
          ])}
          testId="campaign-delivery-table"
        />
      </Paper>
    </SimpleGrid>
  );
}
