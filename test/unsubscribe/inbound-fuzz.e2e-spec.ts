// Issues 23 and 31: the inbound port under the resilience suite's SMTP fuzzing (test/resilience/
// inbound-smtp-fuzz.ts), here against the in-process relay and worker with a shorter generated
// run: well-formed replies, no foreign recipient or forged token ever accepted, hostile reports to
// genuine addresses accepted and stored once, no hang, no error logged, and a report still taken
// and processed afterwards.
import type { Pool } from 'pg';
import { loadConfig, setLogSink } from '@app/domain';
import { runInboundSmtpFuzz } from '../resilience/inbound-smtp-fuzz';
import type { ResilienceContext, SummaryRow } from '../resilience/support/context';
import { Stack, startStack, stopStack } from './support/stack';

describe('Inbound port under SMTP fuzzing', () => {
  let stack: Stack;
  const lines: string[] = [];

  beforeAll(async () => {
    // One client address opens every session: the per-address bounds are inbound-port.e2e-spec's.
    stack = await startStack({
      INBOUND_CONNECTIONS_PER_IP: '1000',
      INBOUND_MESSAGES_PER_IP_PER_MINUTE: '1000000',
    });
    setLogSink((line) => lines.push(line));
  });
  afterAll(async () => {
    setLogSink((line) => process.stdout.write(line + '\n'));
    await stopStack(stack);
  });

  it('survives the battery and generated sessions, then still takes a report', async () => {
    const db = {
      query: async (text: string, params: unknown[]) => {
        const rows = (await stack.ds.query(text, params)) as unknown[];
        return { rows, rowCount: rows.length };
      },
    } as unknown as Pool;
    const ctx = {
      inbound: { host: '127.0.0.1', port: stack.inboundPort },
      db,
      logs: () => lines,
      encryptionKey: loadConfig().encryptionKey.toString('base64'),
    } as unknown as ResilienceContext;
    const rows: SummaryRow[] = [];
    await runInboundSmtpFuzz(
      ctx,
      { record: (row) => rows.push(row) },
      { runs: 160, concurrency: 4, seed: 23 },
    );
    expect(rows).toEqual([expect.objectContaining({ name: 'inbound', passed: true })]);
  }, 300_000);
});
