// Helpers shared by the checks that send email: one API send, and the exactly-once ledger that
// compares what the API acknowledged with what reached the SMTP sink.
import type { Platform } from '../support/harness';
import type { ApiClient, ApiResult } from '../support/api-client';
import { tally } from '../support/util';
import { waitFor } from '../../support/wait-for';

export interface Acknowledged {
  messageId: string;
  at: number;
}

export async function sendOne(
  http: ApiClient,
  to: string,
  subject: string,
  timeoutMs?: number,
): Promise<ApiResult<{ data?: { messageId: string; jobId: string } }>> {
  return http.post<{ data?: { messageId: string; jobId: string } }>(
    '/api/v1/send',
    {
      from: 'Resilience <suite@resilience.example>',
      to: [to],
      subject,
      text: `Body of ${subject}`,
    },
    timeoutMs,
  );
}

export interface Ledger {
  acknowledged: number;
  deliveredOnce: number;
  missing: number;
  duplicated: number;
}

/** How the acknowledged Message-IDs fared at the sink. */
export function ledger(p: Platform, acked: Iterable<string>): Ledger {
  const atSink = tally(p.sink.messages().map((m) => m.messageId));
  let acknowledged = 0;
  let deliveredOnce = 0;
  let missing = 0;
  let duplicated = 0;
  for (const id of acked) {
    acknowledged++;
    const n = atSink.get(id) ?? 0;
    if (n === 0) missing++;
    else if (n === 1) deliveredOnce++;
    else duplicated++;
  }
  return { acknowledged, deliveredOnce, missing, duplicated };
}

/**
 * Waits until every acknowledged message reached the sink (or the deadline), then one more sweep
 * period so a late duplicate would be seen too.
 */
export async function settleLedger(
  p: Platform,
  acked: string[],
  timeoutMs: number,
  quietMs = 12_000,
): Promise<Ledger> {
  await waitFor(() => ledger(p, acked).missing === 0, {
    what: 'every acknowledged message at the sink',
    timeoutMs: timeoutMs,
    everyMs: 1000,
  }).catch(() => undefined);
  await new Promise((r) => setTimeout(r, quietMs));
  return ledger(p, acked);
}
