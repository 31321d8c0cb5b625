// Response shape of GET /webhook-endpoints/statistics (§10).
import type { WebhookStatistics } from '@app/domain';

/** The organization's endpoints and their finished deliveries, in all. */
export class WebhookStatisticsResponse {
  totalEndpoints: number;

  activeEndpoints: number;

  inactiveEndpoints: number;

  /** Active endpoints with deliveries and a success rate below 95. */
  failingEndpoints: number;

  totalDeliveries: number;

  /** Percent, one decimal; 0 without any delivery. */
  overallSuccessRate: number;
}

export function toWebhookStatisticsResponse(s: WebhookStatistics): WebhookStatisticsResponse {
  return {
    totalEndpoints: s.totalEndpoints,
    activeEndpoints: s.activeEndpoints,
    inactiveEndpoints: s.inactiveEndpoints,
    failingEndpoints: s.failingEndpoints,
    totalDeliveries: s.totalDeliveries,
    overallSuccessRate: s.overallSuccessRate,
  };
}
