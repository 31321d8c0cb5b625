// The revenue attribution report (§11): window picker, the overview with trend arrows, a daily
// trend line and by-channel and top-campaign bars, each with its numbers as a table.
import { BarChart, LineChart } from '@mantine/charts';
import { Group, Paper, SegmentedControl, Select, SimpleGrid, Text, Title } from '@mantine/core';
import { IconArrowDownRight, IconArrowRight, IconArrowUpRight } from '@tabler/icons-react';
import { api, dataOf } from '../../api/client';
import type { components } from '../../api/schema';
import { channelValues } from '../../api/schema-values';
import type { Channel } from '../../api/types';
import { PageHeader } from '../../components/page-header';
import { EmptyState, QueryState } from '../../components/query-state';
import { StatCard } from '../../components/stat-card';
import { useOrgQuery } from '../../hooks/use-org-query';
import { formatCount, formatMoney, formatNumber, formatUtcDay } from '../../lib/format';
import { compact, useQueryState } from '../../lib/use-page';
import { ChartDataTable } from '../../components/chart-data-table';

type Trend = components['schemas']['RevenueTrendResponse'];

const WINDOWS = ['7', '30', '90'];

/** The report's window of `days` UTC days ending today, as the API's YYYY-MM-DD bounds. */
export function windowOf(days: number, now = new Date()): { from: string; to: string } {
  const to = now.toISOString().slice(0, 10);
  const from = new Date(
    Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (days - 1)),
  );
  return { from: from.toISOString().slice(0, 10), to };
}

function TrendArrow({ trend, label }: { trend: Trend; label: string }) {
  const Icon =
    trend.direction === 'up'
      ? IconArrowUpRight
      : trend.direction === 'down'
        ? IconArrowDownRight
        : IconArrowRight;
  // The arrow carries the colour; the figure stays dark (green text on white is under 4.5:1).
  const color =
    trend.direction === 'up' ? 'green-9' : trend.direction === 'down' ? 'red-9' : 'gray-7';
  const sign = trend.direction === 'down' ? '−' : trend.direction === 'up' ? '+' : '';
  return (
    <Group
      gap={2}
      role="img"
      aria-label={`${label} ${trend.direction} ${trend.value} % against the previous period`}
      data-testid={`trend-${label}`}
    >
      <Icon size={16} aria-hidden color={`var(--mantine-color-${color})`} />
      <Text size="sm" fw={600} aria-hidden>
        {sign}
        {formatNumber(Math.abs(trend.value))} %
      </Text>
    </Group>
  );
}

export function RevenuePage() {
  const { values, setFilters } = useQueryState(['days', 'channel'] as const);
  const days = Number(values.days || '30');
  const report = useOrgQuery(['revenue', days, values.channel], () =>
    dataOf(
      api.GET('/api/v1/user/reports/revenue-attribution', {
        params: { query: compact({ ...windowOf(days), channel: values.channel as Channel }) },
      }),
    ),
  );
  const r = report.data;
  const trend = (r?.trend ?? []).map((p) => ({ day: formatUtcDay(p.date), revenue: p.revenue }));

  return (
    <>
      <PageHeader
        title="Revenue"
        description="Orders attributed to your campaigns, by day, channel and campaign."
        actions={
          <>
            <Select
              aria-label="Channel"
              placeholder="All channels"
              data={[...channelValues]}
              value={values.channel || null}
              onChange={(v) => setFilters({ channel: v ?? '' })}
              clearable
              w={150}
            />
            <SegmentedControl
              aria-label="Window"
              value={String(days)}
              onChange={(v) => setFilters({ days: v === '30' ? '' : v })}
              data={WINDOWS.map((w) => ({ value: w, label: `${w} days` }))}
            />
          </>
        }
      />
      <QueryState isLoading={report.isLoading} error={report.error}>
        {r && (
          <>
            <SimpleGrid cols={{ base: 2, md: 4 }} mb="lg">
              <StatCard
                label="Revenue"
                value={formatMoney(r.overview.totalRevenue)}
                testId="revenue-total"
                extra={<TrendArrow trend={r.overview.trends.revenue} label="revenue" />}
              />
              <StatCard
                label="Conversions"
                value={formatCount(r.overview.totalConversions)}
                testId="revenue-conversions"
                extra={<TrendArrow trend={r.overview.trends.conversions} label="conversions" />}
              />
              <StatCard
                label="Average order"
                value={formatMoney(r.overview.avgOrderValue)}
                testId="revenue-aov"
              />
              <StatCard
                label="Revenue per email"
                value={formatMoney(r.overview.revenuePerEmail)}
                testId="revenue-per-email"
              />
            </SimpleGrid>
            <Paper withBorder p="md" radius="md" mb="lg">
              <Title order={2} size="h4" mb="md">
                Revenue per day
              </Title>
              <LineChart
                h={260}
                data={trend}
                dataKey="day"
                series={[{ name: 'revenue', label: 'Revenue', color: 'indigo.7' }]}
                valueFormatter={(v) => formatMoney(v)}
                curveType="monotone"
                withDots={days <= 30}
              />
              <ChartDataTable
                caption="Revenue per UTC day"
                columns={['Day', 'Revenue']}
                rows={trend.map((p) => [p.day, formatMoney(p.revenue)])}
                testId="revenue-trend-table"
              />
            </Paper>
            {r.overview.totalConversions === 0 ? (
              <EmptyState title="No conversions in this window">
                Conversions are recorded through POST /api/v1/user/conversions.
              </EmptyState>
            ) : (
              <SimpleGrid cols={{ base: 1, md: 2 }}>
                <Paper withBorder p="md" radius="md">
                  <Title order={2} size="h4" mb="md">
                    By channel
                  </Title>
                  <BarChart
                    h={240}
                    data={r.byChannel}
                    dataKey="channel"
                    series={[{ name: 'revenue', label: 'Revenue', color: 'teal.7' }]}
                    valueFormatter={(v) => formatMoney(v)}
                  />
                  <ChartDataTable
                    caption="Revenue by channel"
                    columns={['Channel', 'Revenue']}
                    rows={r.byChannel.map((c) => [c.channel, formatMoney(c.revenue)])}
                    testId="revenue-channel-table"
                  />
                </Paper>
                <Paper withBorder p="md" radius="md">
                  <Title order={2} size="h4" mb="md">
                    Top campaigns
                  </Title>
                  <BarChart
                    h={240}
                    data={r.topCampaigns}
                    dataKey="name"
                    orientation="vertical"
                    yAxisProps={{ width: 120 }}
                    series={[{ name: 'revenue', label: 'Revenue', color: 'indigo.7' }]}
                    valueFormatter={(v) => formatMoney(v)}
                  />
                  <ChartDataTable
                    caption="Top campaigns by revenue"
                    columns={[
                      'Campaign',
                      'Revenue',
                      'Conversions',
                      'Average order',
                      'Conversion rate',
                    ]}
                    rows={r.topCampaigns.map((c) => [
                      c.name,
                      formatMoney(c.revenue),
                      formatCount(c.conversions),
                      formatMoney(c.avgOrderValue),
                      `${formatNumber(c.conversionRate)} %`,
                    ])}
                    testId="revenue-campaign-table"
                  />
                </Paper>
              </SimpleGrid>
            )}
          </>
        )}
      </QueryState>
    </>
  );
}
