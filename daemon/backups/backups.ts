// Backups of database services: taken by the engine's own tool inside the live container, kept on
// disk and/or in S3-compatible storage, restored, downloaded, deleted; and data imported from
// another server's URL. One job (backup, restore or import) per service at a time. A backup says
// `succeeded` only once its file is whole on disk (fsynced, renamed) and, when asked, uploaded.
// The key and the service are checked in core (core/backups.ts); the runner gets the database service.
import type Docker from 'dockerode';
import { createReadStream, existsSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { DatabaseEngine } from '../../shared/types.js';
import type { Clock } from '../core/clock.js';
import type { BackupEventStatus, EventSink } from '../core/events.js';
import { Conflict, InvalidInput, NotFound } from '../core/errors.js';
import type { BackupDownload, BackupJobs, BackupListing, ImportReach, RestoreResult, SettingsPatch } from '../core/ports/backup-jobs.js';
import { newId } from '../core/ids.js';
import type { ServiceRecord } from '../core/records.js';
import type { Store } from '../core/store.js';
import { checksumOf, writeWhole } from './backup-file.js';
import type { EngineBackupTool, ToolContext } from '../databases/backup-tool.js';
import { maskedSourceLabel, parseSourceUrl } from './source-url.js';
import { pinSourceAddress, type ReachFacts } from './source-reach.js';
import {
  DEFAULT_KEEP,
  type BackupRecord,
  type BackupSettingsRecord,
  type BackupStorage,
  type BackupTrigger,
  type ImportRecord,
  type ImportSource,
} from '../core/ports/backups-repo.js';
import type { RemoteStore } from '../core/ports/remote-store.js';

export interface BackupsDeps {
  store: Store;
  docker: Docker;
  clock: Clock;
  /** `<data dir>/backups`: one folder per service. */
  dir: string;
  tool(engine: DatabaseEngine): EngineBackupTool;
  /** The configured S3-compatible store, or null. */
  remote(): Promise<RemoteStore | null>;
  /** The live container and resolved variables of a database service; null when it is not running. */
  live(service: ServiceRecord): Promise<{ containerId: string; env: Record<string, string>; hostPort: number } | null>;
  /** Points the host port at a database container that a restore restarted. */
  restarted(serviceId: string): Promise<void>;
  importPostgres(ctx: ToolContext, sourceUrl: string): Promise<void>;
  /** `address`: connect there instead of resolving the URL's host (null: the host as given). */
  importRedis(sourceUrl: string, address: string | null, target: { host: string; port: number; password: string }, log: (line: string) => void, signal: AbortSignal): Promise<unknown>;
  /** What a redis import's source is checked against (this host's addresses, Docker's subnets, DNS). */
  reach: ReachFacts;
  /** An import still running after this long is stopped and recorded `failed` (BERTH_IMPORT_TIMEOUT). */
  importTimeoutMs: number;
  log(message: string, err?: unknown): void;
  /** Where `backup` events go (the daemon's event hub); none in tools that need no events. */
  events?: EventSink;
  /** Told after a service's backup settings were saved (the scheduler arms itself on the first automatic schedule). */
  settingsSaved?: () => void;
}

const IMPORT_LOG_LINES = 200;

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
    if (next.storage !== 'disk' && !(await this.d.remote())) throw new InvalidInput(`storage ${next.storage} needs remote storage configured first (PUT /api/system/backup-storage)`);
    await this.d.store.backups.putSettings(next);
    this.d.settingsSaved?.();
    return next;
  }

  /** Starts a backup in the background; answers at once with the `running` record. Used by the schedules too (they act for the daemon, not for a key). */
  async start(service: ServiceRecord, storage: BackupStorage, trigger: BackupTrigger, at: string = this.d.clock.now()): Promise<BackupRecord> {
    const remote = storage === 'disk' ? null : await this.d.remote();
    if (storage !== 'disk' && !remote) throw new InvalidInput(`storage ${storage} needs remote storage configured first (PUT /api/system/backup-storage)`);
    const live = await this.requireLive(service);
    this.claim(service.id);
    const tool = this.d.tool(service.databaseEngine!);
    const now = at;
    const record: BackupRecord = {
      id: newId(),
      serviceId: service.id,
      engine: service.databaseEngine!,
      status: 'running',
      trigger,
      storage,
      format: tool.format,
      localPath: null,
      remoteKey: null,
      sizeBytes: 0,
      checksum: '',
      error: null,
      createdAt: now,
      startedAt: now,
      finishedAt: null,
    };
    try {
      await this.d.store.backups.insert(record);
    } catch (err) {
      this.busy.delete(service.id);
      throw err;
    }
    this.announce(service, record.id, 'running');
    this.track(this.runBackup(service, record, tool, live, remote).finally(() => this.busy.delete(service.id)));
    return record;
  }

  /**
   * Records a scheduled backup that was not taken (over its project's quotas, or the disk is low) as
   * `failed` with the reason: the slot is answered, and the failure is seen like any other.
   */
  async recordRefused(service: ServiceRecord, storage: BackupStorage, trigger: BackupTrigger, reason: string, at: string = this.d.clock.now()): Promise<BackupRecord> {
    const record: BackupRecord = {
      id: newId(),
      serviceId: service.id,
      engine: service.databaseEngine!,
      status: 'failed',
      trigger,
      storage,
      format: this.d.tool(service.databaseEngine!).format,
      localPath: null,
      remoteKey: null,
      sizeBytes: 0,
      checksum: '',
      error: reason,
      createdAt: at,
      startedAt: at,
      finishedAt: at,
    };
    await this.d.store.backups.insert(record);
    this.announce(service, record.id, 'failed');
    return record;
  }

  private async runBackup(service: ServiceRecord, record: BackupRecord, tool: EngineBackupTool, live: LiveDb, remote: RemoteStore | null): Promise<void> {
    const path = join(this.d.dir, service.id, `${record.id}.${tool.extension}`);
    try {
      const ctx = this.context(live, () => undefined);
      const written = await writeWhole(path, (out) => tool.dump(ctx, out));
      let remoteKey: string | null = null;
      if (remote) {
        remoteKey = `${service.id}/${record.id}.${tool.extension}`;
        await remote.upload(remoteKey, path, written.sizeBytes, this.abort.signal);
      }
      const keepLocal = record.storage !== 'remote';
      if (!keepLocal) await rm(path, { force: true });
      await this.d.store.backups.update(record.id, {
        status: 'succeeded',
        localPath: keepLocal ? path : null,
        remoteKey,
        sizeBytes: written.sizeBytes,
        checksum: written.checksum,
        finishedAt: this.d.clock.now(),
      });
      this.announce(service, record.id, 'succeeded');
    } catch (err) {
      // the failure is recorded whatever the clean-up meets (the folder may be what failed)
      try {
        await this.d.store.backups.update(record.id, { status: 'failed', error: messageOf(err), finishedAt: this.d.clock.now() });
      } finally {
        this.announce(service, record.id, 'failed');
      }
      await rm(path, { force: true }).catch((e: unknown) => this.d.log(`removing the file of failed backup ${record.id}`, e));
    }
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
    if (backup.status !== 'succeeded') throw new Conflict(`backup ${backup.id} is ${backup.status}; only a succeeded backup can be restored`);
    const live = await this.requireLive(service);
    this.claim(service.id);
    const job = (async () => {
      const { path, temporary } = await this.localCopy(backup);
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

  async download(service: ServiceRecord, backupId: string): Promise<BackupDownload> {
    const backup = await this.backupOf(service, backupId);
    if (backup.status !== 'succeeded') throw new Conflict(`backup ${backup.id} is ${backup.status}; there is no file to download`);
    const ext = extensionOf(backup);
    const filename = `${service.slug}-${backup.createdAt.replace(/[:.]/g, '-')}.${ext}`;
    if (backup.localPath && existsSync(backup.localPath)) {
      return { body: createReadStream(backup.localPath), sizeBytes: (await stat(backup.localPath)).size, filename };
    }
    const remote = backup.remoteKey ? await this.d.remote() : null;
    if (!remote || !backup.remoteKey) throw new Conflict('the backup file is gone from disk and there is no remote copy');
    const { body, sizeBytes } = await remote.download(backup.remoteKey);
    return { body, sizeBytes: sizeBytes ?? backup.sizeBytes, filename };
  }

  async delete(service: ServiceRecord, backupId: string): Promise<void> {
    const backup = await this.backupOf(service, backupId);
    if (backup.status === 'running') throw new Conflict('the backup is still running');
    await this.removeFiles(backup);
    await this.d.store.backups.delete(backup.id);
  }

  /** Removes a backup's file from every storage it is in. */
  async removeFiles(backup: BackupRecord): Promise<void> {
    if (backup.remoteKey) {
      const remote = await this.d.remote();
      if (!remote) throw new Conflict('the backup has a remote copy, but remote storage is no longer configured');
      await remote.delete(backup.remoteKey);
    }
    if (backup.localPath) await rm(backup.localPath, { force: true });
  }

  async listImports(service: ServiceRecord): Promise<ImportRecord[]> {
    return this.d.store.backups.listImports(service.id);
  }

  async startImport(service: ServiceRecord, source: ImportSource, sourceUrl: string, reach: ImportReach): Promise<ImportRecord> {
    const engine = service.databaseEngine!;
    const wanted = source === 'postgres-url' ? ['postgres', 'timescale'] : ['redis'];
    if (!wanted.includes(engine)) throw new InvalidInput(`${source} imports into ${wanted.join(' or ')} services; this one runs ${engine}`);
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
    this.track(
      this.runImport(record, live, sourceUrl, address)
        .finally(() => this.busy.delete(service.id))
        .then((status) => this.announceImport(service, record.id, status)),
    );
    return record;
  }

  private async runImport(record: ImportRecord, live: LiveDb, sourceUrl: string, address: string | null): Promise<'succeeded' | 'failed'> {
    const lines: string[] = [];
    let saving = Promise.resolve();
    const log = (line: string) => {
      lines.push(`${this.d.clock.now()} ${line.replaceAll(sourceUrl, record.sourceLabel)}`);
      const snapshot = lines.slice(-IMPORT_LOG_LINES);
      saving = saving.then(() => this.d.store.backups.updateImport(record.id, { log: snapshot })).catch(() => undefined);
    };
    // A source that accepts and never answers must not hold the database's busy lock forever.
    const seconds = Math.round(this.d.importTimeoutMs / 1000);
    const expired = new AbortController();
    const timer = setTimeout(() => expired.abort(new Error(`the import did not finish within ${seconds} s (BERTH_IMPORT_TIMEOUT) and was stopped`)), this.d.importTimeoutMs);
    const signal = AbortSignal.any([this.abort.signal, expired.signal]);
    try {
      log(`Importing from ${record.sourceLabel}`);
      if (record.source === 'postgres-url') await this.d.importPostgres({ ...this.context(live, () => undefined, log), signal }, sourceUrl);
      else await this.d.importRedis(sourceUrl, address, { host: '127.0.0.1', port: live.hostPort, password: live.env.REDIS_PASSWORD ?? '' }, log, signal);
      log('Import finished');
      await saving;
      await this.d.store.backups.updateImport(record.id, { status: 'succeeded', log: lines.slice(-IMPORT_LOG_LINES), finishedAt: this.d.clock.now() });
      return 'succeeded';
    } catch (err) {
      const reason = (expired.signal.aborted ? messageOf(expired.signal.reason) : messageOf(err)).replaceAll(sourceUrl, record.sourceLabel);
      log(`Import failed: ${reason}`);
      await saving;
      await this.d.store.backups.updateImport(record.id, { status: 'failed', error: reason, log: lines.slice(-IMPORT_LOG_LINES), finishedAt: this.d.clock.now() });
      return 'failed';
    } finally {
      clearTimeout(timer);
    }
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
    return (
      (await this.d.store.backups.getSettings(service.id)) ?? {
        serviceId: service.id,
        storage: 'disk',
        automaticEnabled: false,
        dailyEnabled: false,
        weeklyEnabled: false,
        monthlyEnabled: false,
        keepDaily: DEFAULT_KEEP.daily,
        keepWeekly: DEFAULT_KEEP.weekly,
        keepMonthly: DEFAULT_KEEP.monthly,
        createdAt: service.createdAt,
        updatedAt: service.createdAt,
      }
    );
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

  private context(live: LiveDb, restarted: () => Promise<void> | void, log: (line: string) => void = () => undefined): ToolContext {
    return { docker: this.d.docker, containerId: live.containerId, env: live.env, signal: this.abort.signal, log, restarted: async () => restarted() };
  }

  /** The file to restore from: the local one, or the remote copy fetched into a temporary file. */
  private async localCopy(backup: BackupRecord): Promise<{ path: string; temporary: boolean }> {
    if (backup.localPath && existsSync(backup.localPath)) return { path: backup.localPath, temporary: false };
    const remote = backup.remoteKey ? await this.d.remote() : null;
    if (!remote || !backup.remoteKey) throw new Conflict('the backup file is gone from disk and there is no remote copy');
    const path = join(this.d.dir, backup.serviceId, `${backup.id}.restore`);
    const { body } = await remote.download(backup.remoteKey, this.abort.signal);
    await writeWhole(path, async (out) => {
      for await (const chunk of body) if (!out.write(chunk)) await new Promise((r) => out.once('drain', r));
    });
    return { path, temporary: true };
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

type LiveDb = { containerId: string; env: Record<string, string>; hostPort: number };

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function extensionOf(backup: BackupRecord): string {
  const path = backup.localPath ?? backup.remoteKey ?? '';
  const dot = path.lastIndexOf('.');
  return dot >= 0 ? path.slice(dot + 1) : 'backup';
}

function definedOnly<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<T>;
}
