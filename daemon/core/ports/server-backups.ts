// Berth's own backup as core sees the world outside: the runs' table, the archive maker with its
// local folder (<data dir>/server-backups; daemon/server-tools/server-archive-files.ts), and the
// schedule's timer (daemon/backups/server-backup-schedule.ts). The S3 storage is the database
// backups' RemoteStore (ports/remote-store.ts).
import type { Readable } from 'node:stream';
import type { JobStatus, ServerBackupCounts, ServerBackupRun } from '../../../shared/types.js';

/** A run as stored: the API's shape (views copy it field by field). */
export type ServerBackupRecord = ServerBackupRun;

/** What a status write may set beside the status (never the status itself: recordServerBackupStatus does). */
export type ServerBackupPatch = Partial<Pick<ServerBackupRecord, 'finishedAt' | 'fileName' | 'sizeBytes' | 'sha256' | 'counts' | 'error' | 'berthVersion'>>;

export interface ServerBackupsRepo {
  insert(run: ServerBackupRecord): Promise<void>;
  get(id: string): Promise<ServerBackupRecord | null>;
  /** Newest first. */
  list(limit: number): Promise<ServerBackupRecord[]>;
  /** Every run of that status, newest first. */
  byStatus(status: JobStatus): Promise<ServerBackupRecord[]>;
  /** Writes `to` (and the patch) only while the stored status is one of `from`; false when it was not. */
  setStatus(id: string, to: JobStatus, from: readonly JobStatus[], patch: ServerBackupPatch): Promise<boolean>;
  /** Names the archive of a run still `running` (so that start-up recovery can remove it); false when it is not running. */
  noteFile(id: string, fileName: string): Promise<boolean>;
  delete(id: string): Promise<void>;
}

export interface ServerArchiveMade {
  fileName: string;
  sha256: string;
  sizeBytes: number;
  berthVersion: string;
  counts: ServerBackupCounts;
}

/** A local file of the folder: where it is and how big. */
export interface LocalFile {
  path: string;
  sizeBytes: number;
}

/**
 * The archive maker and its folder. Every name given is checked against Berth's own pattern
 * (core/server-backup-rules.ts) by the adapter too: nothing else in the folder is ever opened or removed.
 */
export interface ServerArchivePort {
  /** Writes the encrypted archive and its `.sha256` into the folder; `tag` ends the name (the run's). */
  create(passphrase: string, tag: string, at: Date): Promise<ServerArchiveMade>;
  /** The archive and its `.sha256` in the folder; null when the archive is not there. */
  local(fileName: string): Promise<{ archive: LocalFile; checksum: LocalFile | null } | null>;
  /** The archive's bytes; null when it is not there. */
  open(fileName: string): Promise<{ body: Readable; sizeBytes: number } | null>;
  /** Removes the archive and its `.sha256`; nothing when they are gone. */
  remove(fileName: string): Promise<void>;
  /** Removes what an interrupted run left in the folder: its staging folders and `.part` files. */
  removePartial(): Promise<void>;
}

/** The schedule's timer: one task for the whole server, armed with a 5-field cron expression (UTC). */
export interface ServerBackupSchedulePort {
  /** Arms (or with null disarms) the timer; `fire` is called when it is due. */
  arm(schedule: string | null, fire: () => Promise<void>): Promise<void>;
  /** When the armed timer fires next; null when it is not armed. */
  nextRun(): Date | null;
}
