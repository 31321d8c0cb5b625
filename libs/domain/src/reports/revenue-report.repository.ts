// The revenue attribution report (§11) as one SQL statement over the organization's conversions.
import { Injectable } from '@nestjs/common';
import type { OrgId } from '../common/org-id';
import { ReadDatabase } from '../database/read-database';
import { empty, join, query, raw, sql, Sql } from '../database/sql';

export interface RevenueReportWindow {
  organizationId: OrgId;
  /** Inclusive start of the window. */
  from: Date;
  /** Exclusive end of the window. */
  to: Date;
  /** Inclusive start of the previous window (same length, ending at `from`). */
  previousFrom: Date;
  /** First and last UTC day of the trend, `YYYY-MM-DD`. */
  firstDay: string;
  lastDay: string;
  channel?: string;
  campaignId?: string;
}

/**
 * The number of campaign emails delivered in [from, to), as a select producing one row with one
 * column `delivered`. The one place the report reads the message log of the send path.
 */
function deliveredCampaignEmails(w: RevenueReportWindow): Sql {
  // Delivered attempts of the organization in the window (a partial index), joined to their
  // message to keep campaign messages only. A campaign message has one recipient, and a recipient
  // has at most one delivered attempt, so this counts campaign emails delivered.
  const campaign =
    w.campaignId !== undefined ? sql` AND m.campaign_id = ${w.campaignId}::uuid` : empty;
  return sql`SELECT count(*)::bigint AS delivered
    FROM message_attempts a
    JOIN messages m ON m.id = a.message_id
   WHERE a.organization_id = ${w.organizationId} AND a.status = 'delivered'
     AND a.attempted_at >= ${w.from}::timestamptz AND a.attempted_at < ${w.to}::timestamptz
     AND m.organization_id = ${w.organizationId} AND m.campaign_id IS NOT NULL${campaign}`;
}

const DAY_MS = 86_400_000;

/**
 * Splits [from, to) into whole UTC days, read from the daily rollup, and at most two partial
 * edges, read from the conversions themselves. A window inside one day is all edge.
 */
export function windowParts(from: Date, to: Date) {
  const ceilDay = new Date(Math.ceil(from.getTime() / DAY_MS) * DAY_MS);
  const floorDay = new Date(Math.floor(to.getTime() / DAY_MS) * DAY_MS);
  if (floorDay.getTime() <= ceilDay.getTime()) {
    return { fullFromDay: day(to), fullToDay: day(to), edges: [[from, to]] as [Date, Date][] };
  }
  const edges: [Date, Date][] = [];
  if (from < ceilDay) edges.push([from, ceilDay]);
  if (floorDay < to) edges.push([floorDay, to]);
  return { fullFromDay: day(ceilDay), fullToDay: day(floorDay), edges };
}

function day(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** (day, channel, campaign_id, revenue, conversions) rows covering [from, to) exactly. */
function facts(w: RevenueReportWindow, from: Date, to: Date): Sql {
  const filters = [
    ...(w.channel !== undefined ? [sql` AND channel = ${w.channel}`] : []),
    ...(w.campaignId !== undefined ? [sql` AND campaign_id = ${w.campaignId}::uuid`] : []),
  ];
  const extra = filters.length ? join(filters, '') : empty;
  const parts = windowParts(from, to);
  const selects = [
    sql`SELECT day, channel, campaign_id, revenue, conversions
         FROM conversion_daily_stats
        WHERE organization_id = ${w.organizationId}
          AND day >= ${parts.fullFromDay}::date AND day < ${parts.fullToDay}::date${extra}`,
  ];
  for (const [a, b] of parts.edges) {
    selects.push(
      sql`SELECT (occurred_at AT TIME ZONE 'UTC')::date, channel, campaign_id, revenue, 1::bigint
           FROM conversions
          WHERE organization_id = ${w.organizationId}
            AND occurred_at >= ${a}::timestamptz AND occurred_at < ${b}::timestamptz${extra}`,
    );
  }
  return join(selects, '\n  UNION ALL\n  ');
}

/**
 * The report as one statement answering one row `{report}`. Whole UTC days come from
 * conversion_daily_stats (kept by triggers on conversions), partial edge days from conversions;
 * the current window is grouped once by (day, channel, campaign), and the overview, the daily
 * trend, byChannel and topCampaigns are derived from that; the previous window is one more
 * aggregate. Money is rounded to 2 decimals and percentages to 1 (conversionRate 2), half away
 * from zero (PostgreSQL `round(numeric, n)`).
 */
export function revenueReportStatement(w: RevenueReportWindow): Sql {
  return sql`
WITH cur AS (
  SELECT day, channel, campaign_id, sum(revenue) AS revenue, sum(conversions)::bigint AS conversions
    FROM (${facts(w, w.from, w.to)}) f
   GROUP BY 1, 2, 3
),
prev AS (
  SELECT coalesce(sum(revenue), 0) AS revenue, coalesce(sum(conversions), 0)::bigint AS conversions
    FROM (${facts(w, w.previousFrom, w.from)}) f
),
total AS (
  SELECT coalesce(sum(revenue), 0) AS revenue, coalesce(sum(conversions), 0)::bigint AS conversions
    FROM cur
),
delivered AS (
  ${deliveredCampaignEmails(w)}
),
trend AS (
  SELECT coalesce(json_agg(json_build_object(
           'date', to_char(d.day, 'YYYY-MM-DD"T"00:00:00.000"Z"'),
           'revenue', coalesce(t.revenue, 0)) ORDER BY d.day), '[]'::json) AS points
    FROM (SELECT generate_series(${w.firstDay}::date, ${w.lastDay}::date, interval '1 day')::date AS day) d
    LEFT JOIN (SELECT day, sum(revenue) AS revenue FROM cur GROUP BY day) t ON t.day = d.day
),
by_channel AS (
  SELECT coalesce(json_agg(json_build_object('channel', channel, 'revenue', revenue)
           ORDER BY revenue DESC, channel), '[]'::json) AS rows
    FROM (SELECT channel, sum(revenue) AS revenue FROM cur GROUP BY channel) c
),
top AS (
  SELECT coalesce(json_agg(json_build_object(
           'campaignId', x.campaign_id,
           'name', x.name,
           'revenue', x.revenue,
           'conversions', x.conversions,
           'avgOrderValue', round(x.revenue / x.conversions, 2),
           'conversionRate', CASE WHEN x.recipients > 0
                                  THEN round(x.conversions * 100.0 / x.recipients, 2) ELSE 0 END)
           ORDER BY x.revenue DESC, x.conversions DESC, x.name, x.campaign_id), '[]'::json) AS rows
    FROM (
      SELECT r.campaign_id, c.name, c.recipient_count AS recipients,
             sum(r.revenue) AS revenue, sum(r.conversions)::bigint AS conversions
        FROM cur r
        JOIN campaigns c ON c.organization_id = ${w.organizationId} AND c.id = r.campaign_id
       GROUP BY r.campaign_id, c.name, c.recipient_count
       ORDER BY sum(r.revenue) DESC, sum(r.conversions) DESC, c.name, r.campaign_id
       LIMIT 10) x
)
SELECT json_build_object(
  'overview', json_build_object(
    'totalRevenue', total.revenue,
    'totalConversions', total.conversions,
    'avgOrderValue', CASE WHEN total.conversions > 0
                          THEN round(total.revenue / total.conversions, 2) ELSE 0 END,
    'revenuePerEmail', CASE WHEN delivered.delivered > 0
                            THEN round(total.revenue / delivered.delivered, 2) ELSE 0 END,
    'trends', json_build_object(
      'revenue', ${trend('total.revenue', 'prev.revenue')},
      'conversions', ${trend('total.conversions', 'prev.conversions')})),
  'trend', trend.points,
  'byChannel', by_channel.rows,
  'topCampaigns', top.rows
) AS report
FROM total, prev, delivered, trend, by_channel, top`;
}

/**
 * {direction, value}: previous 0 and current > 0 → up 100; both 0 → neutral 0; otherwise the
 * direction of the change and its magnitude in percent of the previous window, one decimal.
 */
function trend(current: string, previous: string): Sql {
  const [cur, prev] = [raw(current), raw(previous)];
  return sql`CASE
      WHEN ${prev} = 0 AND ${cur} > 0 THEN json_build_object('direction', 'up', 'value', 100)
      WHEN ${prev} = 0 THEN json_build_object('direction', 'neutral', 'value', 0)
      ELSE json_build_object(
        'direction', CASE WHEN ${cur} > ${prev} THEN 'up' WHEN ${cur} < ${prev} THEN 'down' ELSE 'neutral' END,
        'value', round(abs(${cur} - ${prev}) * 100.0 / ${prev}, 1))
    END`;
}

@Injectable()
export class RevenueReportRepository {
  constructor(private readonly reads: ReadDatabase) {}

  /**
   * The report document of the organization for the window. It runs on the read replica when one
   * is configured: one statement aggregating conversions and delivered attempts that happened
   * already, in a GET that writes nothing, so a few seconds of lag only leave out what was
   * recorded in those seconds.
   */
  async report<T>(
    organizationId: OrgId,
    w: Omit<RevenueReportWindow, 'organizationId'>,
  ): Promise<T> {
    const [row] = await query<{ report: T }>(
      await this.reads.connection(),
      revenueReportStatement({ ...w, organizationId }),
    );
    return row.report;
  }
}
