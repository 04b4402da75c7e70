// The client's calls for database services: tables, rows, queries, PostgreSQL TLS, remote backup
// storage, backups (with downloads), imports; and the log streams.
import type {
  ImportSource,
  Backup,
  BackupSettings,
  BackupStorageInput,
  BackupStorageKind,
  BackupStorageStatus,
  DataImport,
  DatabaseEngine,
  DatabaseQueryResult,
  DatabaseRowsPage,
  DatabaseTable,
  DbCell,
  DbRow,
  PostgresTls,
} from '../types.js';
import { routePath } from '../api-routes.js';
import type { SseEvent } from '../sse.js';
import { SystemClient } from './system.js';

export class DatabasesClient extends SystemClient {
  // Databases: tables, rows, queries and PostgreSQL TLS. `database` is redis's logical database.
  databaseTables(serviceId: string, opts: { database?: number } = {}): Promise<{ engine: DatabaseEngine; tables: DatabaseTable[] }> {
    return this.api('database.tables', { serviceId }, undefined, opts);
  }
  /** A page from the start, `offset` rows in, or `after` a page's `nextCursor` (not both). */
  databaseRows(serviceId: string, q: { table: string; limit?: number; offset?: number; after?: string; database?: number }): Promise<DatabaseRowsPage> {
    return this.api('database.rows', { serviceId }, undefined, q);
  }
  databaseQuery(serviceId: string, sql: string, opts: { database?: number } = {}): Promise<DatabaseQueryResult> {
    return this.api('database.query', { serviceId }, { sql, ...opts });
  }
  insertDatabaseRow(serviceId: string, input: { table: string; values: DbRow; database?: number }): Promise<{ ok: true; table: string; id: DbCell }> {
    return this.api('database.rows.insert', { serviceId }, input);
  }
  updateDatabaseRow(serviceId: string, input: { table: string; primaryKey: DbRow; values: DbRow; database?: number }): Promise<{ ok: true }> {
    return this.api('database.rows.update', { serviceId }, input);
  }
  deleteDatabaseRow(serviceId: string, input: { table: string; primaryKey: DbRow; database?: number }): Promise<{ ok: true }> {
    return this.api('database.rows.delete', { serviceId }, input);
  }
  databaseTls(serviceId: string): Promise<{ tls: PostgresTls }> {
    return this.api('database.tls', { serviceId });
  }
  /** The Berth CA that signs database certificates, as PEM text. */
  databaseCaPem(serviceId: string): Promise<string> {
    return this.api('database.tls.ca', { serviceId });
  }

  // Remote (S3-compatible) backup storage
  backupStorage(): Promise<BackupStorageStatus> {
    return this.api('backup-storage.get', {});
  }
  putBackupStorage(input: BackupStorageInput): Promise<BackupStorageStatus> {
    return this.api('backup-storage.put', {}, input);
  }
  deleteBackupStorage(): Promise<{ ok: true }> {
    return this.api('backup-storage.delete', {});
  }

  // Backups, restores, downloads and imports of database services
  listBackups(serviceId: string): Promise<{ backups: Backup[]; settings: BackupSettings; remote: { connected: boolean } }> {
    return this.api('backups.list', { serviceId });
  }
  createBackup(serviceId: string, storage: BackupStorageKind = 'disk'): Promise<{ backup: Backup }> {
    return this.api('backups.create', { serviceId }, { storage });
  }
  patchBackupSettings(serviceId: string, patch: Partial<Omit<BackupSettings, 'serviceId' | 'createdAt' | 'updatedAt'>>): Promise<{ settings: BackupSettings }> {
    return this.api('backups.settings.patch', { serviceId }, patch);
  }
  restoreBackup(serviceId: string, backupId: string): Promise<{ ok: true; restoredAt: string; backup: { id: string; status: string } }> {
    return this.api('backups.restore', { serviceId, backupId });
  }
  /** Starts a restore test of a succeeded backup (202): the backup with its `running` verification. */
  verifyBackup(serviceId: string, backupId: string): Promise<{ backup: Backup }> {
    return this.api('backups.verify', { serviceId, backupId });
  }
  /** The backup file's bytes. */
  async downloadBackup(serviceId: string, backupId: string): Promise<{ bytes: Buffer; headers: Headers }> {
    const res = await this.openBackupDownload(serviceId, backupId);
    return { bytes: Buffer.from(await res.arrayBuffer()), headers: res.headers };
  }
  /** The download response, for streaming a big file to disk; throws ApiError on an error status. */
  openBackupDownload(serviceId: string, backupId: string, signal?: AbortSignal): Promise<Response> {
    return this.openDownload('backups.download', { serviceId, backupId }, signal);
  }
  deleteBackup(serviceId: string, backupId: string): Promise<{ ok: true }> {
    return this.api('backups.delete', { serviceId, backupId });
  }
  listImports(serviceId: string): Promise<{ imports: DataImport[] }> {
    return this.api('imports.list', { serviceId });
  }
  importFrom(serviceId: string, source: ImportSource, sourceUrl: string): Promise<{ result: { id: string; status: string; source: string; createdAt: string } }> {
    return this.api(source === 'postgres-url' ? 'imports.postgres-url' : 'imports.redis-url', { serviceId }, { sourceUrl });
  }

  /** A deployment's build log as SSE: `snapshot`, `log`, `ping`, then `end` {status}; resume with lastEventId. */
  deploymentStream(deploymentId: string, opts: { lastEventId?: string; signal?: AbortSignal } = {}): AsyncGenerator<SseEvent> {
    return this.stream(routePath('deployments.stream', { deploymentId }), opts);
  }
  /** A service's running container output as SSE: `snapshot` (the tail), `log`, `status` {ok, closed}. */
  runtimeLogStream(serviceId: string, opts: { lastEventId?: string; signal?: AbortSignal } = {}): AsyncGenerator<SseEvent> {
    return this.stream(routePath('services.runtime-logs', { serviceId }), opts);
  }
}
