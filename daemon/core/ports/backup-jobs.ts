// Backups, restores, downloads and imports of a database service, run by daemon/backups/backups.ts.
// Core (core/backups.ts) has checked the key and that the service is a database it can see.
import type { Readable } from 'node:stream';
import type { ServiceRecord } from '../records.js';
import type { BackupRecord, BackupSettingsRecord, BackupStorage, BackupTrigger, GfsRetention, ImportRecord, ImportSource } from './backups-repo.js';

export interface BackupListing {
  backups: BackupRecord[];
  settings: BackupSettingsRecord;
  remote: { connected: boolean };
}

export interface SettingsPatch {
  storage?: BackupStorage;
  automaticEnabled?: boolean;
  dailyEnabled?: boolean;
  weeklyEnabled?: boolean;
  monthlyEnabled?: boolean;
  keepDaily?: number;
  keepWeekly?: number;
  keepMonthly?: number;
  /** A 5-field cron expression (UTC), or null for no scheduled restore tests (database services only). */
  verifySchedule?: string | null;
  gfs?: GfsRetention | null;
}

export interface RestoreResult {
  ok: true;
  restoredAt: string;
  backup: { id: string; status: string };
}

export interface BackupDownload {
  body: Readable;
  sizeBytes: number;
  filename: string;
}

/**
 * Where an import's source may be, for the key that starts it: anywhere for a key over all
 * projects; else not this host, except the host ports of its own projects' databases.
 */
export type ImportReach = { anywhere: true } | { anywhere: false; ownHostPorts: ReadonlySet<number> };

export interface BackupJobs {
  list(service: ServiceRecord): Promise<BackupListing>;
  patchSettings(service: ServiceRecord, patch: SettingsPatch): Promise<BackupSettingsRecord>;
  /** Starts a backup in the background; answers at once with the `running` record. */
  start(service: ServiceRecord, storage: BackupStorage, trigger: BackupTrigger): Promise<BackupRecord>;
  restore(service: ServiceRecord, backupId: string): Promise<RestoreResult>;
  /** Starts a restore test of a succeeded backup in the background; answers the backup with its `running` verification. */
  verify(service: ServiceRecord, backupId: string): Promise<BackupRecord>;
  download(service: ServiceRecord, backupId: string): Promise<BackupDownload>;
  delete(service: ServiceRecord, backupId: string): Promise<void>;
  listImports(service: ServiceRecord): Promise<ImportRecord[]>;
  startImport(service: ServiceRecord, source: ImportSource, sourceUrl: string, reach: ImportReach): Promise<ImportRecord>;
}

/** A volume of a service, as the volume backups see it: its name in the service and its Docker name. */
export interface ServiceVolumeRef {
  name: string;
  dockerName: string;
  mountPath: string;
}

/** What a volume restore answers: the database restore's shape, and what happened to the service. */
export interface VolumeRestoreResult extends RestoreResult {
  /** The steps taken, in order (the service stopped while the volume was replaced, then started again). */
  detail: string[];
}

/**
 * Backups, restores and downloads of a service's volumes (daemon/backups/volume-backups.ts). Core
 * (core/volume-backups.ts) has checked the key, the service and that the service mounts the volume.
 */
export interface VolumeBackupJobs {
  list(service: ServiceRecord, volume: ServiceVolumeRef): Promise<BackupListing>;
  patchSettings(service: ServiceRecord, volume: ServiceVolumeRef, patch: SettingsPatch): Promise<BackupSettingsRecord>;
  /** Starts a backup in the background; answers at once with the `running` record. */
  start(service: ServiceRecord, volume: ServiceVolumeRef, storage: BackupStorage, trigger: BackupTrigger): Promise<BackupRecord>;
  restore(service: ServiceRecord, volume: ServiceVolumeRef, backupId: string): Promise<VolumeRestoreResult>;
  download(service: ServiceRecord, volume: ServiceVolumeRef, backupId: string): Promise<BackupDownload & { checksum: string }>;
  delete(service: ServiceRecord, volume: ServiceVolumeRef, backupId: string): Promise<void>;
}
