// What the store keeps about backups, their per-service settings, and data imports.
import type { DatabaseEngine } from '../../shared/types.js';

export const BACKUP_STORAGES = ['disk', 'remote', 'disk+remote'] as const;
export type BackupStorage = (typeof BACKUP_STORAGES)[number];
export type BackupStatus = 'running' | 'succeeded' | 'failed';
export type BackupTrigger = 'manual' | 'daily' | 'weekly' | 'monthly';
export type ScheduleKind = Exclude<BackupTrigger, 'manual'>;
export const SCHEDULE_KINDS: readonly ScheduleKind[] = ['daily', 'weekly', 'monthly'];

export interface BackupRecord {
  id: string;
  serviceId: string;
  engine: DatabaseEngine;
  status: BackupStatus;
  trigger: BackupTrigger;
  storage: BackupStorage;
  format: string;
  localPath: string | null;
  remoteKey: string | null;
  sizeBytes: number;
  checksum: string;
  error: string | null;
  createdAt: string;
  startedAt: string;
  finishedAt: string | null;
}

export interface BackupSettingsRecord {
  serviceId: string;
  storage: BackupStorage;
  automaticEnabled: boolean;
  dailyEnabled: boolean;
  weeklyEnabled: boolean;
  monthlyEnabled: boolean;
  /** How many succeeded backups of each schedule to keep. */
  keepDaily: number;
  keepWeekly: number;
  keepMonthly: number;
  createdAt: string;
  updatedAt: string;
}

export const DEFAULT_KEEP: Record<ScheduleKind, number> = { daily: 7, weekly: 4, monthly: 12 };

export type ImportSource = 'postgres-url' | 'redis-url';

export interface ImportRecord {
  id: string;
  serviceId: string;
  engine: DatabaseEngine;
  source: ImportSource;
  sourceLabel: string;
  status: BackupStatus;
  error: string | null;
  /** Progress lines, newest last (never a credential). */
  log: string[];
  createdAt: string;
  startedAt: string;
  finishedAt: string | null;
}

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
