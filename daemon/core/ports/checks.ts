// Uptime checks as core sees them: the records, the repository (store/checks-repo.ts), the probe
// and the scheduler (daemon/checks/). The incident rules are core/check-states.ts.
import type { Check, CheckResult, CheckStatus } from '../../../shared/types/checks.js';

/** A check as stored: the API's Check without what is computed for an answer (project, uptime), plus the failure count. */
export interface CheckRecord extends Omit<Check, 'projectId' | 'uptime24h' | 'uptime90d'> {
  consecutiveFailures: number;
}

/** What a check's settings are (what create and patch write). */
export type CheckSettings = Pick<CheckRecord, 'name' | 'target' | 'path' | 'expectedStatus' | 'keyword' | 'intervalSeconds' | 'timeoutSeconds' | 'failuresBeforeIncident' | 'enabled'>;

/** What a result writes on its check. */
export type CheckRunPatch = Pick<CheckRecord, 'status' | 'lastCheckedAt' | 'lastResponseMs' | 'lastError' | 'certificateDaysLeft' | 'consecutiveFailures' | 'openIncidentId'>;

export interface IncidentRecord {
  id: string;
  checkId: string;
  serviceId: string;
  startedAt: string;
  resolvedAt: string | null;
  cause: string;
  failures: number;
}

export interface DailyRollup {
  day: string;
  checks: number;
  up: number;
  responseMsSum: number;
  responses: number;
}

export interface ChecksRepo {
  listByService(serviceId: string): Promise<CheckRecord[]>;
  listAll(): Promise<CheckRecord[]>;
  get(id: string): Promise<CheckRecord | null>;
  insert(check: CheckRecord): Promise<void>;
  updateSettings(id: string, settings: CheckSettings & { status: CheckStatus }): Promise<void>;
  /** Writes a result's outcome on the check; false when the check is gone. */
  updateRun(id: string, patch: CheckRunPatch): Promise<boolean>;
  delete(id: string): Promise<boolean>;
  /** Stores a raw result and adds it to its day's rollup. */
  addResult(checkId: string, result: CheckResult): Promise<void>;
  /** Raw results in [from, to], oldest first. */
  results(checkId: string, from: string, to: string): Promise<CheckResult[]>;
  /** Daily rollups from `fromDay` (YYYY-MM-DD) on. */
  daily(checkId: string, fromDay: string): Promise<DailyRollup[]>;
  /** Drops raw results older than `before` and rollups of days before `beforeDay`. */
  prune(before: string, beforeDay: string): Promise<void>;
  insertIncident(incident: IncidentRecord): Promise<void>;
  updateIncident(id: string, patch: Partial<Pick<IncidentRecord, 'resolvedAt' | 'failures'>>): Promise<void>;
  getIncident(id: string): Promise<IncidentRecord | null>;
  /** Newest first. */
  incidents(checkId: string, limit: number): Promise<IncidentRecord[]>;
  /** The ids of services with an open incident, among those given. */
  servicesWithOpenIncidents(serviceIds: readonly string[]): Promise<Set<string>>;
}

/** One request's outcome as the probe saw it (ok is decided by core from the check's rules). */
export interface ProbeOutcome {
  status: number | null;
  responseMs: number | null;
  /** Why no answer came (timeout, refused, TLS); null when one did. */
  error: string | null;
  /** Whether the keyword occurred in the first 64 KB of the body (null: no keyword asked). */
  keywordFound: boolean | null;
  certificateDaysLeft: number | null;
}

/** Arms, re-arms and disarms checks' timers; `runNow` probes at once (the answer does not wait for it). */
export interface CheckSchedulePort {
  /** BERTH_CHECK_MIN_INTERVAL_SECONDS: the shortest interval a check may have (10 unless a test lowers it). */
  readonly minIntervalSeconds: number;
  /** Arms every enabled check from the store (the daemon's start); `stop` disarms all and waits for probes under way. */
  start(): Promise<void>;
  stop(): Promise<void>;
  arm(check: CheckRecord): void;
  disarm(checkId: string): void;
  runNow(checkId: string): void;
}
