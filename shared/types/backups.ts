// Backups and imports of database services, and the remote storage backups go to. What each
// status means is in ../statuses.ts.

import type { Timestamp } from './common.js';
import type { DatabaseEngine } from './databases.js';

/** Remote (S3-compatible) backup storage as the API shows it: the secret access key is never returned. */
export interface BackupStorageSettings {
  endpoint: string;
  region: string;
  bucket: string;
  /** '' or ending with '/'; objects are stored under `<prefix><serviceId>/`. */
  prefix: string;
  accessKeyId: string;
  hasSecret: boolean;
  forcePathStyle: boolean;
}

/** GET / PUT /api/system/backup-storage: the settings and the result of a real, authenticated call. */
export interface BackupStorageStatus {
  storage: BackupStorageSettings | null;
  connected: boolean;
  detail: string;
}

/** PUT /api/system/backup-storage. secretAccessKey may be left out to keep the stored one (same endpoint and key id). */
export interface BackupStorageInput {
  endpoint: string;
  region: string;
  bucket: string;
  prefix?: string;
  accessKeyId: string;
  secretAccessKey?: string;
  /** Default true. */
  forcePathStyle?: boolean;
}

/** Where an import reads from (`POST .../database/import/:source`); which engines take which is in ../engines.ts. */
export type ImportSource = 'postgres-url' | 'redis-url';

/** A backup or an import: `running` until it ends `succeeded` or `failed`. */
export type JobStatus = 'running' | 'succeeded' | 'failed';

/** `manual` (the API or a client), else the schedule that made it. */
export type BackupTrigger = 'manual' | 'daily' | 'weekly' | 'monthly';

export type BackupStorageKind = 'disk' | 'remote' | 'disk+remote';

export interface Backup {
  id: string;
  serviceId: string;
  /** The database engine; null for a volume's backup. */
  engine: DatabaseEngine | null;
  /** The volume a volume backup is of (a tarball, format `tar`); null for a database's backup. */
  volume: string | null;
  status: JobStatus;
  trigger: BackupTrigger;
  storage: BackupStorageKind;
  format: string;
  localPath: string | null;
  remoteKey: string | null;
  sizeBytes: number;
  checksum: string;
  error: string | null;
  createdAt: Timestamp;
  startedAt: Timestamp;
  finishedAt: Timestamp | null;
  /** The newest restore test of this backup (POST .../backups/:backupId/verify, or the verify schedule); null before the first. */
  verification: BackupVerification | null;
}

/** A restore test: `running`, then `verified` (restored into a throwaway container and the engine answered) or `failed`. */
export type VerificationStatus = 'running' | 'verified' | 'failed';

/** The backup restored into a throwaway container of the same engine and image, then counted through the adapter. */
export interface BackupVerification {
  status: VerificationStatus;
  startedAt: Timestamp;
  finishedAt: Timestamp | null;
  /** Tables (redis: 1 keyspace) the restored database answered; null until verified. */
  tables: number | null;
  /** Rows in those tables (redis: keys); null until verified. */
  rows: number | null;
  /** Why the restore test failed; null otherwise. */
  error: string | null;
}

/**
 * Grandfather-father-son retention: keep the newest backup of each of the N newest hours, days, weeks
 * (ISO, Monday first) and months (UTC). null for a period: that period keeps nothing by itself.
 */
export interface GfsRetention {
  hourly: number | null;
  daily: number | null;
  weekly: number | null;
  monthly: number | null;
}

export interface BackupSettings {
  serviceId: string;
  /** The volume these settings are for; null for a database service's. */
  volume: string | null;
  storage: BackupStorageKind;
  automaticEnabled: boolean;
  dailyEnabled: boolean;
  weeklyEnabled: boolean;
  monthlyEnabled: boolean;
  keepDaily: number;
  keepWeekly: number;
  keepMonthly: number;
  /** 5-field cron (UTC): each run restore-tests the newest succeeded backup; null for none. */
  verifySchedule: string | null;
  /**
   * Grandfather-father-son retention of this database's succeeded backups; null (or every period
   * null): the per-schedule keep counts above apply. Never removes the newest verified backup.
   */
  gfs: GfsRetention | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface DataImport {
  id: string;
  serviceId: string;
  engine: DatabaseEngine;
  source: ImportSource;
  sourceLabel: string;
  status: JobStatus;
  error: string | null;
  log: string[];
  createdAt: Timestamp;
  startedAt: Timestamp;
  finishedAt: Timestamp | null;
}
