// The rules of Berth's own backup, said once for core, the adapters, the on-server command and the
// installer's restore: the passphrase, the archive's name (what Berth may ever remove from its
// folder or its prefix in the bucket), the bounds of `keep`, and every status write of a run (the
// backups' state table: `running -> succeeded | failed`, written with a conditional UPDATE).
import { IllegalBackupTransition, predecessorsOf, transition } from './backup-states.js';
import type { JobStatus, ServerBackupRun, ServerBackupStorageId, ServerBackupTrigger } from '../../shared/types.js';
import type { ServerBackupPatch, ServerBackupRecord, ServerBackupsRepo } from './ports/server-backups.js';

const PASSPHRASE_MIN = 12;
/** The passphrase rules, said once for the API, the CLI and the installer. */
const PASSPHRASE_RULE = `a passphrase of at least ${PASSPHRASE_MIN} characters`;

/** Why the passphrase cannot be used; null when it can. */
export function passphraseProblem(passphrase: string): string | null {
  return passphrase.length >= PASSPHRASE_MIN ? null : `the archive's passphrase must be ${PASSPHRASE_RULE}`;
}

/**
 * The names Berth gives its archives: `berth-server-<host>-<yyyymmddThhmmssZ>[-<tag>].tar.gz.enc`
 * (the tag: a run's, for archives the daemon takes). Only files of this name (and their `.sha256`)
 * are ever removed, in Berth's folder or under its prefix: a file another tool put there stays.
 */
const ARCHIVE_NAME = /^berth-server-[A-Za-z0-9.-]+-\d{8}T\d{6}Z(?:-[a-z0-9]{1,16})?\.tar\.gz\.enc$/;

export function isServerArchiveName(name: string): boolean {
  return ARCHIVE_NAME.test(name);
}

/** The keys of an archive and its checksum in the S3 storage (under the storage's own prefix). */
const REMOTE_PREFIX = 'berth-server/';
export function remoteKeys(fileName: string): { archive: string; checksum: string } {
  return { archive: `${REMOTE_PREFIX}${fileName}`, checksum: `${REMOTE_PREFIX}${fileName}.sha256` };
}

export const KEEP_MIN = 1;
export const KEEP_MAX = 100;
export const DEFAULT_KEEP = 7;
/** Failed runs kept (their files are gone already): enough to see a pattern, never a year of an hourly schedule failing. */
export const FAILED_KEPT = 10;

/** What a run left `running` by a stopped daemon ends with. */
export const DAEMON_STOPPED = 'the daemon stopped during the backup';

/**
 * Moves a run to `to` (with the patch in the same write) when the table allows it from its stored
 * status. Null when the run is gone (deleted meanwhile); throws IllegalBackupTransition otherwise.
 */
export async function recordServerBackupStatus(repo: Pick<ServerBackupsRepo, 'get' | 'setStatus'>, id: string, to: JobStatus, patch: ServerBackupPatch = {}): Promise<ServerBackupRecord | null> {
  const what = `Berth's backup ${id}`;
  const current = await repo.get(id);
  if (!current) return null;
  transition(current.status, to, what);
  if (await repo.setStatus(id, to, predecessorsOf(to), patch)) return { ...current, ...patch, status: to };
  const now = await repo.get(id);
  if (!now) return null;
  throw new IllegalBackupTransition(now.status, to, what);
}

/** A new run's record: `running` (or `failed` at once with `error`: a scheduled run that could not start). */
export function newRun(f: { id: string; trigger: ServerBackupTrigger; at: string; storageId: ServerBackupStorageId | null; version: string; error: string | null }): ServerBackupRecord {
  return {
    id: f.id,
    status: f.error === null ? 'running' : 'failed',
    trigger: f.trigger,
    startedAt: f.at,
    finishedAt: f.error === null ? null : f.at,
    fileName: null,
    sizeBytes: null,
    sha256: null,
    location: f.storageId === null ? 'disk' : 's3',
    storageId: f.storageId,
    berthVersion: f.version,
    counts: null,
    error: f.error,
  };
}

/** Every field that leaves, named (a record is never spread into an answer). */
export function runView(r: ServerBackupRecord): ServerBackupRun {
  return {
    id: r.id,
    status: r.status,
    trigger: r.trigger,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
    fileName: r.fileName,
    sizeBytes: r.sizeBytes,
    sha256: r.sha256,
    location: r.location,
    storageId: r.storageId,
    berthVersion: r.berthVersion,
    counts: r.counts,
    error: r.error,
  };
}

const ERROR_MAX = 500;

/** An error as a run's reason: one line, bounded. */
export function oneLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.replace(/\s+/g, ' ').trim().slice(0, ERROR_MAX) || 'unknown error';
}
