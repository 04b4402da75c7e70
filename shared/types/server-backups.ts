// Berth's own backup driven by the daemon (GET/PATCH/POST /api/system/backups): one encrypted
// archive of Berth's state (the store, the data dir's secret, /etc/berth, Caddy's configuration and
// CA), the same archive `berth server backup` writes on the server, taken now or on a schedule,
// kept on this server's disk or uploaded to the S3 storage, the newest `keep` kept.
import type { JobStatus } from './backups.js';

/** What started a run: a client (`POST /api/system/backups`) or the schedule. */
export type ServerBackupTrigger = 'manual' | 'schedule';

/** Where a run's archive is: this server's disk (`<data dir>/server-backups`) or the S3 storage (under `berth-server/`). */
export type ServerBackupLocation = 'disk' | 's3';

/** The storage ids a run may go to: `remote` is the S3 storage of PUT /api/system/backup-storage; null is this server's disk. */
export type ServerBackupStorageId = 'remote';

export interface ServerBackupCounts {
  projects: number;
  services: number;
  keys: number;
  domains: number;
}

export interface ServerBackupRun {
  id: string;
  /** `running` until it ends `succeeded` or `failed`. */
  status: JobStatus;
  trigger: ServerBackupTrigger;
  startedAt: string;
  /** null while running. */
  finishedAt: string | null;
  /** The archive's name (`berth-server-<host>-<time>-<id>.tar.gz.enc`); null until it is written. */
  fileName: string | null;
  sizeBytes: number | null;
  /** SHA-256 of the encrypted archive (hex), what its `.sha256` beside it says. */
  sha256: string | null;
  location: ServerBackupLocation;
  /** `remote` for the S3 storage; null for this server's disk. */
  storageId: ServerBackupStorageId | null;
  /** The Berth version that wrote it. */
  berthVersion: string;
  /** What the archived store holds; null until written. */
  counts: ServerBackupCounts | null;
  /** Why it failed (one line); null otherwise. */
  error: string | null;
}

export interface ServerBackupSettings {
  /** A 5-field cron expression (UTC); null: no schedule. */
  schedule: string | null;
  /** `remote`: the S3 storage; null: this server's disk. */
  storageId: ServerBackupStorageId | null;
  /** How many succeeded runs are kept (1..100). */
  keep: number;
  /** Whether a passphrase is stored (it is never returned). */
  passphraseSet: boolean;
  /** When the schedule fires next; null without a schedule. */
  nextRunAt: string | null;
}

export interface ServerBackups {
  serverBackups: ServerBackupSettings;
  /** Newest first, at most 50. */
  runs: ServerBackupRun[];
}

/** PATCH /api/system/backups: every field optional; `schedule: null` turns the schedule off, `storageId: null` goes back to disk. */
export interface ServerBackupsPatch {
  schedule?: string | null;
  storageId?: ServerBackupStorageId | null;
  keep?: number;
  /** At least 12 characters; stored sealed, never returned. */
  passphrase?: string;
}
