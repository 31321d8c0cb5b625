// The Idempotency-Key rules (§13) with a scripted repository: the fingerprint of a body, the key's
// form, a claim, a replay, another body under the key, and a repeat while the first still runs.
import { Logger } from '@nestjs/common';
import type { Clock } from '../common/clock';
import { ManualClock } from '../../../../test/support/clock';
import { asOrgId } from '../common/org-id';
import type { IdempotencyRepository, StoredKey } from './idempotency.repository';
import { IDEMPOTENCY_TTL_MS, IdempotencyService, requestFingerprint } from './idempotency.service';

describe('requestFingerprint', () => {
  it('is the same for the same body whatever its key order, and differs for another body', () => {
    const a = {
      from: 'a@example.com',
      to: ['b@example.com'],
      track: { opens: true, clicks: false },
    };
    const b = {
      track: { clicks: false, opens: true },
      to: ['b@example.com'],
      from: 'a@example.com',
    };
    expect(requestFingerprint(a)).toBe(requestFingerprint(b));
    expect(requestFingerprint(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(requestFingerprint({ ...a, to: ['c@example.com'] })).not.toBe(requestFingerprint(a));
    // Array order is part of the request.
    expect(requestFingerprint({ to: ['x', 'y'] })).not.toBe(requestFingerprint({ to: ['y', 'x'] }));
    expect(requestFingerprint({ a: '1' })).not.toBe(requestFingerprint({ a: 1 }));
    expect(requestFingerprint(undefined)).toBe(requestFingerprint(null));
  });
});

describe('IdempotencyService.parseKey', () => {
  it('takes 1 to 255 printable ASCII characters and refuses anything else with a 422', () => {
    expect(IdempotencyService.parseKey('order-42/retry #1')).toBe('order-42/retry #1');
    expect(IdempotencyService.parseKey('k'.repeat(255))).toHaveLength(255);
    for (const bad of ['', 'k'.repeat(256), 'clé', 'tab\there', ['a', 'b'], 42]) {
      expect(() => IdempotencyService.parseKey(bad)).toThrow(
        expect.objectContaining({ code: 'E_VALIDATION_ERROR' }),
      );
    }
  });
});

const ORG = asOrgId('00000000-0000-4000-8000-000000000001');
const NOW = new Date('2030-06-01T12:00:00Z');
const BODY = { to: ['b@example.com'], subject: 'Hi' };

/** A repository answering the test's scripted claims and reads. */
function setup(
  claims: boolean[] = [true],
  stored: (StoredKey | null)[] = [],
  clock: Clock = { now: () => NOW },
) {
  const repository = {
    claim: jest.fn(async (..._args: unknown[]) => claims.shift() ?? false),
    find: jest.fn(async (..._args: unknown[]) => (stored.length > 1 ? stored.shift()! : stored[0])),
    complete: jest.fn(async (..._args: unknown[]) => undefined),
    release: jest.fn(async (..._args: unknown[]) => undefined),
  };
  const service = new IdempotencyService(repository as unknown as IdempotencyRepository, clock);
  return { service, repository };
}

const completed = (body: unknown, response: unknown): StoredKey => ({
  requestHash: requestFingerprint(body),
  responseBody: response,
});
const inFlight = (body: unknown): StoredKey => ({
  requestHash: requestFingerprint(body),
  responseBody: null,
});

describe('IdempotencyService.run', () => {
  it('just runs the work without a key', async () => {
    const { service, repository } = setup();
    const work = jest.fn(async () => ({ id: 'm1' }));
    await expect(service.run(ORG, undefined, BODY, work)).resolves.toEqual({
      response: { id: 'm1' },
      replayed: false,
    });
    expect(work).toHaveBeenCalledTimes(1);
    expect(repository.claim).not.toHaveBeenCalled();
  });

  it('claims the key for 60 seconds, runs the work once and keeps its response', async () => {
    const { service, repository } = setup([true]);
    const result = await service.run(ORG, 'order-42', BODY, async () => ({ id: 'm1' }));
    expect(result).toEqual({ response: { id: 'm1' }, replayed: false });
    expect(repository.claim).toHaveBeenCalledWith(ORG, 'order-42', {
      requestHash: requestFingerprint(BODY),
      claimId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      lockedUntil: new Date(NOW.getTime() + 60_000),
      now: NOW,
      expiredBefore: new Date(NOW.getTime() - IDEMPOTENCY_TTL_MS),
    });
    const claimId = (repository.claim.mock.calls[0][2] as { claimId: string }).claimId;
    expect(repository.complete).toHaveBeenCalledWith(ORG, 'order-42', claimId, { id: 'm1' });
  });

  it('refuses a malformed key with a 422 before claiming or running anything', async () => {
    const { service, repository } = setup();
    const work = jest.fn(async () => 'x');
    await expect(service.run(ORG, '', BODY, work)).rejects.toMatchObject({
      code: 'E_VALIDATION_ERROR',
      errors: [expect.objectContaining({ field: 'Idempotency-Key' })],
    });
    expect(work).not.toHaveBeenCalled();
    expect(repository.claim).not.toHaveBeenCalled();
  });

  it('answers a repeat of the same body with the first response, without running it', async () => {
    const { service, repository } = setup([false], [completed({ ...BODY }, { id: 'm1' })]);
    const work = jest.fn(async () => ({ id: 'm2' }));
    // The same body in another key order is the same request.
    const repeat = { subject: 'Hi', to: ['b@example.com'] };
    await expect(service.run(ORG, 'order-42', repeat, work)).resolves.toEqual({
      response: { id: 'm1' },
      replayed: true,
    });
    expect(work).not.toHaveBeenCalled();
    expect(repository.find).toHaveBeenCalledWith(
      ORG,
      'order-42',
      new Date(NOW.getTime() - IDEMPOTENCY_TTL_MS),
    );
    expect(repository.complete).not.toHaveBeenCalled();
  });

  it('refuses the key with another body with 409', async () => {
    const { service } = setup([false], [completed({ other: true }, { id: 'm1' })]);
    const work = jest.fn(async () => 'x');
    await expect(service.run(ORG, 'order-42', BODY, work)).rejects.toMatchObject({
      code: 'E_BUSINESS_RULE_VIOLATION',
      message: 'Idempotency-Key was already used with a different request body',
    });
    expect(work).not.toHaveBeenCalled();
  });

  it('claims again when the first request released the key between the two reads', async () => {
    const { service, repository } = setup([false, true], [null]);
    const work = jest.fn(async () => 'ok');
    await expect(service.run(ORG, 'k', BODY, work)).resolves.toEqual({
      response: 'ok',
      replayed: false,
    });
    expect(repository.claim).toHaveBeenCalledTimes(2);
    expect(work).toHaveBeenCalledTimes(1);
  });

  it('releases the claim when the work fails, so that a retry runs anew', async () => {
    const { service, repository } = setup([true]);
    await expect(
      service.run(ORG, 'k', BODY, async () => {
        throw new Error('queue down');
      }),
    ).rejects.toThrow('queue down');
    const claimId = (repository.claim.mock.calls[0][2] as { claimId: string }).claimId;
    expect(repository.release).toHaveBeenCalledWith(ORG, 'k', claimId);
    expect(repository.complete).not.toHaveBeenCalled();
  });

  it('answers the work response even when it cannot be kept', async () => {
    const { service, repository } = setup([true]);
    const warn = jest
      .spyOn((service as unknown as { logger: Logger }).logger, 'warn')
      .mockImplementation(() => undefined);
    repository.complete.mockRejectedValueOnce(new Error('connection lost'));
    await expect(service.run(ORG, 'k', BODY, async () => 'sent')).resolves.toEqual({
      response: 'sent',
      replayed: false,
    });
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ organizationId: ORG, err: 'connection lost' }),
    );
  });
});

describe('IdempotencyService.start with the first request still running', () => {
  // Fake timers run the 25 ms polls at once; the wait's 5 seconds are read from the clock.
  beforeEach(() => jest.useFakeTimers({ now: NOW }));
  afterEach(() => jest.useRealTimers());

  it('waits for its answer and replays it', async () => {
    const { service } = setup(
      [false, false, false],
      [inFlight(BODY), inFlight(BODY), completed(BODY, { id: 'm1' })],
      new ManualClock(NOW),
    );
    const started = service.start(ORG, 'k', BODY);
    await jest.advanceTimersByTimeAsync(100);
    await expect(started).resolves.toEqual({ kind: 'replay', response: { id: 'm1' } });
  });

  it('refuses with 409 once its clock says it has waited 5 seconds', async () => {
    const clock = new ManualClock(NOW);
    const { service, repository } = setup([], [inFlight(BODY)], clock);
    let settled = false;
    const outcome = service
      .start(ORG, 'k', BODY)
      .catch((e: unknown) => e)
      .finally(() => (settled = true));
    await jest.advanceTimersByTimeAsync(100);
    clock.advance(4_999);
    await jest.advanceTimersByTimeAsync(100);
    // Still waiting, polling the first request's row.
    expect(settled).toBe(false);
    const polls = repository.find.mock.calls.length;
    expect(polls).toBeGreaterThan(4);
    clock.advance(1);
    await jest.advanceTimersByTimeAsync(100);
    await expect(outcome).resolves.toMatchObject({
      code: 'E_BUSINESS_RULE_VIOLATION',
      message: 'A request with this Idempotency-Key is still in progress',
    });
    expect(repository.find.mock.calls.length).toBe(polls + 1);
  });
});
