// The uptime check's rules, pure: the settings a check may have (defaults and bounds), whether a
// probe's outcome is a success, and the incident state machine. No I/O: the recorder
// (core/check-recorder.ts) writes what `nextCheckState` decides, and test/unit/check-states.test.ts
// drives it on a made-up sequence of results.
import type { CheckStatus } from '../../shared/types/checks.js';
import { InvalidInput } from './errors.js';
import type { CheckSettings, ProbeOutcome } from './ports/checks.js';

export const CHECK_DEFAULTS = { path: '/', expectedStatus: 200, intervalSeconds: 60, timeoutSeconds: 10, failuresBeforeIncident: 3 } as const;
const CHECK_BOUNDS = {
  intervalSeconds: { min: 10, max: 3600 },
  timeoutSeconds: { min: 1, max: 60 },
  failuresBeforeIncident: { min: 1, max: 20 },
} as const;
export const MAX_CHECKS_PER_SERVICE = 20;
/** How much of a body is read for the keyword (a flood is cut there). */
export const BODY_CAP_BYTES = 64 * 1024;
/** Raw results are kept 48 hours; daily rollups 90 days. */
export const RESULTS_KEPT_MS = 48 * 3600_000;
export const DAILY_KEPT_DAYS = 90;

/**
 * Checks a settings object against the rules (after defaults are applied). `minInterval` is the
 * configured floor (BERTH_CHECK_MIN_INTERVAL_SECONDS; 10 unless a test lowers it).
 */
export function validateCheckSettings(s: CheckSettings, minInterval: number): CheckSettings {
  if (s.name.trim() === '' || s.name.length > 63) throw new InvalidInput('name: must be 1 to 63 characters', 'invalid_name');
  // printable ASCII only (what an HTTP request line carries as is): no spaces, no #, no control characters
  if (!/^\/[\x21-\x22\x24-\x7e]*$/.test(s.path) || s.path.length > 1024) throw new InvalidInput('path: must start with / and hold printable ASCII without spaces or #', 'invalid_path');
  if (s.expectedStatus !== null && (!Number.isInteger(s.expectedStatus) || s.expectedStatus < 100 || s.expectedStatus > 599))
    throw new InvalidInput('expectedStatus: must be an integer from 100 to 599, or null (any 2xx or 3xx)', 'invalid_expected_status');
  if (s.keyword !== null && (s.keyword.length === 0 || s.keyword.length > 200)) throw new InvalidInput('keyword: must be 1 to 200 characters, or null', 'invalid_keyword');
  const { intervalSeconds: iv, timeoutSeconds: to, failuresBeforeIncident: f } = s;
  if (!Number.isInteger(iv) || iv < minInterval || iv > CHECK_BOUNDS.intervalSeconds.max)
    throw new InvalidInput(`intervalSeconds: must be an integer from ${minInterval} to ${CHECK_BOUNDS.intervalSeconds.max}`, 'invalid_interval');
  if (!Number.isInteger(to) || to < CHECK_BOUNDS.timeoutSeconds.min || to > CHECK_BOUNDS.timeoutSeconds.max)
    throw new InvalidInput(`timeoutSeconds: must be an integer from 1 to ${CHECK_BOUNDS.timeoutSeconds.max}`, 'invalid_timeout');
  if (to >= iv) throw new InvalidInput('timeoutSeconds: must be less than intervalSeconds', 'invalid_timeout');
  if (!Number.isInteger(f) || f < CHECK_BOUNDS.failuresBeforeIncident.min || f > CHECK_BOUNDS.failuresBeforeIncident.max)
    throw new InvalidInput('failuresBeforeIncident: must be an integer from 1 to 20', 'invalid_failures');
  return s;
}

/** Whether an answer passes the check: the expected status (or any 2xx/3xx) and the keyword. Answers the failure's reason, or null. */
export function failureReason(outcome: ProbeOutcome, expectedStatus: number | null): string | null {
  if (outcome.error !== null) return outcome.error;
  if (outcome.status === null) return 'no answer';
  if (expectedStatus === null ? outcome.status < 200 || outcome.status > 399 : outcome.status !== expectedStatus) return `status ${outcome.status}, expected ${expectedStatus ?? 'any 2xx or 3xx'}`;
  if (outcome.keywordFound === false) return 'keyword not found in the body';
  return null;
}

export interface CheckRunState {
  consecutiveFailures: number;
  openIncidentId: string | null;
}

type IncidentAction = 'open' | 'resolve' | 'count' | null;

export interface NextCheckState {
  status: CheckStatus;
  consecutiveFailures: number;
  /** `open`: open an incident now; `resolve`: resolve the open one; `count`: one more failure on the open one. */
  action: IncidentAction;
}

/**
 * The incident state machine. A success resets the count and resolves an open incident. A failure
 * counts, and the `failuresBeforeIncident`-th consecutive one opens an incident, except while the
 * service has a deployment in progress: then it is recorded (the check is `down`) but not counted,
 * so a deploy never opens an incident by itself. An incident stays open across restarts (it is the
 * check's row) until the next success.
 */
export function nextCheckState(state: CheckRunState, ok: boolean, deploying: boolean, failuresBeforeIncident: number): NextCheckState {
  if (ok) return { status: 'up', consecutiveFailures: 0, action: state.openIncidentId !== null ? 'resolve' : null };
  if (state.openIncidentId !== null) return { status: 'down', consecutiveFailures: state.consecutiveFailures + 1, action: 'count' };
  if (deploying) return { status: 'down', consecutiveFailures: state.consecutiveFailures, action: null };
  const failures = state.consecutiveFailures + 1;
  return { status: 'down', consecutiveFailures: failures, action: failures >= failuresBeforeIncident ? 'open' : null };
}

/** Whole days until `validTo`, from `now` (negative once expired). */
export function daysLeft(validTo: Date, now: Date): number {
  return Math.floor((validTo.getTime() - now.getTime()) / 86_400_000);
}
