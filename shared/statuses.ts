// What each status means, stated once for the daemon, the console, the desktop app and the CLI:
// whether a deployment is still in progress, over, live or final, which service status needs
// attention first, and when a backup or an import has ended. A client asks here instead of
// comparing status strings of its own. Which status may follow which stays the daemon's state
// table (daemon/core/deployment-states.ts), which reads `final` from here; a unit test proves the
// two agree (test/unit/statuses.test.ts).
import type { CheckStatus, DeploymentStatus, JobRunStatus, JobStatus, ServiceStatus, UpgradeState, VerificationStatus } from './types.js';

/** How a status is shown: the console's badge tones. */
export type StatusTone = 'ok' | 'info' | 'muted' | 'warn' | 'bad';

export interface DeploymentStatusMeaning {
  /** Still at work (waiting in the queue or building): it moves on by itself, and may be aborted. */
  inProgress: boolean;
  /** It serves its service now (`running`). */
  live: boolean;
  /** Nothing may follow it: the deployment's story is over for good. */
  final: boolean;
  /**
   * It ended well: live now (`running`), or replaced by a newer deployment (`superseded`, after it
   * went live or while it still waited in the queue). `berth deploy` exits 0 on these; only these
   * can be rolled back to (when their image is still kept).
   */
  succeeded: boolean;
  tone: StatusTone;
}

export const DEPLOYMENT_STATUS_MEANING: { readonly [S in DeploymentStatus]: DeploymentStatusMeaning } = {
  queued: { inProgress: true, live: false, final: false, succeeded: false, tone: 'info' },
  building: { inProgress: true, live: false, final: false, succeeded: false, tone: 'info' },
  running: { inProgress: false, live: true, final: false, succeeded: true, tone: 'ok' },
  superseded: { inProgress: false, live: false, final: true, succeeded: true, tone: 'muted' },
  failed: { inProgress: false, live: false, final: true, succeeded: false, tone: 'bad' },
  aborted: { inProgress: false, live: false, final: true, succeeded: false, tone: 'warn' },
};

export const DEPLOYMENT_STATUSES = Object.keys(DEPLOYMENT_STATUS_MEANING) as DeploymentStatus[];

/** The one live status: a deployment in it serves its service. */
export const LIVE_DEPLOYMENT_STATUS = 'running' satisfies DeploymentStatus;

/** queued and building. */
export const IN_PROGRESS_DEPLOYMENT_STATUSES: readonly DeploymentStatus[] = DEPLOYMENT_STATUSES.filter((s) => DEPLOYMENT_STATUS_MEANING[s].inProgress);

/**
 * The statuses a deployment's work ends in: it went live (`running`) or ended without going on
 * (`superseded`, `failed`, `aborted`). Following a deployment (its log stream, `berth deploy`)
 * stops at one of these.
 */
export const OVER_DEPLOYMENT_STATUSES: readonly DeploymentStatus[] = DEPLOYMENT_STATUSES.filter((s) => !DEPLOYMENT_STATUS_MEANING[s].inProgress);

/** Still at work: queued or building. */
export function deploymentInProgress(status: DeploymentStatus): boolean {
  return DEPLOYMENT_STATUS_MEANING[status].inProgress;
}

/** Its work is over: it went live or ended (see OVER_DEPLOYMENT_STATUSES). Not the same as final: a live deployment is over but not final. */
export function deploymentOver(status: DeploymentStatus): boolean {
  return !DEPLOYMENT_STATUS_MEANING[status].inProgress;
}

/** Nothing may follow the status. */
export function deploymentFinal(status: DeploymentStatus): boolean {
  return DEPLOYMENT_STATUS_MEANING[status].final;
}

/** It ended well: running now, or superseded by a newer deployment (see DeploymentStatusMeaning.succeeded). */
export function deploymentSucceeded(status: DeploymentStatus): boolean {
  return DEPLOYMENT_STATUS_MEANING[status].succeeded;
}

export interface ServiceStatusMeaning {
  /** Which status speaks for a group of services (a project, a server in the tray): the highest. */
  attention: number;
  tone: StatusTone;
}

export const SERVICE_STATUS_MEANING: { readonly [S in ServiceStatus]: ServiceStatusMeaning } = {
  idle: { attention: 0, tone: 'muted' },
  active: { attention: 1, tone: 'ok' },
  building: { attention: 2, tone: 'info' },
  failed: { attention: 3, tone: 'bad' },
};

function isServiceStatus(s: string): s is ServiceStatus {
  return Object.hasOwn(SERVICE_STATUS_MEANING, s);
}

/** The status that needs attention first among services (failed, then building, then active, then idle); null for none. */
export function worstServiceStatus(statuses: Iterable<string>): ServiceStatus | null {
  let worst: ServiceStatus | null = null;
  for (const s of statuses) {
    if (isServiceStatus(s) && (worst === null || SERVICE_STATUS_MEANING[s].attention > SERVICE_STATUS_MEANING[worst].attention)) worst = s;
  }
  return worst;
}

/** Backups and imports: `running` until they end `succeeded` or `failed`. */
export const JOB_STATUS_MEANING: { readonly [S in JobStatus]: { inProgress: boolean; tone: StatusTone } } = {
  running: { inProgress: true, tone: 'ok' },
  succeeded: { inProgress: false, tone: 'ok' },
  failed: { inProgress: false, tone: 'bad' },
};

/** A backup's restore test: `running` until it ends `verified` or `failed` (which notifies). */
export const VERIFICATION_STATUS_MEANING: { readonly [S in VerificationStatus]: { inProgress: boolean; tone: StatusTone } } = {
  running: { inProgress: true, tone: 'info' },
  verified: { inProgress: false, tone: 'ok' },
  failed: { inProgress: false, tone: 'bad' },
};

/** A backup or an import that is still at work. */
export function jobInProgress(status: JobStatus): boolean {
  return JOB_STATUS_MEANING[status].inProgress;
}

/** A scheduled job's run: `running` until it ends `succeeded`, `failed` or `timed_out`; the last two notify. */
export const JOB_RUN_STATUS_MEANING: { readonly [S in JobRunStatus]: { inProgress: boolean; failed: boolean; tone: StatusTone } } = {
  running: { inProgress: true, failed: false, tone: 'info' },
  succeeded: { inProgress: false, failed: false, tone: 'ok' },
  failed: { inProgress: false, failed: true, tone: 'bad' },
  timed_out: { inProgress: false, failed: true, tone: 'bad' },
};

/** A job run that is still at work. */
export function jobRunInProgress(status: JobRunStatus): boolean {
  return JOB_RUN_STATUS_MEANING[status].inProgress;
}

/** A job run that ended badly (failed or timed out): what notifies. */
export function jobRunFailed(status: JobRunStatus): boolean {
  return JOB_RUN_STATUS_MEANING[status].failed;
}

/** An upgrade of Berth itself: over once the upgrader is done; `rolled_back` and `failed` notify. */
export const UPGRADE_STATE_MEANING: { readonly [S in UpgradeState]: { inProgress: boolean; failed: boolean; tone: StatusTone } } = {
  running: { inProgress: true, failed: false, tone: 'info' },
  succeeded: { inProgress: false, failed: false, tone: 'ok' },
  rolled_back: { inProgress: false, failed: true, tone: 'warn' },
  failed: { inProgress: false, failed: true, tone: 'bad' },
};

export const UPGRADE_STATES = Object.keys(UPGRADE_STATE_MEANING) as UpgradeState[];

/** An upgrade whose upgrader is still at work (or has not taken the request yet). */
export function upgradeInProgress(state: UpgradeState): boolean {
  return UPGRADE_STATE_MEANING[state].inProgress;
}

/** An upgrade that ended without the new release running (rolled back, or failed before switching). */
export function upgradeFailed(state: UpgradeState): boolean {
  return UPGRADE_STATE_MEANING[state].failed;
}

/** An uptime check's status, and an incident's `resolved` (badges only). */
export const CHECK_STATUS_MEANING: { readonly [S in CheckStatus | 'resolved']: { tone: StatusTone } } = {
  pending: { tone: 'info' },
  up: { tone: 'ok' },
  down: { tone: 'bad' },
  paused: { tone: 'muted' },
  resolved: { tone: 'ok' },
};

/** The badge tone of any status the API returns (deployment, service, project, backup, import, job run, upgrade, restore test); `muted` for one it does not know. */
export function statusTone(status: string): StatusTone {
  const tables: Record<string, { tone: StatusTone }>[] = [
    DEPLOYMENT_STATUS_MEANING,
    SERVICE_STATUS_MEANING,
    JOB_STATUS_MEANING,
    JOB_RUN_STATUS_MEANING,
    UPGRADE_STATE_MEANING,
    VERIFICATION_STATUS_MEANING,
    CHECK_STATUS_MEANING,
  ];
  for (const t of tables) if (Object.hasOwn(t, status)) return t[status].tone;
  return 'muted';
}
