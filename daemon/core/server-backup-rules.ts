// The rules of Berth's own backup, said once for core, the adapters, the on-server command and the
// installer's restore: the passphrase, the archive's name (what Berth may ever remove from its
// folder or its prefix in the bucket), the bounds of `keep`, and every status write of a run (the
// backups' state table: `running -> succeeded | failed`, written with a conditional UPDATE).
import { IllegalBackupTransition, predecessorsOf, transition } from './backup-states.js';
import type { JobStatus } from '../../shared/types.js';
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
export const REMOTE_PREFIX = 'berth-server/';
export function remoteKeys(fileName: string): { archive: string; checksum: string } {
  return { archive: `${REMOTE_PREFIX}${fileName}`, checksum: `${REMOTE_PREFIX}${fileName}.sha256` };
}

export const KEEP_MIN = 1;
export const KEEP_MAX = 100;
export const DEFAULT_KEEP = 7;

/** What a run left `running` by a stopped daemon ends with. */
export const DAEMON_STOPPED = 'the daemon stopped during the backup';

/**
 * Moves a run to `to` (with the patch in the same write) when the table allows it from its stored
 * status. Null when the run is gone (deleted meanwhile); throws IllegalBackupTransition otherwise.
 */
export async function recordServerBackupStatus(
  repo: Pick<ServerBackupsRepo, 'get' | 'setStatus'>,
  id: string,
  to: JobStatus,
  patch: ServerBackupPatch = {},
): Promise<ServerBackupRecord | null> {
  const what = `Berth's backup ${id}`;
  const current = await repo.get(id);
  if (!current) return null;
  transition(current.status, to, what);
  if (await repo.setStatus(id, to, predecessorsOf(to), patch)) return { ...current, ...patch, status: to };
  const now = await repo.get(id);
  if (!now) return null;
  throw new IllegalBackupTransition(now.status, to, what);
}
