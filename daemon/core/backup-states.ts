// The backup and import state machine, and the rules that decide what may happen to a backup.
// Backups and data imports share one status table: `running` until the job ends, then
// `succeeded` or `failed`, both final. A scheduled backup that was refused (over quotas, disk low)
// is stored `failed` from the start.
//
// Every status change goes through `recordBackupStatus` / `recordImportStatus`: they check the table,
// then write with `WHERE status IN (the allowed predecessors)`, so a job that ends after start-up
// recovery failed its record (or the reverse) changes nothing and a final record never changes its
// mind. The I/O (dumps, files, remote copies) stays in daemon/backups/.
import { Conflict, InvalidInput } from './errors.js';
import {
  DEFAULT_KEEP,
  SCHEDULE_KINDS,
  type BackupPatch,
  type BackupRecord,
  type BackupSettingsRecord,
  type BackupStatus,
  type BackupVerification,
  type BackupStorage,
  type BackupsRepo,
  type ImportPatch,
  type ImportRecord,
  type ImportSource,
  type ScheduleKind,
  type VerificationStatus,
} from './ports/backups-repo.js';
import type { DatabaseEngine } from '../../shared/types.js';
import type { ServiceRecord } from './records.js';

/** A backup or an import is stored first as `running` (or `failed` when a scheduled one was refused). */
export const INITIAL_STATUS: BackupStatus = 'running';

/** The allowed moves, and nothing else. A status with no move is final. */
export const BACKUP_TRANSITIONS: { readonly [From in BackupStatus]: readonly BackupStatus[] } = {
  // the job ended well or not; or the daemon stopped while it ran (start-up recovery)
  running: ['succeeded', 'failed'],
  succeeded: [],
  failed: [],
};

export const BACKUP_STATUSES = Object.keys(BACKUP_TRANSITIONS) as BackupStatus[];

/** True when nothing may follow the status. */
export function isFinal(status: BackupStatus): boolean {
  return BACKUP_TRANSITIONS[status].length === 0;
}

/** The statuses from which a backup or import may move to `to`. */
export function predecessorsOf(to: BackupStatus): BackupStatus[] {
  return BACKUP_STATUSES.filter((from) => BACKUP_TRANSITIONS[from].includes(to));
}

/** A move the table does not allow: a 409 `illegal_transition`. */
export class IllegalBackupTransition extends Conflict {
  constructor(
    readonly from: BackupStatus,
    readonly to: BackupStatus,
    what: string,
  ) {
    super(`${what} is ${from}; it cannot become ${to}`, 'illegal_transition');
  }
}

/** Returns `to` when the table allows `from -> to`; throws IllegalBackupTransition otherwise. */
export function transition(from: BackupStatus, to: BackupStatus, what = 'the backup'): BackupStatus {
  if (!BACKUP_TRANSITIONS[from].includes(to)) throw new IllegalBackupTransition(from, to, what);
  return to;
}

type StatusWriter<R, P> = {
  get(id: string): Promise<R | null>;
  set(id: string, to: BackupStatus, from: readonly BackupStatus[], patch: P): Promise<boolean>;
};

async function record<R extends { status: BackupStatus }, P>(w: StatusWriter<R, P>, what: string, to: BackupStatus, id: string, patch: P): Promise<R | null> {
  const current = await w.get(id);
  if (!current) return null;
  transition(current.status, to, what);
  // one statement: the write happens only while the stored status is still an allowed predecessor
  if (!(await w.set(id, to, predecessorsOf(to), patch))) {
    const now = await w.get(id);
    if (!now) return null;
    throw new IllegalBackupTransition(now.status, to, what);
  }
  return { ...current, ...patch, status: to };
}

/**
 * Moves a backup to `to` (with `patch` in the same write) when the table allows it from the status
 * it has at the moment of the write. Null when the backup no longer exists (deleted meanwhile);
 * throws IllegalBackupTransition when the move is not allowed, including when another writer got
 * there first.
 */
export function recordBackupStatus(repo: Pick<BackupsRepo, 'get' | 'setStatus'>, id: string, to: BackupStatus, patch: BackupPatch = {}): Promise<BackupRecord | null> {
  return record({ get: (x) => repo.get(x), set: (x, t, f, p) => repo.setStatus(x, t, f, p) }, `backup ${id}`, to, id, patch);
}

/** The same for a data import. */
export function recordImportStatus(repo: Pick<BackupsRepo, 'getImport' | 'setImportStatus'>, id: string, to: BackupStatus, patch: ImportPatch = {}): Promise<ImportRecord | null> {
  return record({ get: (x) => repo.getImport(x), set: (x, t, f, p) => repo.setImportStatus(x, t, f, p) }, `import ${id}`, to, id, patch);
}

// ---- restore tests (verifications) ----

/**
 * A backup's restore test: none yet (null) or a finished one may start again (`running`); a running
 * one ends `verified` or `failed`, once. Start-up recovery fails one a crash left running.
 */
const VERIFICATION_TRANSITIONS: { readonly [From in VerificationStatus | 'none']: readonly VerificationStatus[] } = {
  none: ['running'],
  running: ['verified', 'failed'],
  verified: ['running'],
  failed: ['running'],
};

/**
 * Writes a backup's restore test when the table allows the move from its stored one at the moment
 * of the write. False when it did not (another writer got there first, or the backup is gone).
 */
export async function recordVerification(repo: Pick<BackupsRepo, 'setVerification'>, id: string, to: BackupVerification): Promise<boolean> {
  const from = (Object.keys(VERIFICATION_TRANSITIONS) as (VerificationStatus | 'none')[]).filter((f) => VERIFICATION_TRANSITIONS[f].includes(to.status));
  return repo.setVerification(
    id,
    to,
    from.map((f) => (f === 'none' ? null : f)),
  );
}

/** Only a succeeded database backup can be restore-tested, and not while a test of it runs. */
export function requireVerifiable(backup: BackupRecord): void {
  if (backup.status !== 'succeeded') throw new Conflict(`backup ${backup.id} is ${backup.status}; only a succeeded backup can be restore-tested`, 'not_verifiable');
  if (backup.volume !== null) throw new Conflict('restore tests are for database backups; this is a volume backup', 'not_verifiable');
  if (backup.verification?.status === 'running') throw new Conflict('a restore test of this backup is already running', 'verification_running');
}

// ---- what may happen to a backup ----

/** Only a succeeded backup can be restored. */
export function requireRestorable(backup: BackupRecord): void {
  if (backup.status !== 'succeeded') throw new Conflict(`backup ${backup.id} is ${backup.status}; only a succeeded backup can be restored`);
}

/** Only a succeeded backup has a file to download. */
export function requireDownloadable(backup: BackupRecord): void {
  if (backup.status !== 'succeeded') throw new Conflict(`backup ${backup.id} is ${backup.status}; there is no file to download`);
}

/** A running backup cannot be deleted (its job still writes the file). */
export function requireDeletable(backup: BackupRecord): void {
  if (backup.status === 'running') throw new Conflict('the backup is still running');
  if (backup.verification?.status === 'running') throw new Conflict('a restore test of this backup is running (it reads the file)', 'verification_running');
}

/** A storage other than `disk` needs remote storage configured. */
export function requireStorageAvailable(storage: BackupStorage, remoteConfigured: boolean): void {
  if (storage !== 'disk' && !remoteConfigured) throw new InvalidInput(`storage ${storage} needs remote storage configured first (PUT /api/system/backup-storage)`);
}

/** A backup keeps its file on disk unless it asked for `remote` only. */
export const keepsLocalFile = (storage: BackupStorage): boolean => storage !== 'remote';

/** Which engines an import source fills: a postgres URL into postgres or timescale, a redis URL into redis. */
export function requireImportTarget(source: ImportSource, engine: DatabaseEngine): void {
  const wanted = source === 'postgres-url' ? ['postgres', 'timescale'] : ['redis'];
  if (!wanted.includes(engine)) throw new InvalidInput(`${source} imports into ${wanted.join(' or ')} services; this one runs ${engine}`);
}

/** A service's backup settings before any were saved. */
export function defaultSettings(service: ServiceRecord): BackupSettingsRecord {
  return {
    serviceId: service.id,
    volume: null,
    storage: 'disk',
    automaticEnabled: false,
    dailyEnabled: false,
    weeklyEnabled: false,
    monthlyEnabled: false,
    keepDaily: DEFAULT_KEEP.daily,
    keepWeekly: DEFAULT_KEEP.weekly,
    keepMonthly: DEFAULT_KEEP.monthly,
    verifySchedule: null,
    gfs: null,
    createdAt: service.createdAt,
    updatedAt: service.createdAt,
  };
}

// ---- schedules and retention ----

const SLOT_HOUR = 3;

/** The most recent slot of a schedule at or before `now` (UTC: daily 03:00, weekly Sunday 03:00, monthly the 1st 03:00). */
export function lastSlot(kind: ScheduleKind, now: Date): Date {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), SLOT_HOUR));
  if (kind === 'monthly') d.setUTCDate(1);
  if (kind === 'weekly') d.setUTCDate(d.getUTCDate() - d.getUTCDay());
  if (d > now) {
    if (kind === 'daily') d.setUTCDate(d.getUTCDate() - 1);
    if (kind === 'weekly') d.setUTCDate(d.getUTCDate() - 7);
    if (kind === 'monthly') d.setUTCMonth(d.getUTCMonth() - 1);
  }
  return d;
}

export const scheduleEnabled = (s: BackupSettingsRecord, kind: ScheduleKind): boolean =>
  s.automaticEnabled && (kind === 'daily' ? s.dailyEnabled : kind === 'weekly' ? s.weeklyEnabled : s.monthlyEnabled);

const keepOf = (s: BackupSettingsRecord, kind: ScheduleKind): number => (kind === 'daily' ? s.keepDaily : kind === 'weekly' ? s.keepWeekly : s.keepMonthly);

/** True when a backup of this schedule was started since its last slot (`history` is the service's backups). */
export function slotTaken(history: readonly BackupRecord[], kind: ScheduleKind, now: Date): boolean {
  const slot = lastSlot(kind, now).toISOString();
  return history.some((b) => b.trigger === kind && b.createdAt >= slot);
}

/** The succeeded backups retention no longer keeps: beyond each schedule's keep count (`history` newest first). */
export function beyondRetention(settings: BackupSettingsRecord, history: readonly BackupRecord[]): BackupRecord[] {
  return SCHEDULE_KINDS.flatMap((kind) => history.filter((b) => b.trigger === kind && b.status === 'succeeded').slice(keepOf(settings, kind)));
}

/** The backup to remove to make room for a new one of this schedule: its oldest succeeded one, never its last (`history` newest first). */
export function roomCandidate(history: readonly BackupRecord[], kind: ScheduleKind): BackupRecord | null {
  const own = history.filter((b) => b.trigger === kind && b.status === 'succeeded');
  return own.length > 1 ? own[own.length - 1]! : null;
}
