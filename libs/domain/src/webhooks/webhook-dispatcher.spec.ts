// The dispatcher's pump: claim sizes, claims in flight, every woken id attempted once, shutdown.
import { SystemClock } from '../common/clock';
import type { AppConfig } from '../config/app-config';
import { asOrgId } from '../common/org-id';
import type { WebhookQueueSweeper } from './webhook-queue.sweeper';
import type { ClaimedDelivery, FinishedAttempt } from './webhook-queue.types';
import { WebhookDispatcher } from './webhook-dispatcher';
import type { WebhookHttpClient } from './webhook-http.client';

function delivery(id: string): ClaimedDelivery {
  return {
    id,
    organizationId: asOrgId('org'),
    type: 'contact.created',
    body: '{}',
    attemptCount: 0,
    leaseId: 'lease',
    endpoint: {
      id: 'e',
      url: 'http://127.0.0.1:1/hook',
      secret: 'a'.repeat(64),
      customHeaders: [],
      timeoutSeconds: 30,
      maxRetries: 5,
      isActive: true,
    },
  };
}

/** A repository whose claims return when the test says so, and an HTTP client answering 200. */
function harness() {
  const claims: { ids: string[]; answer: () => void }[] = [];
  const claimedIds: string[] = [];
  const recorded: string[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const repo = {
    claimByIds: (ids: string[]) => {
      inFlight += 1;
      mostInFlight = Math.max(mostInFlight, inFlight);
      claimedIds.push(...ids);
      return new Promise<ClaimedDelivery[]>((resolve) =>
        claims.push({
          ids,
          answer: () => {
            inFlight -= 1;
            resolve(ids.map(delivery));
          },
        }),
      );
    },
    finishAttempts: async (items: FinishedAttempt[]) => {
      for (const i of items) recorded.push(i.claimed.id);
      return new Set(items.map((i) => i.claimed.id));
    },
  } as unknown as WebhookQueueSweeper;
  const http = {
    send: async () => ({ kind: 'response', status: 200, body: 'ok' }),
  } as unknown as WebhookHttpClient;
  const config = {
    webhookConcurrency: 50,
    webhookEndpointConcurrency: 50,
    webhookRetryBaseMs: 1000,
  } as AppConfig;
  const dispatcher = new WebhookDispatcher(repo, http, new SystemClock(), config);
  return { dispatcher, claims, claimedIds, recorded, mostInFlight: () => mostInFlight };
}

const ids = (n: number) => Array.from({ length: n }, (_, i) => `d${i}`);
const tick = () => new Promise((r) => setImmediate(r));

describe('WebhookDispatcher pump', () => {
  it('fills idle slots with a small claim, claims a full batch beside it, and never an id twice', async () => {
    const h = harness();
    h.dispatcher.wake(ids(1000));
    // A burst's first claim is small (2 per slot), the next full-size one goes beside it.
    expect(h.claims.map((c) => c.ids.length)).toEqual([100, 300]);
    while (h.recorded.length < 1000) {
      const next = h.claims.shift();
      if (next) next.answer();
      await tick();
    }
    await tick();
    expect(h.mostInFlight()).toBeLessThanOrEqual(2);
    expect([...h.claimedIds].sort()).toEqual(ids(1000).sort());
    expect(new Set(h.recorded).size).toBe(1000);
    expect(h.dispatcher.attemptsRecorded).toBe(1000);
  });

  it('claims a small backlog whole, in one statement', async () => {
    const h = harness();
    h.dispatcher.wake(ids(150));
    expect(h.claims.map((c) => c.ids.length)).toEqual([150]);
    h.claims.shift()!.answer();
    while (h.recorded.length < 150) await tick();
    expect(h.claimedIds).toHaveLength(150);
  });

  it('claims a trickle of wake-ups one statement at a time', async () => {
    const h = harness();
    h.dispatcher.wake(['a']);
    h.dispatcher.wake(['b']);
    h.dispatcher.wake(['c']);
    // A claim is under way and the backlog is not worth a second statement: b and c wait for it.
    expect(h.claims.map((c) => c.ids)).toEqual([['a']]);
    h.claims.shift()!.answer();
    await tick();
    expect(h.claims.map((c) => c.ids)).toEqual([['b', 'c']]);
    h.claims.shift()!.answer();
    while (h.recorded.length < 3) await tick();
    expect(h.recorded.sort()).toEqual(['a', 'b', 'c']);
  });

  it('waits for claims under way before shutting down', async () => {
    const h = harness();
    h.dispatcher.wake(['a']);
    let down = false;
    const shutdown = h.dispatcher.onApplicationShutdown().then(() => (down = true));
    await tick();
    expect(down).toBe(false);
    h.claims.shift()!.answer();
    await shutdown;
    // The claimed delivery was attempted and recorded: its lease was held.
    expect(h.recorded).toEqual(['a']);
  });
});
