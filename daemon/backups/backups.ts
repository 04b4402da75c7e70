// The backup runner: backups of database services taken by the engine's own tool inside the live
// container, kept on disk and/or in S3-compatible storage, restored, downloaded, deleted; and data
// imported from another server's URL. One job (backup, restore or import) per service at a time.
// The key and the service are checked in core (core/backups.ts); what may happen to a backup and
// every status write are core's rules (core/backup-states.ts). This file holds the busy lock and
// the jobs under way; the files are in backup-job.ts, the imports in import-job.ts.
import type Docker from 'dockerode';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { DatabaseEngine } from '../../shared/types.js';
import { defaultSettings, requireDeletable, requireDownloadable, requireImportTarget, requireRestorable, requireStorageAvailable } from '../core/backup-states.js';
import type { BackupEventStatus, EventSink } from '../core/events.js';
import { Conflict, InvalidInput, NotFound } from '../core/errors.js';
import type { BackupDownload, BackupJobs, BackupListing, ImportReach, RestoreResult, SettingsPatch } from '../core/ports/backup-jobs.js';
import { newId } from '../core/ids.js';
import type { ServiceRecord } from '../core/records.js';
import type { EngineBackupTool, ToolContext } from '../databases/backup-tool.js';
import { checksumOf } from './backup-file.js';
import { downloadName, localCopy, openDownload, removeFiles, runBackup, type BackupFilesDeps } from './backup-job.js';
import { runImport, type ImportJobDeps } from './import-job.js';
import type { RestoreVerifier } from './verify.js';
import { messageOf, toolContext, type LiveDb } from './job-parts.js';
import { maskedSourceLabel, parseSourceUrl } from '../databases/source-url.js';
import { pinSourceAddress, type ReachFacts } from './source-reach.js';
import type { BackupRecord, BackupSettingsRecord, BackupStorage, BackupTrigger, ImportRecord, ImportSource } from '../core/ports/backups-repo.js';

export interface BackupsDeps extends BackupFilesDeps, ImportJobDeps {
  docker: Docker;
  /** Restore tests (backups/verify.ts): they read only a backup's file, so they do not take this runner's lock. */
  verifier: Pick<RestoreVerifier, 'start'>;
  tool(engine: DatabaseEngine): EngineBackupTool;
  /** The live container and resolved variables of a database service; null when it is not running. */
  live(service: ServiceRecord): Promise<LiveDb | null>;
  /** Points the host port at a database container that a restore restarted. */
  restarted(serviceId: string): Promise<void>;
  /** What a redis import's source is checked against (this host's addresses, Docker's subnets, DNS). */
  reach: ReachFacts;
  /** Where `backup` events go (the daemon's event hub); none in tools that need no events. */
  events?: EventSink;
  /** Told after a service's backup settings were saved (the scheduler arms itself on the first automatic schedule). */
  settingsSaved?: () => void;
}

export class BackupRunner implements BackupJobs {
  /** Services with a backup, restore or import under way. */
  private busy = new Set<string>();
  private jobs = new Set<Promise<unknown>>();
  private abort = new AbortController();

  constructor(private d: BackupsDeps) {}

  async list(service: ServiceRecord): Promise<BackupListing> {
    const remote = await this.d.remote();
    return {
      backups: await this.d.store.backups.listByService(service.id),
      settings: await this.settingsOf(service),
      remote: { connected: remote ? (await remote.check()).connected : false },
    };
  }

  async patchSettings(service: ServiceRecord, patch: SettingsPatch): Promise<BackupSettingsRecord> {
    const current = await this.settingsOf(service);
    const next: BackupSettingsRecord = { ...current, ...definedOnly(patch), updatedAt: this.d.clock.now() };
    requireStorageAvailable(next.storage, next.storage !== 'disk' && (await this.d.remote()) !== null);
    await this.d.store.backups.putSettings(next);
    this.d.settingsSaved?.();
    return next;
  }

  /** Starts a backup in the background; answers at once with the `running` record. Used by the schedules too (they act for the daemon, not for a key). */
  async start(service: ServiceRecord, storage: BackupStorage, trigger: BackupTrigger, at: string = this.d.clock.now()): Promise<BackupRecord> {
    const remote = storage === 'disk' ? null : await this.d.remote();
    requireStorageAvailable(storage, remote !== null);
    const live = await this.requireLive(service);
    this.claim(service.id);
    const tool = this.d.tool(service.databaseEngine!);
    const record = this.newRecord(service, tool, trigger, storage, at, null);
    try {
      await this.d.store.backups.insert(record);
    } catch (err) {
      this.busy.delete(service.id);
      throw err;
    }
    this.announce(service, record.id, 'running');
    const ctx = this.context(live, () => undefined);
    const job = runBackup(this.d, record, tool, ctx, remote, (status) => this.announce(service, record.id, status));
    this.track(job.finally(() => this.busy.delete(service.id)));
    return record;
  }

  /**
   * Records a scheduled backup that was not taken (over its project's quotas, or the disk is low) as
   * `failed` with the reason: the slot is answered, and the failure is seen like any other.
   */
  async recordRefused(service: ServiceRecord, storage: BackupStorage, trigger: BackupTrigger, reason: string, at: string = this.d.clock.now()): Promise<BackupRecord> {
    const record = this.newRecord(service, this.d.tool(service.databaseEngine!), trigger, storage, at, reason);
    await this.d.store.backups.insert(record);
    this.announce(service, record.id, 'failed');
    return record;
  }

  private newRecord(service: ServiceRecord, tool: EngineBackupTool, trigger: BackupTrigger, storage: BackupStorage, at: string, refused: string | null): BackupRecord {
    return {
      id: newId(),
      serviceId: service.id,
      volume: null,
      engine: service.databaseEngine!,
      status: refused === null ? 'running' : 'failed',
      trigger,
      storage,
      format: tool.format,
      localPath: null,
      remoteKey: null,
      sizeBytes: 0,
      checksum: '',
      error: refused,
      createdAt: at,
      startedAt: at,
      finishedAt: refused === null ? null : at,
      verification: null,
    };
  }

  /** An `import` event on the daemon's stream: the imports list refetches on it. */
  private announceImport(service: ServiceRecord, importId: string, status: BackupEventStatus): void {
    try {
      this.d.events?.publish({ type: 'import', projectId: service.projectId, data: { importId, serviceId: service.id, projectId: service.projectId, status } });
    } catch (err) {
      this.d.log(`publishing the ${status} event of import ${importId}`, err);
    }
  }

  /** A `backup` event on the daemon's stream (the desktop tray and notification channels hear it). */
  private announce(service: ServiceRecord, backupId: string, status: BackupEventStatus): void {
    try {
      this.d.events?.publish({ type: 'backup', projectId: service.projectId, data: { backupId, serviceId: service.id, projectId: service.projectId, status } });
    } catch (err) {
      this.d.log(`publishing the ${status} event of backup ${backupId}`, err);
    }
  }

  /** Replaces the database's data with a backup's, after checking the file against its checksum. */
  async restore(service: ServiceRecord, backupId: string): Promise<RestoreResult> {
    const backup = await this.backupOf(service, backupId);
    requireRestorable(backup);
    const live = await this.requireLive(service);
    this.claim(service.id);
    const job = (async () => {
      const { path, temporary } = await localCopy(this.d, backup, this.abort.signal);
      try {
        const actual = await checksumOf(path);
        if (actual !== backup.checksum) throw new Conflict(`the backup file does not match its checksum (${actual} instead of ${backup.checksum}); nothing was restored`, 'checksum_mismatch');
        const ctx = this.context(live, () => this.d.restarted(service.id));
        await this.d.tool(service.databaseEngine!).restore(ctx, createReadStream(path));
      } finally {
        if (temporary) await rm(path, { force: true });
      }
    })();
    this.track(job);
    try {
      await job;
    } catch (err) {
      if (err instanceof Conflict || err instanceof InvalidInput) throw err;
      throw new Conflict(`the restore failed: ${messageOf(err)}`, 'restore_failed');
    } finally {
      this.busy.delete(service.id);
    }
    return { ok: true, restoredAt: this.d.clock.now(), backup: { id: backup.id, status: backup.status } };
  }

  verify(service: ServiceRecord, backupId: string): Promise<BackupRecord> {
    return this.d.verifier.start(service, backupId);
  }

  async download(service: ServiceRecord, backupId: string): Promise<BackupDownload> {
    const backup = await this.backupOf(service, backupId);
    requireDownloadable(backup);
    return openDownload(this.d, backup, downloadName(service.slug, backup));
  }

  async delete(service: ServiceRecord, backupId: string): Promise<void> {
    const backup = await this.backupOf(service, backupId);
    requireDeletable(backup);
    await this.removeFiles(backup);
    await this.d.store.backups.delete(backup.id);
  }

  /** Removes a backup's file from every storage it is in. */
  removeFiles(backup: BackupRecord): Promise<void> {
    return removeFiles(this.d, backup);
  }

  async listImports(service: ServiceRecord): Promise<ImportRecord[]> {
    return this.d.store.backups.listImports(service.id);
  }

  async startImport(service: ServiceRecord, source: ImportSource, sourceUrl: string, reach: ImportReach): Promise<ImportRecord> {
    const engine = service.databaseEngine!;
    requireImportTarget(source, engine);
    const url = parseSourceUrl(source, sourceUrl);
    const live = await this.requireLive(service);
    // the redis import connects from the daemon, on the host; pg_dump runs in the tenant's container
    const address = source === 'redis-url' ? await pinSourceAddress(url, reach, this.d.reach) : null;
    this.claim(service.id);
    const now = this.d.clock.now();
    const record: ImportRecord = {
      id: newId(),
      serviceId: service.id,
      engine,
      source,
      sourceLabel: maskedSourceLabel(sourceUrl),
      status: 'running',
      error: null,
      log: [],
      createdAt: now,
      startedAt: now,
      finishedAt: null,
    };
    try {
      await this.d.store.backups.insertImport(record);
    } catch (err) {
      this.busy.delete(service.id);
      throw err;
    }
    this.announceImport(service, record.id, 'running');
    const job = runImport(this.d, record, live, sourceUrl, address, this.abort.signal, (log) => this.context(live, () => undefined, log));
    this.track(job.finally(() => this.busy.delete(service.id)).then((status) => this.announceImport(service, record.id, status)));
    return record;
  }

  /** Waits for every job under way (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.jobs.size > 0) await Promise.allSettled([...this.jobs]);
  }

  /** Stops jobs under way (their records stay `running`; start-up recovery fails them). */
  async shutdown(): Promise<void> {
    this.abort.abort();
    await this.settled();
  }

  async settingsOf(service: ServiceRecord): Promise<BackupSettingsRecord> {
    return (await this.d.store.backups.getSettings(service.id)) ?? defaultSettings(service);
  }

  isBusy(serviceId: string): boolean {
    return this.busy.has(serviceId);
  }

  private claim(serviceId: string): void {
    if (this.busy.has(serviceId)) throw new Conflict('a backup, restore or import of this database is already under way', 'busy');
    this.busy.add(serviceId);
  }

  private track(job: Promise<unknown>): void {
    const tracked = job.catch((err: unknown) => this.d.log('backup job', err)).finally(() => this.jobs.delete(tracked));
    this.jobs.add(tracked);
  }

  private context(live: LiveDb, restarted: () => Promise<void> | void, log?: (line: string) => void): ToolContext {
    return toolContext(live, this.abort.signal, restarted, log);
  }

  private async requireLive(service: ServiceRecord): Promise<LiveDb> {
    const live = await this.d.live(service);
    if (!live) throw new Conflict(`${service.name} is not running: deploy it first`, 'database_unavailable');
    return live;
  }

  private async backupOf(service: ServiceRecord, backupId: string): Promise<BackupRecord> {
    const backup = await this.d.store.backups.get(backupId);
    if (!backup || backup.serviceId !== service.id) throw new NotFound('backup not found');
    return backup;
  }
}

function definedOnly<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<T>;
}
