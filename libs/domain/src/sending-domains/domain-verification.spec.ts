import { CheckedRecord, DomainState, afterCheck } from './domain-verification';

const NOW = new Date('2025-06-01T12:00:00Z');
const H = 3600_000;
const at = (ms: number) => new Date(NOW.getTime() + ms);

const records = (dkim: CheckedRecord['result'], returnPath = dkim): CheckedRecord[] => [
  { purpose: 'dkim', required: true, result: dkim },
  { purpose: 'return-path', required: true, result: returnPath },
  { purpose: 'spf', required: false, result: 'failed' },
  { purpose: 'dmarc', required: false, result: 'verified' },
];

const pending = (checkUntil: Date | null = at(70 * H)): DomainState => ({
  status: 'pending',
  verifiedAt: null,
  checkUntil,
  recordChecks: {},
});

const verified = (): DomainState => ({
  status: 'verified',
  verifiedAt: at(-10 * 24 * H),
  checkUntil: null,
  recordChecks: {
    dkim: { status: 'verified', checkedAt: at(-24 * H).toISOString() },
    'return-path': { status: 'verified', checkedAt: at(-24 * H).toISOString() },
  },
});

describe('afterCheck', () => {
  it('verifies a domain once every required record matches, whatever the reported ones say', () => {
    const out = afterCheck(pending(), records('verified'), NOW);
    expect(out).toMatchObject({
      status: 'verified',
      verifiedAt: NOW,
      checkUntil: null,
      nextCheckAt: at(24 * H),
      matched: true,
    });
    expect(out.recordChecks).toEqual({
      dkim: { status: 'verified', checkedAt: NOW.toISOString() },
      'return-path': { status: 'verified', checkedAt: NOW.toISOString() },
      spf: { status: 'failed', checkedAt: NOW.toISOString() },
      dmarc: { status: 'verified', checkedAt: NOW.toISOString() },
    });
    // Still verified a day later: verifiedAt keeps the moment it became verified.
    expect(afterCheck(verified(), records('verified'), NOW).verifiedAt).toEqual(at(-10 * 24 * H));
  });

  it('keeps a pending domain pending, re-checked every 10 minutes, until 72 hours are over', () => {
    expect(afterCheck(pending(), records('failed', 'verified'), NOW)).toMatchObject({
      status: 'pending',
      nextCheckAt: at(10 * 60_000),
      checkUntil: at(70 * H),
      matched: false,
    });
    expect(afterCheck(pending(at(-1)), records('failed', 'verified'), NOW)).toMatchObject({
      status: 'failed',
      nextCheckAt: null,
      checkUntil: null,
    });
  });

  it('fails a verified domain whose required record is gone, and watches for its return', () => {
    const out = afterCheck(verified(), records('failed', 'verified'), NOW);
    expect(out).toMatchObject({
      status: 'failed',
      checkUntil: at(72 * H),
      nextCheckAt: at(10 * 60_000),
      verifiedAt: at(-10 * 24 * H),
    });
    expect(out.recordChecks.dkim).toEqual({ status: 'failed', checkedAt: NOW.toISOString() });
    // The record is back within the window: verified again.
    const back = afterCheck(out, records('verified'), at(30 * 60_000));
    expect(back).toMatchObject({ status: 'verified', verifiedAt: at(30 * 60_000) });
  });

  it('decides nothing on a resolver failure: the last record status stays, a retry comes soon', () => {
    const out = afterCheck(verified(), records('unknown'), NOW);
    expect(out).toMatchObject({ status: 'verified', nextCheckAt: at(10 * 60_000) });
    expect(out.recordChecks.dkim).toEqual(verified().recordChecks.dkim);
    expect(afterCheck(pending(), records('unknown'), NOW).status).toBe('pending');
  });

  it('gives a failed domain a new 72-hour window when a user asks for a check', () => {
    const failed: DomainState = { ...pending(null), status: 'failed' };
    expect(afterCheck(failed, records('failed'), NOW)).toMatchObject({
      status: 'failed',
      nextCheckAt: null,
    });
    expect(afterCheck(failed, records('failed'), NOW, true)).toMatchObject({
      status: 'failed',
      checkUntil: at(72 * H),
      nextCheckAt: at(10 * 60_000),
    });
  });
});
