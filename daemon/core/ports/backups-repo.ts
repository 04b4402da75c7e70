// What the store keeps about backups, their per-service settings, and data imports
// (daemon/store/backups-repo.ts implements the repository).
import { BACKUP_STORAGES } from '../../../shared/constants.js';
import type { Backup, BackupSettings, BackupStorageKind, BackupTrigger, BackupVerification, DataImport, GfsRetention, ImportSource, JobStatus, VerificationStatus } from '../../../shared/types.js';

// The wire types, defined once in shared/types/backups.ts, under the names core uses.
export { BACKUP_STORAGES };
export type BackupStorage = BackupStorageKind;
export type BackupStatus = JobStatus;
export type { BackupTrigger };
export type ScheduleKind = Exclude<BackupTrigger, 'manual'>;
export const SCHEDULE_KINDS: readonly ScheduleKind[] = ['daily', 'weekly', 'monthly'];

/** The stored records are the API's resources, field for field (shared/types.ts). */
export type BackupRecord = Backup;
export type BackupSettingsRecord = BackupSettings;

export const DEFAULT_KEEP: Record<ScheduleKind, number> = { daily: 7, weekly: 4, monthly: 12 };

export type { BackupVerification, GfsRetention, ImportSource, VerificationStatus };

export type ImportRecord = DataImport;

/** What may change on a backup besides its status (which only `setStatus` writes, through core/backup-states.ts). */
export type BackupPatch = Partial<Omit<BackupRecord, 'id' | 'serviceId' | 'status' | 'verification'>>;
/** What may change on an import besides its status (which only `setImportStatus` writes). */
export type ImportPatch = Partial<Omit<ImportRecord, 'id' | 'serviceId' | 'status'>>;

export interface BackupsRepo {
  insert(b: BackupRecord): Promise<void>;
  update(id: string, patch: BackupPatch): Promise<void>;
  /**
   * Sets the status (and `patch`) only while the stored status is one of `from`, in one statement;
   * false when it was not (or the backup is gone). Use core's `recordBackupStatus`, which checks the
   * state table.
   */
  setStatus(id: string, to: BackupStatus, from: readonly BackupStatus[], patch: BackupPatch): Promise<boolean>;
  get(id: string): Promise<BackupRecord | null>;
  /** Newest first: every backup of the service (a database's, or all its volumes'). */
  listByService(serviceId: string): Promise<BackupRecord[]>;
  /** Newest first: the backups of one volume of the service. */
  listByVolume(serviceId: string, volume: string): Promise<BackupRecord[]>;
  listByStatus(status: BackupStatus): Promise<BackupRecord[]>;
  /**
   * Writes a backup's restore test only while its stored one's status is one of `from` (null: none
   * yet), in one statement; false when it was not. Use core's `recordVerification`.
   */
  setVerification(id: string, to: BackupVerification, from: readonly (VerificationStatus | null)[]): Promise<boolean>;
  /** Backups whose restore test has this status (start-up recovery: `running`). */
  listByVerification(status: VerificationStatus): Promise<BackupRecord[]>;
  delete(id: string): Promise<void>;
  /** A database service's settings (volume null), or those of one of its volumes. */
  getSettings(serviceId: string, volume?: string | null): Promise<BackupSettingsRecord | null>;
  putSettings(s: BackupSettingsRecord): Promise<void>;
  listAutomatic(): Promise<BackupSettingsRecord[]>;
  /** Database services' settings with a restore-test schedule. */
  listVerifySchedules(): Promise<BackupSettingsRecord[]>;
  insertImport(i: ImportRecord): Promise<void>;
  updateImport(id: string, patch: ImportPatch): Promise<void>;
  /** As `setStatus`, for an import (core's `recordImportStatus`). */
  setImportStatus(id: string, to: BackupStatus, from: readonly BackupStatus[], patch: ImportPatch): Promise<boolean>;
  getImport(id: string): Promise<ImportRecord | null>;
  listImports(serviceId: string): Promise<ImportRecord[]>;
  listImportsByStatus(status: BackupStatus): Promise<ImportRecord[]>;
}
