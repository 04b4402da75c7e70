// Disk space (GET /api/system/disk) and project quotas.

/** A volume whose free space decides whether new builds, deploys and backups may start. */
export interface DiskVolume {
  /** `data`: Berth's data dir (store, logs, backups); `docker`: Docker's data root (images, containers). */
  role: 'data' | 'docker';
  path: string;
  freeBytes: number;
  totalBytes: number;
}

/**
 * `GET /api/system/disk`: whether new work is paused for lack of disk. Keys over all projects also
 * get the threshold and the volumes; project keys only `low` and `message`.
 */
export interface DiskState {
  low: boolean;
  /** Why new builds, deploys and backups are refused; null while there is room. */
  message: string | null;
  minFreeBytes?: number;
  volumes?: DiskVolume[];
}

/** A project's quotas (or the server's defaults). */
export interface QuotaValues {
  maxServices: number;
  /** Backups kept, over all the project's database services (failed ones do not count). */
  maxBackups: number;
  /** Their total size in bytes. */
  maxBackupBytes: number;
  /** Images of successful deployments kept per service for rollbacks (the live one included). */
  maxImagesPerService: number;
}

/** What a project sets for itself; null follows the server's default. */
export type ProjectQuotas = { [K in keyof QuotaValues]: number | null };

/** `GET /api/projects/:projectId/quotas`. */
export interface ProjectQuotasAnswer {
  /** What applies now: the project's own value, else the server's default. */
  quotas: QuotaValues;
  overrides: ProjectQuotas;
  usage: { services: number; backups: number; backupBytes: number };
}
