// Scheduled backups: node-cron wakes the scheduler every minute and it takes whatever is due by
// the clock it is given, so a test can drive the clock and a daemon that was down at 03:00 takes
// the missed backup when it starts. The slot and retention rules are core's (core/backup-states.ts).
// Slots (UTC): daily 03:00, weekly Sunday 03:00, monthly the 1st 03:00. A slot is due when no backup of that schedule was started since it. After a scheduled
// backup succeeds, the oldest succeeded backups of that schedule beyond its keep count go.
// A due backup over its project's backup quotas first makes room by removing the oldest backups of
// the same schedule (never its last one); when that is not enough, or while the disk is low, the
// slot gets a `failed` record saying why (so the schedule never claims a backup it did not take).
// Restore tests (issue 30): a database whose settings have a `verifySchedule` (5-field cron, UTC)
// gets its newest succeeded backup restore-tested in each minute the expression matches, by the
// same tick and clock. With GFS retention set (settings.gfs), a database's succeeded backups are
// pruned by core/backup-retention.ts instead of the per-schedule keep counts; either way the
// newest verified backup and a backup under test are never removed, and only the service's own
// backups (rows and files under its own folder) are candidates.
import type { ScheduledTask } from 'node-cron';
import { beyondRetention, roomCandidate, scheduleEnabled, slotTaken } from '../core/backup-states.js';
import { beyondGfs, gfsInUse, ownBackup } from '../core/backup-retention.js';
import { cronMatches } from '../core/cron-match.js';
import type { RestoreVerifier } from './verify.js';
import type { BackupRecord, BackupSettingsRecord, ScheduleKind } from '../core/ports/backups-repo.js';
import type { ServiceRecord } from '../core/records.js';
import { SCHEDULE_KINDS } from '../core/ports/backups-repo.js';
import type { BackupRunner } from './backups.js';
import type { VolumeBackupRunner } from './volume-backups.js';
import { mountedVolumes, volumeRef } from '../core/volume-backups.js';
import { projectVolumeName } from '../docker/volumes.js';
import type { Store } from '../core/ports/store.js';
import type { DiskSpace } from '../core/disk-space.js';
import type { Quotas } from '../core/quotas.js';

/** What a due backup is checked against before it is taken. */
export interface ScheduleLimits {
  quotas: Pick<Quotas, 'backupOverQuota'>;
  disk: Pick<DiskSpace, 'lowReason'>;
}

/** One schedule's subject: a database service, or a volume of a service. */
interface ScheduleTarget {
  label: string;
  /** Its backups, newest first. */
  history(): Promise<BackupRecord[]>;
  busy(): boolean;
  start(kind: ScheduleKind, at: string): Promise<unknown>;
  refuse(kind: ScheduleKind, reason: string, at: string): Promise<unknown>;
  removeFiles(backup: BackupRecord): Promise<void>;
}

export class BackupScheduler {
  private task: ScheduledTask | null = null;
  private stopped = true;
  private ticking: Promise<void> = Promise.resolve();
  /** The minute each service's scheduled restore test last started in (the clock the tick was given). */
  private verifiedAt = new Map<string, string>();

  constructor(
    private store: Store,
    private backups: BackupRunner,
    private log: (message: string, err?: unknown) => void,
    private limits: ScheduleLimits,
    /** Volume backups (issue 28): settings with `volume` set are a volume's schedule. */
    private volumes?: VolumeBackupRunner,
    /** Restore tests and GFS retention (issue 30): the verifier, and the backups dir (each service's own folder in it). */
    private restoreTests?: { verifier: Pick<RestoreVerifier, 'start' | 'isBusy'>; dir: string },
  ) {}

  start(): void {
    this.stopped = false;
    // the missed slots first (a daemon down at 03:00 takes them now), then the minute task
    void this.tick(new Date()).then(() => this.armWhenScheduled());
  }

  /**
   * Arms node-cron's minute task once any service has automatic backups; until then node-cron is
   * not even loaded (it formats every tick through Intl, which keeps about 6 MB of ICU data
   * resident in a daemon that has nothing to schedule). Called at start and after a service's
   * backup settings change; the task stays armed once armed.
   */
  async armWhenScheduled(): Promise<void> {
    try {
      if (this.task || this.stopped) return;
      if ((await this.store.backups.listAutomatic()).length === 0 && (await this.store.backups.listVerifySchedules()).length === 0) return;
      const cron = (await import('node-cron')).default;
      if (this.task || this.stopped) return;
      this.task = cron.schedule('* * * * *', () => void this.tick(new Date()));
    } catch (err) {
      this.log('arming the backup schedules', err);
    }
  }

  /** True once node-cron's minute task runs. */
  get armed(): boolean {
    return this.task !== null;
  }

  stop(): void {
    this.stopped = true;
    void this.task?.stop();
    this.task = null;
  }

  /** Starts the backups due at `now`, then prunes what retention no longer keeps. One tick at a time. */
  tick(now: Date): Promise<void> {
    this.ticking = this.ticking.then(() => this.runDue(now)).catch((err: unknown) => this.log('scheduled backups', err));
    return this.ticking;
  }

  private async runDue(now: Date): Promise<void> {
    await this.verifyDue(now);
    for (const settings of await this.store.backups.listAutomatic()) {
      const service = await this.store.services.get(settings.serviceId);
      if (!service) continue;
      const target = this.targetOf(service, settings);
      if (!target) continue;
      const history = await target.history();
      await this.prune(settings, history, target);
      for (const kind of SCHEDULE_KINDS) {
        if (!scheduleEnabled(settings, kind)) continue;
        if (slotTaken(history, kind, now)) continue;
        if (target.busy()) break; // the next tick takes it
        try {
          const refused = (await this.limits.disk.lowReason(`the scheduled ${kind} backup was`)) ?? (await this.makeRoom(service, kind, target));
          if (refused) await target.refuse(kind, refused, now.toISOString());
          else await target.start(kind, now.toISOString());
        } catch (err) {
          this.log(`scheduled ${kind} backup of ${target.label}`, err);
        }
        break; // one job per service at a time
      }
    }
  }

  /** Starts the restore tests whose schedule matches this minute: each of the newest succeeded backup. */
  private async verifyDue(now: Date): Promise<void> {
    const tests = this.restoreTests;
    if (!tests) return;
    const minute = now.toISOString().slice(0, 16);
    for (const settings of await this.store.backups.listVerifySchedules()) {
      if (!settings.verifySchedule || !cronMatches(settings.verifySchedule, now)) continue;
      const service = await this.store.services.get(settings.serviceId);
      if (!service || service.kind !== 'database' || tests.verifier.isBusy(service.id)) continue;
      const history = await this.store.backups.listByService(service.id);
      const newest = history.find((b) => b.status === 'succeeded' && b.volume === null);
      // once per matching minute (a restart within the minute ticks it again)
      if (!newest || this.verifiedAt.get(service.id) === minute) continue;
      this.verifiedAt.set(service.id, minute);
      try {
        await tests.verifier.start(service, newest.id);
      } catch (err) {
        this.log(`scheduled restore test of ${service.name}`, err);
      }
    }
  }

  /** What a schedule backs up: the database service itself, or one of its volumes (null when the service no longer mounts it). */
  private targetOf(service: ServiceRecord, settings: BackupSettingsRecord): ScheduleTarget | null {
    const storage = settings.storage;
    if (settings.volume === null) {
      const b = this.backups;
      return {
        label: service.name,
        history: () => this.store.backups.listByService(service.id),
        busy: () => b.isBusy(service.id),
        start: (kind, at) => b.start(service, storage, kind, at),
        refuse: (kind, reason, at) => b.recordRefused(service, storage, kind, reason, at),
        removeFiles: (old) => b.removeFiles(old),
      };
    }
    const v = this.volumes;
    const mounted = mountedVolumes(service).find((m) => m.name === settings.volume);
    if (!v || !mounted) return null;
    const ref = volumeRef(service, mounted, projectVolumeName);
    return {
      label: `${service.name} (volume ${ref.name})`,
      history: () => this.store.backups.listByVolume(service.id, ref.name),
      busy: () => v.isBusy(service.id),
      start: (kind, at) => v.start(service, ref, storage, kind, at),
      refuse: (kind, reason, at) => v.recordRefused(service, ref.name, storage, kind, reason, at),
      removeFiles: (old) => v.removeFiles(old),
    };
  }

  /**
   * Removes the oldest succeeded backups of this schedule (keeping its newest) while the project is
   * over its backup quotas; answers why the backup cannot be taken when that is not enough.
   */
  private async makeRoom(service: ServiceRecord, kind: ScheduleKind, target: ScheduleTarget): Promise<string | null> {
    for (;;) {
      const over = await this.limits.quotas.backupOverQuota(service);
      if (!over) return null;
      const oldest = roomCandidate(await target.history(), kind);
      if (!oldest) return `the scheduled ${kind} backup was not taken: ${over}`;
      await target.removeFiles(oldest);
      await this.store.backups.delete(oldest.id);
      this.log(`removed ${kind} backup ${oldest.id} of ${service.name} to stay within its project's backup quotas`);
    }
  }

  /** Keeps the newest N succeeded backups of each schedule; failed scheduled ones go after a day's worth of retries. */
  private async prune(settings: BackupSettingsRecord, history: readonly BackupRecord[], target: ScheduleTarget): Promise<void> {
    const dir = this.restoreTests?.dir;
    const database = settings.volume === null && dir !== undefined;
    const lastVerified = history.find((b) => b.status === 'succeeded' && b.verification?.status === 'verified');
    const candidates =
      database && gfsInUse(settings.gfs)
        ? beyondGfs(settings.gfs, settings.serviceId, dir, history)
        : beyondRetention(settings, history).filter((b) => b.id !== lastVerified?.id && b.verification?.status !== 'running' && (!database || ownBackup(b, settings.serviceId, dir)));
    for (const old of candidates) {
      try {
        await target.removeFiles(old);
        await this.store.backups.delete(old.id);
      } catch (err) {
        this.log(`pruning backup ${old.id}`, err);
      }
    }
  }
}
