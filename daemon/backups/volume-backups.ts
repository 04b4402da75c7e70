// Backups of service volumes (issue 28) with the database backups' machinery: the record and its
// state table (core/backup-states.ts), the file written whole with its sha256 and uploaded when
// asked (backup-job.ts), the remote store, events and retention. The tarball streams from the
// Engine's archive API (docker/volume-archive.ts) through the hash to disk, never whole in memory.
// A restore stops the service's live container (labels checked), empties the volume, extracts the
// tarball, starts the container again and waits until it answers; whatever fails, the container is
// started again and the answer says what happened. One job per service at a time.
import type Docker from 'dockerode';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { defaultSettings, requireDeletable, requireDownloadable, requireRestorable, requireStorageAvailable } from '../core/backup-states.js';
import { Conflict, NotFound } from '../core/errors.js';
import type { EventSink } from '../core/events.js';
import { newId } from '../core/ids.js';
import type { BackupDownload, BackupListing, ServiceVolumeRef, SettingsPatch, VolumeBackupJobs, VolumeRestoreResult } from '../core/ports/backup-jobs.js';
import type { BackupRecord, BackupSettingsRecord, BackupStorage, BackupTrigger } from '../core/ports/backups-repo.js';
import type { ServiceRecord } from '../core/records.js';
import type { Ownership } from '../docker/labels.js';
import { emptyingTool, emptyVolume, extractVolumeTar, helperImage, openVolumeTar, requireOwnedVolume, startOwned, stopOwned, type VolumeHelper } from '../docker/volume-archive.js';
import type { EngineBackupTool } from '../databases/backup-tool.js';
import { checksumOf } from './backup-file.js';
import { downloadName, localCopy, openDownload, removeFiles, runBackup, type BackupFilesDeps } from './backup-job.js';
import { messageOf } from './job-parts.js';

export interface VolumeBackupsDeps extends BackupFilesDeps {
  docker: Docker;
  own: Ownership;
  /** The service's live container; null when it has none. */
  live(serviceId: string): Promise<{ containerId: string } | null>;
  /** After the live container was started again: points the routes at its published port, then waits until it answers. */
  restarted(service: ServiceRecord, containerId: string, signal: AbortSignal): Promise<'answering' | 'timeout' | 'exited' | 'aborted'>;
  events?: EventSink;
  settingsSaved?: () => void;
  /** How long emptying a volume may take. */
  emptyTimeoutMs?: number;
}

export class VolumeBackupRunner implements VolumeBackupJobs {
  private busy = new Set<string>();
  private jobs = new Set<Promise<unknown>>();
  private abort = new AbortController();

  constructor(private d: VolumeBackupsDeps) {}

  async list(service: ServiceRecord, volume: ServiceVolumeRef): Promise<BackupListing> {
    const remote = await this.d.remote();
    return {
      backups: await this.d.store.backups.listByVolume(service.id, volume.name),
      settings: await this.settingsOf(service, volume.name),
      remote: { connected: remote ? (await remote.check()).connected : false },
    };
  }

  async patchSettings(service: ServiceRecord, volume: ServiceVolumeRef, patch: SettingsPatch): Promise<BackupSettingsRecord> {
    const current = await this.settingsOf(service, volume.name);
    const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as Partial<SettingsPatch>;
    const next: BackupSettingsRecord = { ...current, ...defined, updatedAt: this.d.clock.now() };
    requireStorageAvailable(next.storage, next.storage !== 'disk' && (await this.d.remote()) !== null);
    await this.d.store.backups.putSettings(next);
    this.d.settingsSaved?.();
    return next;
  }

  async settingsOf(service: ServiceRecord, volume: string): Promise<BackupSettingsRecord> {
    return (await this.d.store.backups.getSettings(service.id, volume)) ?? { ...defaultSettings(service), volume };
  }

  /** Starts a backup in the background; answers at once with the `running` record. The schedules use it too. */
  async start(service: ServiceRecord, volume: ServiceVolumeRef, storage: BackupStorage, trigger: BackupTrigger, at: string = this.d.clock.now()): Promise<BackupRecord> {
    const remote = storage === 'disk' ? null : await this.d.remote();
    requireStorageAvailable(storage, remote !== null);
    const helper = await this.helper(service, volume);
    this.claim(service.id);
    const record = this.newRecord(service, volume.name, trigger, storage, at, null);
    try {
      await this.d.store.backups.insert(record);
    } catch (err) {
      this.busy.delete(service.id);
      throw err;
    }
    this.announce(service, record, 'running');
    const ctx = { docker: this.d.docker, containerId: '', env: {}, signal: this.abort.signal, log: () => undefined, restarted: async () => undefined };
    const job = runBackup(this.d, record, this.tarTool(helper), ctx, remote, (status) => this.announce(service, record, status));
    this.track(job.finally(() => this.busy.delete(service.id)));
    return record;
  }

  /** A scheduled backup that was not taken (quotas, low disk): recorded `failed` with the reason. */
  async recordRefused(service: ServiceRecord, volume: string, storage: BackupStorage, trigger: BackupTrigger, reason: string, at: string = this.d.clock.now()): Promise<BackupRecord> {
    const record = this.newRecord(service, volume, trigger, storage, at, reason);
    await this.d.store.backups.insert(record);
    this.announce(service, record, 'failed');
    return record;
  }

  async restore(service: ServiceRecord, volume: ServiceVolumeRef, backupId: string): Promise<VolumeRestoreResult> {
    const backup = await this.backupOf(service, volume, backupId);
    requireRestorable(backup);
    this.claim(service.id);
    const detail: string[] = [];
    const say = (line: string) => {
      detail.push(line);
      this.d.log(`restore of volume ${volume.name} of ${service.name}: ${line}`);
    };
    try {
      const { path, temporary } = await localCopy(this.d, backup, this.abort.signal);
      try {
        const actual = await checksumOf(path);
        if (actual !== backup.checksum) throw new Conflict(`the backup file does not match its checksum (${actual} instead of ${backup.checksum}); nothing was restored`, 'checksum_mismatch');
        const live = await this.d.live(service.id);
        // emptying the volume runs find and rm from an image: only the service's own (its live
        // container's), never another image this Docker holds, which could be another tenant's
        if (!live?.containerId) throw new Conflict("a restore empties the volume with the tools of the service's own image: deploy the service first; nothing was changed", 'restore_unavailable');
        const helper = await this.helper(service, volume, live.containerId);
        const noTool = await emptyingTool(this.d.docker, helper);
        if (noTool) throw new Conflict(`the volume cannot be emptied before the restore: the service's image must have find and rm (${noTool}); nothing was changed`, 'restore_unavailable');
        await this.replace(service, volume, helper, live.containerId, path, say);
      } finally {
        if (temporary) await rm(path, { force: true });
      }
    } finally {
      this.busy.delete(service.id);
    }
    return { ok: true, restoredAt: this.d.clock.now(), backup: { id: backup.id, status: backup.status }, detail };
  }

  /** Stops the live container, empties the volume, extracts the tarball, starts the container again (also after a failure). */
  private async replace(service: ServiceRecord, volume: ServiceVolumeRef, helper: VolumeHelper, containerId: string | null, path: string, say: (line: string) => void): Promise<void> {
    const stopped = containerId !== null && (await stopOwned(this.d.docker, this.d.own, containerId, service.id));
    if (stopped) {
      say(`${service.name} is stopped while volume ${volume.name} is restored`);
      this.announceService(service, false);
    } else {
      say(`${service.name} has no running container; volume ${volume.name} is restored without stopping anything`);
    }
    let failure: unknown = null;
    try {
      await emptyVolume(this.d.docker, helper, this.d.emptyTimeoutMs ?? 10 * 60_000);
      say(`volume ${volume.name} emptied`);
      await extractVolumeTar(this.d.docker, helper, createReadStream(path));
      say(`volume ${volume.name} restored from backup`);
    } catch (err) {
      failure = err;
      say(`the restore failed: ${messageOf(err)}`);
    }
    if (stopped && containerId !== null) {
      try {
        await startOwned(this.d.docker, this.d.own, containerId, service.id);
        const answer = await this.d.restarted(service, containerId, this.abort.signal);
        say(answer === 'answering' ? `${service.name} started again and answers` : `${service.name} started again but does not answer yet (${answer})`);
        this.announceService(service, answer === 'answering');
      } catch (err) {
        say(`starting ${service.name} again failed: ${messageOf(err)}`);
        failure ??= err;
      }
    }
    if (failure) {
      this.announceRestoreFailed(service, volume.name);
      throw new Conflict(`the restore failed: ${messageOf(failure)}${stopped ? `; ${service.name} was started again` : ''}`, 'restore_failed');
    }
  }

  async download(service: ServiceRecord, volume: ServiceVolumeRef, backupId: string): Promise<BackupDownload & { checksum: string }> {
    const backup = await this.backupOf(service, volume, backupId);
    requireDownloadable(backup);
    return { ...(await openDownload(this.d, backup, downloadName(`${service.slug}-${volume.name}`, backup))), checksum: backup.checksum };
  }

  async delete(service: ServiceRecord, volume: ServiceVolumeRef, backupId: string): Promise<void> {
    const backup = await this.backupOf(service, volume, backupId);
    requireDeletable(backup);
    await removeFiles(this.d, backup);
    await this.d.store.backups.delete(backup.id);
  }

  removeFiles(backup: BackupRecord): Promise<void> {
    return removeFiles(this.d, backup);
  }

  isBusy(serviceId: string): boolean {
    return this.busy.has(serviceId);
  }

  async settled(): Promise<void> {
    while (this.jobs.size > 0) await Promise.allSettled([...this.jobs]);
  }

  /** Stops jobs under way (their records stay `running`; start-up recovery fails them). */
  async shutdown(): Promise<void> {
    this.abort.abort();
    await this.settled();
  }

  /** The dump of a volume: its tar from the archive API, written as it streams. */
  private tarTool(helper: VolumeHelper): EngineBackupTool {
    const docker = this.d.docker;
    return {
      format: 'tar',
      extension: 'tar',
      async dump(ctx, out: Writable) {
        const { tar, done } = await openVolumeTar(docker, helper);
        try {
          const onAbort = () => tar.destroy(new Error('the daemon is stopping'));
          ctx.signal.addEventListener('abort', onAbort, { once: true });
          try {
            for await (const chunk of tar) if (!out.write(chunk)) await new Promise((r) => out.once('drain', r));
          } finally {
            ctx.signal.removeEventListener('abort', onAbort);
          }
        } finally {
          await done();
        }
      },
      restore() {
        return Promise.reject(new Error("volume restores are the runner's own"));
      },
    };
  }

  private async helper(service: ServiceRecord, volume: ServiceVolumeRef, liveContainerId?: string | null): Promise<VolumeHelper> {
    try {
      await requireOwnedVolume(this.d.docker, this.d.own, service.projectId, volume.dockerName);
      const containerId = liveContainerId === undefined ? ((await this.d.live(service.id))?.containerId ?? null) : liveContainerId;
      const image = await helperImage(this.d.docker, containerId);
      return { volume: volume.dockerName, image, labels: this.d.own.labels({ projectId: service.projectId, serviceId: service.id }) };
    } catch (err) {
      throw new Conflict(messageOf(err), 'volume_unavailable');
    }
  }

  private newRecord(service: ServiceRecord, volume: string, trigger: BackupTrigger, storage: BackupStorage, at: string, refused: string | null): BackupRecord {
    return {
      id: newId(),
      serviceId: service.id,
      volume,
      engine: null,
      status: refused === null ? 'running' : 'failed',
      trigger,
      storage,
      format: 'tar',
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

  private announce(service: ServiceRecord, record: BackupRecord, status: 'running' | 'succeeded' | 'failed'): void {
    try {
      this.d.events?.publish({
        type: 'backup',
        projectId: service.projectId,
        data: { backupId: record.id, serviceId: service.id, projectId: service.projectId, status, volume: record.volume ?? undefined },
      });
    } catch (err) {
      this.d.log(`publishing the ${status} event of backup ${record.id}`, err);
    }
  }

  /** The service's reachability on the event stream: false while a restore has it stopped. */
  private announceService(service: ServiceRecord, reachable: boolean): void {
    try {
      this.d.events?.publish({ type: 'service', projectId: service.projectId, data: { serviceId: service.id, projectId: service.projectId, status: service.status, reachable } });
    } catch (err) {
      this.d.log(`publishing the service event of ${service.name}`, err);
    }
  }

  private announceRestoreFailed(service: ServiceRecord, volume: string): void {
    this.d.log(`restore of volume ${volume} of ${service.name} failed`);
  }

  private claim(serviceId: string): void {
    if (this.busy.has(serviceId)) throw new Conflict("a backup or restore of this service's volumes is already under way", 'busy');
    this.busy.add(serviceId);
  }

  private track(job: Promise<unknown>): void {
    const tracked = job.catch((err: unknown) => this.d.log('volume backup job', err)).finally(() => this.jobs.delete(tracked));
    this.jobs.add(tracked);
  }

  private async backupOf(service: ServiceRecord, volume: ServiceVolumeRef, backupId: string): Promise<BackupRecord> {
    const backup = await this.d.store.backups.get(backupId);
    if (!backup || backup.serviceId !== service.id || backup.volume !== volume.name) throw new NotFound('backup not found');
    return backup;
  }
}
