// Counts of the organization, email sent per day over the last week and webhook health.
import { BarChart } from '@mantine/charts';
import { Paper, SimpleGrid, Text, Title } from '@mantine/core';
import { api, dataOf, pageOf } from '../../api/client';
import { ChartDataTable } from '../../components/chart-data-table';
import { PageHeader } from '../../components/page-header';
import { ErrorAlert, Loading } from '../../components/query-state';
import { StatCard } from '../../components/stat-card';
import { useOrgQuery } from '../../hooks/use-org-query';
import { formatCount, formatPercent } from '../../lib/format';

const DAYS = 7;

/** Totals only: each is one request for one row, reading meta.total. */
async function totals() {
  const one = { params: { query: { limit: 1 } } };
  const [contacts, lists, segments, messages] = await Promise.all([
    pageOf(api.GET('/api/v1/user/contacts', one)),
    pageOf(api.GET('/api/v1/user/contact-lists', one)),
    pageOf(api.GET('/api/v1/user/contact-segments', one)),
    pageOf(api.GET('/api/v1/user/messages', one)),
  ]);
  return {
    contacts: contacts.meta.total,
    lists: lists.meta.total,
    segments: segments.meta.total,
    messages: messages.meta.total,
  };
}

/** Messages created on each of the last DAYS UTC days (one count per day). */
async function sendsPerDay() {
  const today = new Date();
  today.setUTCHours(0, 0, 0, 0);
  const days = Array.from({ length: DAYS }, (_, i) => {
    const start = new Date(today.getTime() - (DAYS - 1 - i) * 86_400_000);
    return { start, end: new Date(start.getTime() + 86_400_000 - 1) };
  });
  return Promise.all(
    days.map(async ({ start, end }) => {
      const page = await pageOf(
        api.GET('/api/v1/user/messages', {
          params: { query: { limit: 1, from: start.toISOString(), to: end.toISOString() } },
        }),
      );
      const label = start.toLocaleDateString(undefined, {
        month: 'short',
        day: 'numeric',
        timeZone: 'UTC',
      });
      return { day: label, messages: page.meta.total };
    }),
  );
}

export function OverviewPage() {
  const counts = useOrgQuery(['overview', 'totals'], totals);
  const perDay = useOrgQuery(['overview', 'per-day'], sendsPerDay);
  const webhooks = useOrgQuery(['overview', 'webhooks'], () =>
    dataOf(api.GET('/api/v1/user/webhook-endpoints/statistics')),
  );

  return (
    <>
      <PageHeader title="Overview" description="Your organization at a glance." />
      {counts.isLoading ? (
        <Loading />
      ) : counts.error ? (
        <ErrorAlert error={counts.error} />
      ) : (
        <SimpleGrid cols={{ base: 2, md: 4 }} mb="lg">
          <StatCard
            label="Contacts"
            value={formatCount(counts.data?.contacts)}
            testId="overview-contacts"
          />
          <StatCard label="Lists" value={formatCount(counts.data?.lists)} />
          <StatCard label="Segments" value={formatCount(counts.data?.segments)} />
          <StatCard label="Messages" value={formatCount(counts.data?.messages)} />
        </SimpleGrid>
      )}
      <Paper withBorder p="md" radius="md" mb="lg">
        <Title order={2} size="h4" mb="md">
          Email sent per day
        </Title>
        {perDay.isLoading ? (
          <Loading />
        ) : perDay.error ? (
          <ErrorAlert error={perDay.error} />
        ) : (
          <BarChart
            h={220}
            data={perDay.data ?? []}
            dataKey="day"
            series={[{ name: 'messages', label: 'Messages', color: 'indigo.6' }]}
          />
        )}
        {perDay.data && (
          <ChartDataTable
            caption="Messages created per UTC day"
            columns={['Day', 'Messages']}
            rows={perDay.data.map((d) => [d.day, formatCount(d.messages)])}
          />
        )}
      </Paper>
      <Title order={2} size="h4" mb="sm">
        Webhooks
      </Title>
      {webhooks.error ? (
        <ErrorAlert error={webhooks.error} />
      ) : (
        <SimpleGrid cols={{ base: 2, md: 4 }}>
          <StatCard label="Endpoints" value={formatCount(webhooks.data?.totalEndpoints)} />
          <StatCard label="Active" value={formatCount(webhooks.data?.activeEndpoints)} />
          <StatCard
            label="Failing"
            value={formatCount(webhooks.data?.failingEndpoints)}
            extra={
              <Text size="xs" c="dimmed">
                below 95 % success
              </Text>
            }
          />
          <StatCard
            label="Success rate"
            value={webhooks.data ? formatPercent(webhooks.data.overallSuccessRate) : '—'}
          />
        </SimpleGrid>
      )}
    </>
  );
}
