// The verification rule of §13 as one pure function: what a check of a domain's records makes of
// its status and of its next check. Pending domains are re-checked every 10 minutes for 72 hours,
// then fail; verified ones daily, failing when a required record is gone.
import type { DnsRecordPurpose, RecordChecks, SendingDomainStatus } from './sending-domain.entity';
import type { CheckResult } from './dns-records';

export const RECHECK_MS = 10 * 60_000;
export const CHECK_WINDOW_MS = 72 * 3600_000;
export const VERIFIED_RECHECK_MS = 24 * 3600_000;

export interface DomainState {
  status: SendingDomainStatus;
  verifiedAt: Date | null;
  /** End of the current 10-minute re-check window; null when there is none. */
  checkUntil: Date | null;
  recordChecks: RecordChecks;
}

export interface CheckedRecord {
  purpose: DnsRecordPurpose;
  required: boolean;
  result: CheckResult;
}

export interface CheckOutcome extends DomainState {
  nextCheckAt: Date | null;
  /** Every required record matched. */
  matched: boolean;
}

/**
 * The state after a check at `now`. A record DNS did not answer for keeps its last status, and
 * decides nothing: a verified domain stays verified through a resolver outage. `manual` is a
 * check a user asked for: a domain it does not verify gets a new 72-hour window of re-checks.
 */
export function afterCheck(
  state: DomainState,
  records: CheckedRecord[],
  now: Date,
  manual = false,
): CheckOutcome {
  const recordChecks: RecordChecks = { ...state.recordChecks };
  for (const r of records) {
    if (r.result !== 'unknown') {
      recordChecks[r.purpose] = { status: r.result, checkedAt: now.toISOString() };
    }
  }
  const required = records.filter((r) => r.required);
  const at = (ms: number) => new Date(now.getTime() + ms);
  if (required.every((r) => r.result === 'verified')) {
    return {
      status: 'verified',
      verifiedAt: state.status === 'verified' && state.verifiedAt ? state.verifiedAt : now,
      checkUntil: null,
      nextCheckAt: at(VERIFIED_RECHECK_MS),
      recordChecks,
      matched: true,
    };
  }
  const missing = required.some((r) => r.result === 'failed');
  let { status, checkUntil } = state;
  if (missing && status === 'verified') {
    // A verified domain whose record is gone fails at once, and is watched for its return.
    status = 'failed';
    checkUntil = at(CHECK_WINDOW_MS);
  } else if (manual && status !== 'verified') {
    checkUntil = at(CHECK_WINDOW_MS);
  }
  const windowOpen = checkUntil !== null && now.getTime() < checkUntil.getTime();
  if (status === 'pending' && !windowOpen) status = 'failed';
  const retry = windowOpen || (status === 'verified' && !missing);
  return {
    status,
    verifiedAt: state.verifiedAt,
    checkUntil: windowOpen ? checkUntil : null,
    nextCheckAt: retry ? at(RECHECK_MS) : null,
    recordChecks,
    matched: false,
  };
}
