// What the store keeps about backups, their per-service settings, and data imports
// (daemon/store/backups-repo.ts implements the repository).
import { BACKUP_STORAGES } from '../../../shared/constants.js';
import type { Backup, BackupSettings, BackupStorageKind, BackupTrigger, DataImport, ImportSource, JobStatus } from '../../../shared/types.js';

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

export type { ImportSource };

export type ImportRecord = DataImport;

export interface BackupsRepo {
  insert(b: BackupRecord): Promise<void>;
  update(id: string, patch: Partial<BackupRecord>): Promise<void>;
  get(id: string): Promise<BackupRecord | null>;
  /** Newest first. */
  listByService(serviceId: string): Promise<BackupRecord[]>;
  listByStatus(status: BackupStatus): Promise<BackupRecord[]>;
  delete(id: string): Promise<void>;
  getSettings(serviceId: string): Promise<BackupSettingsRecord | null>;
  putSettings(s: BackupSettingsRecord): Promise<void>;
  listAutomatic(): Promise<BackupSettingsRecord[]>;
  insertImport(i: ImportRecord): Promise<void>;
  updateImport(id: string, patch: Partial<ImportRecord>): Promise<void>;
  getImport(id: string): Promise<ImportRecord | null>;
  listImports(serviceId: string): Promise<ImportRecord[]>;
  listImportsByStatus(status: BackupStatus): Promise<ImportRecord[]>;
}
