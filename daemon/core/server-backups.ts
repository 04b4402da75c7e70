// Berth's own backup driven by the daemon: the archive `berth server backup` writes on the server
// (the store, the data dir's secret, /etc/berth, Caddy's configuration and CA; encrypted with the
// user's passphrase), taken now (POST) or on a schedule, kept on this server's disk or uploaded to
// the S3 storage (under `berth-server/`; the local copy goes once the upload is complete), the
// newest `keep` succeeded runs kept, and the newest FAILED_KEPT failed ones. One run at a time; every run ends recorded (`succeeded` or
// `failed` with the reason), a run a stopped daemon left `running` ends `failed` at start-up and
// its files go. The passphrase is stored sealed and never returned, logged or put in an error.
// Reading needs a key over all projects; everything else a write key over all projects.
import type { Readable } from 'node:stream';
import type { ServerBackupRun, ServerBackups as ServerBackupsView, ServerBackupsPatch, ServerBackupStorageId, ServerBackupTrigger } from '../../shared/types.js';
import type { Access } from './access.js';
import type { Clock } from './clock.js';
import { Conflict, InvalidInput, NotFound, ProviderError } from './errors.js';
import type { EventSink } from './events.js';
import { newId } from './ids.js';
import { checkSchedule } from './job-rules.js';
import type { CronPort } from './ports/jobs-repo.js';
import type { RemoteStore } from './ports/remote-store.js';
import type { ServerArchivePort, ServerBackupRecord, ServerBackupSchedulePort, ServerBackupsRepo } from './ports/server-backups.js';
import type { SettingsRepo } from './ports/store.js';
import {
  DAEMON_STOPPED,
  DEFAULT_KEEP,
  FAILED_KEPT,
  KEEP_MAX,
  KEEP_MIN,
  isServerArchiveName,
  newRun,
  oneLine,
  passphraseProblem,
  recordServerBackupStatus,
  remoteKeys,
  runView as view,
} from './server-backup-rules.js';

/** The settings (plain JSON) and the passphrase (sealed). */
const SETTINGS_KEY = 'serverBackups';
const PASSPHRASE_KEY = 'serverBackupPassphrase';
/** How many runs GET answers. */
const LIST_LIMIT = 50;

interface Stored {
  schedule: string | null;
  storageId: ServerBackupStorageId | null;
  keep: number;
}

export interface ServerBackupsDeps {
  repo: ServerBackupsRepo;
  settings: SettingsRepo;
  clock: Clock;
  events: EventSink;
  archives: ServerArchivePort;
  /** The configured S3 storage; null when none is. */
  remote: () => Promise<RemoteStore | null>;
  schedule: ServerBackupSchedulePort;
  cron: CronPort;
  /** The version this daemon runs. */
  version: string;
  log: (message: string, err?: unknown) => void;
}

/** PATCH's body as the edge parsed it: the storage id is any text here, checked below. */
export type ServerBackupsInput = Omit<ServerBackupsPatch, 'storageId'> & {
  storageId?: string | null | undefined;
  passphrase?: string | undefined;
  keep?: number | undefined;
  schedule?: string | null | undefined;
};

export interface ServerBackupDownload {
  fileName: string;
  body: Readable;
  sizeBytes: number | null;
}

export class ServerBackups {
  /** The run under way (one at a time), until it is recorded. */
  /** The slot of the run under way: released once its end is recorded. */
  private current: Promise<void> | null = null;
  /** Runs not settled yet (a released run may still remove its files and publish its end). */
  private readonly executing = new Set<Promise<void>>();
  /** Retention after each succeeded run, one after the other (outside the run: a client that saw the end may start the next). */
  private retention: Promise<void> = Promise.resolve();

  constructor(private readonly d: ServerBackupsDeps) {}

  async get(access: Access): Promise<ServerBackupsView> {
    access.requireAllProjects("reading Berth's backups");
    return this.view();
  }

  /** Checks every field before anything is written: a refused change writes nothing. */
  async patch(access: Access, input: ServerBackupsInput): Promise<ServerBackupsView> {
    access.requireWrite();
    access.requireAllProjects("changing Berth's backup settings");
    const stored = await this.stored();
    const next: Stored = { ...stored };
    if (input.schedule !== undefined) next.schedule = input.schedule === null ? null : checkSchedule(this.d.cron, input.schedule);
    if (input.storageId !== undefined) next.storageId = await this.checkStorage(input.storageId);
    if (input.keep !== undefined) {
      if (!Number.isInteger(input.keep) || input.keep < KEEP_MIN || input.keep > KEEP_MAX) throw new InvalidInput(`keep must be a whole number from ${KEEP_MIN} to ${KEEP_MAX}`);
      next.keep = input.keep;
    }
    if (input.passphrase !== undefined) {
      const problem = passphraseProblem(input.passphrase);
      if (problem) throw new InvalidInput(problem, 'invalid_passphrase');
    }
    const passphraseSet = input.passphrase !== undefined || (await this.passphrase()) !== null;
    if (next.schedule !== null && !passphraseSet)
      throw new InvalidInput('a schedule needs a stored passphrase: give "passphrase" (at least 12 characters) with the schedule, or set it first', 'passphrase_required');
    const at = this.d.clock.now();
    if (input.passphrase !== undefined) await this.d.settings.setSealed(PASSPHRASE_KEY, input.passphrase, at);
    await this.d.settings.set(SETTINGS_KEY, JSON.stringify(next), at);
    if (next.schedule !== stored.schedule) await this.d.schedule.arm(next.schedule, () => this.scheduled());
    this.changed();
    return this.view();
  }

  /** Starts a run now: the run as recorded (`running`); GET follows it. */
  async start(access: Access, input: { passphrase?: string | undefined }): Promise<ServerBackupRun> {
    access.requireWrite();
    access.requireAllProjects('backing up Berth');
    let passphrase: string;
    if (input.passphrase !== undefined) {
      const problem = passphraseProblem(input.passphrase);
      if (problem) throw new InvalidInput(problem, 'invalid_passphrase');
      passphrase = input.passphrase;
    } else {
      const stored = await this.passphrase();
      if (stored === null) throw new InvalidInput('no passphrase is stored: give "passphrase" (at least 12 characters, used for this run only) or store one with PATCH', 'passphrase_required');
      passphrase = stored;
    }
    return this.begin('manual', passphrase);
  }

  async download(access: Access, runId: string): Promise<ServerBackupDownload> {
    access.requireWrite();
    access.requireAllProjects("downloading Berth's backups");
    const run = await this.d.repo.get(runId);
    if (!run || run.status !== 'succeeded' || run.fileName === null || !isServerArchiveName(run.fileName)) throw new NotFound("Berth's backup not found (or it holds no archive)");
    if (run.location === 'disk') {
      const file = await this.d.archives.open(run.fileName);
      if (!file) throw new NotFound(`the archive ${run.fileName} is no longer in this server's folder of Berth's backups`);
      return { fileName: run.fileName, ...file };
    }
    const remote = await this.d.remote();
    if (!remote) throw new Conflict('the archive is in the S3 storage, and no S3 storage is configured now (PUT /api/system/backup-storage)', 'storage_unavailable');
    try {
      const { body, sizeBytes } = await remote.download(remoteKeys(run.fileName).archive);
      return { fileName: run.fileName, body, sizeBytes };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (/NoSuchKey|HTTP 404/.test(message)) throw new NotFound(`the archive ${run.fileName} is no longer in the S3 storage`);
      throw new ProviderError(message);
    }
  }

  /** Removes the run's archive and its `.sha256` from where they are, then the run. */
  async delete(access: Access, runId: string): Promise<void> {
    access.requireWrite();
    access.requireAllProjects("deleting Berth's backups");
    const run = await this.d.repo.get(runId);
    if (!run) throw new NotFound("Berth's backup not found");
    if (run.status === 'running') throw new Conflict('the backup is still running: delete it once it has ended', 'backup_running');
    // a failed run uploaded nothing that stayed (its end removed what it had written): its record goes
    if (run.status === 'succeeded') {
      try {
        await this.removeFiles(run);
      } catch (err) {
        if (err instanceof Conflict) throw err;
        throw new ProviderError(`the archive could not be removed: ${oneLine(err)}`);
      }
    }
    await this.d.repo.delete(run.id);
    this.changed();
  }

  /** Start-up: runs a stopped daemon left `running` end `failed`, and their files go (before the schedule arms). */
  async recover(): Promise<void> {
    for (const run of await this.d.repo.byStatus('running')) {
      try {
        const written = await recordServerBackupStatus(this.d.repo, run.id, 'failed', { error: DAEMON_STOPPED, finishedAt: this.d.clock.now() });
        if (written) {
          await this.removeFiles(run).catch((err: unknown) => this.d.log(`removing the files of Berth's interrupted backup ${run.id}`, err));
          this.publish(written);
        }
      } catch (err) {
        this.d.log(`recovering Berth's backup ${run.id}`, err);
      }
    }
    await this.d.archives.removePartial().catch((err: unknown) => this.d.log('removing what interrupted backups of Berth left in their folder', err));
  }

  /** Arms the schedule from the settings (at start-up, after recover()). */
  async startSchedule(): Promise<void> {
    await this.d.schedule.arm((await this.stored()).schedule, () => this.scheduled());
  }

  /** Waits for the run under way (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.current || this.executing.size > 0) await Promise.all([this.current, ...this.executing]);
    await this.retention;
  }

  /** The schedule's path: a run with the stored passphrase, skipped while one is under way. */
  private async scheduled(): Promise<void> {
    try {
      if (this.current) {
        this.d.log("Berth's scheduled backup skipped: a backup of Berth is still running");
        return;
      }
      const passphrase = await this.passphrase();
      if (passphrase === null) {
        await this.refused('schedule', 'no passphrase is stored (PATCH /api/system/backups with "passphrase")');
        return;
      }
      await this.begin('schedule', passphrase);
    } catch (err) {
      this.d.log("Berth's scheduled backup", err);
    }
  }

  private async begin(trigger: ServerBackupTrigger, passphrase: string): Promise<ServerBackupRun> {
    const stored = await this.stored();
    // checked and taken with no await between: two requests cannot both start one
    if (this.current) throw new Conflict('a backup of Berth is already running: wait for it to end', 'backup_running');
    let finish: () => void = () => undefined;
    const slot = new Promise<void>((resolve) => (finish = resolve));
    this.current = slot;
    /** Lets the next run start: once the end is recorded (a client that reads it may start another at once), at the latest when the run settles. */
    const release = () => {
      if (this.current === slot) this.current = null;
      finish();
    };
    try {
      const run = newRun({ id: newId(), trigger, at: this.d.clock.now(), storageId: stored.storageId, version: this.d.version, error: null });
      await this.d.repo.insert(run);
      this.publish(run);
      // tracked in `current` and ends recorded whatever happens (execute catches everything)
      const running = this.execute(run, passphrase, stored.keep, release).finally(release);
      this.executing.add(running);
      void running.finally(() => this.executing.delete(running));
      return view(run);
    } catch (err) {
      release();
      throw err;
    }
  }

  /** One run, to its recorded end (then `release`); then retention is queued. Never rejects. */
  private async execute(run: ServerBackupRecord, passphrase: string, keep: number, release: () => void): Promise<void> {
    let ended: ServerBackupRecord | null;
    let fileName: string | null = null;
    try {
      const made = await this.d.archives.create(passphrase, run.id.replace(/-/g, '').slice(0, 8), new Date(run.startedAt));
      fileName = made.fileName;
      await this.d.repo.noteFile(run.id, made.fileName);
      if (run.location === 's3') await this.upload(made.fileName);
      ended = await recordServerBackupStatus(this.d.repo, run.id, 'succeeded', {
        finishedAt: this.d.clock.now(),
        fileName: made.fileName,
        sizeBytes: made.sizeBytes,
        sha256: made.sha256,
        counts: made.counts,
        berthVersion: made.berthVersion,
      });
      release();
    } catch (err) {
      const reason = oneLine(err);
      this.d.log(`Berth's backup ${run.id} failed: ${reason}`);
      ended = await recordServerBackupStatus(this.d.repo, run.id, 'failed', { finishedAt: this.d.clock.now(), error: reason }).catch((e: unknown) => {
        this.d.log(`recording the end of Berth's backup ${run.id}`, e);
        return null;
      });
      release();
      if (fileName) await this.removeFiles({ ...run, fileName }).catch((e: unknown) => this.d.log(`removing the files of Berth's failed backup ${run.id}`, e));
    }
    if (ended) this.publish(ended);
    if (ended) this.retention = this.retention.then(() => this.retain(keep));
  }

  /** Uploads the archive and its `.sha256`, then removes the local copies. */
  private async upload(fileName: string): Promise<void> {
    const remote = await this.d.remote();
    if (!remote) throw new Error('no S3 storage is configured now (PUT /api/system/backup-storage): the archive was not uploaded');
    const local = await this.d.archives.local(fileName);
    if (!local) throw new Error(`the archive ${fileName} is not in the folder it was written to`);
    const keys = remoteKeys(fileName);
    await remote.upload(keys.archive, local.archive.path, local.archive.sizeBytes);
    if (local.checksum) await remote.upload(keys.checksum, local.checksum.path, local.checksum.sizeBytes);
    await this.d.archives.remove(fileName);
  }

  /** Keeps the newest `keep` succeeded runs (the older ones' files go, then their records) and the newest FAILED_KEPT failed ones. */
  private async retain(keep: number): Promise<void> {
    const listed = (status: 'succeeded' | 'failed') =>
      this.d.repo.byStatus(status).catch((err: unknown) => {
        this.d.log("listing Berth's backups for retention", err);
        return [];
      });
    const beyond = [...(await listed('succeeded')).slice(keep), ...(await listed('failed')).slice(FAILED_KEPT)];
    for (const old of beyond) {
      try {
        // a failed run's files went when it failed (execute): its record goes, and a local leftover if any
        if (old.status === 'failed') {
          if (old.fileName !== null && isServerArchiveName(old.fileName)) await this.d.archives.remove(old.fileName);
        } else await this.removeFiles(old);
        await this.d.repo.delete(old.id);
      } catch (err) {
        this.d.log(`removing Berth's backup ${old.id} beyond the ${old.status === 'failed' ? `${FAILED_KEPT} failed` : keep} kept`, err);
      }
    }
    if (beyond.length > 0) this.changed();
  }

  /** Only a name of Berth's own pattern, in its folder or under its prefix; nothing else is touched. */
  private async removeFiles(run: Pick<ServerBackupRecord, 'fileName' | 'location'>): Promise<void> {
    if (run.fileName === null || !isServerArchiveName(run.fileName)) return;
    if (run.location === 'disk') {
      await this.d.archives.remove(run.fileName);
      return;
    }
    // a run that failed before its upload may still have its local copy
    await this.d.archives.remove(run.fileName);
    const remote = await this.d.remote();
    if (!remote)
      throw new Conflict(
        'the archive is in the S3 storage, and no S3 storage is configured now: configure it again to delete it, or delete it in the bucket (under berth-server/)',
        'storage_unavailable',
      );
    const keys = remoteKeys(run.fileName);
    await remote.delete(keys.archive);
    await remote.delete(keys.checksum);
  }

  /** A scheduled run that could not start is recorded `failed`, so the schedule never claims a backup it did not take. */
  private async refused(trigger: ServerBackupTrigger, reason: string): Promise<void> {
    const stored = await this.stored();
    const run = newRun({ id: newId(), trigger, at: this.d.clock.now(), storageId: stored.storageId, version: this.d.version, error: reason });
    await this.d.repo.insert(run);
    this.publish(run);
  }

  private async checkStorage(id: string | null): Promise<ServerBackupStorageId | null> {
    if (id === null) return null;
    if (id !== 'remote') throw new InvalidInput(`storageId "${id.slice(0, 40)}" is not a storage: give "remote" (the S3 storage) or null (this server's disk)`, 'unknown_storage');
    if (!(await this.d.remote())) throw new InvalidInput('storageId "remote" needs the S3 storage configured first (PUT /api/system/backup-storage)', 'unknown_storage');
    return 'remote';
  }

  private async view(): Promise<ServerBackupsView> {
    const stored = await this.stored();
    const next = stored.schedule === null ? null : this.d.schedule.nextRun();
    return {
      serverBackups: {
        schedule: stored.schedule,
        storageId: stored.storageId,
        keep: stored.keep,
        passphraseSet: (await this.d.settings.get(PASSPHRASE_KEY)) !== null,
        nextRunAt: next ? next.toISOString() : null,
      },
      runs: (await this.d.repo.list(LIST_LIMIT)).map(view),
    };
  }

  private async stored(): Promise<Stored> {
    const raw = await this.d.settings.get(SETTINGS_KEY);
    const s = raw ? (JSON.parse(raw) as Partial<Stored>) : {};
    return { schedule: s.schedule ?? null, storageId: s.storageId === 'remote' ? 'remote' : null, keep: s.keep ?? DEFAULT_KEEP };
  }

  private passphrase(): Promise<string | null> {
    return this.d.settings.getSealed(PASSPHRASE_KEY);
  }

  private changed(): void {
    this.d.events.publish({ type: 'settings', allProjects: true, data: { area: 'server-backups' } });
  }

  private publish(run: ServerBackupRecord): void {
    this.changed();
    this.d.events.publish({ type: 'server-backup', allProjects: true, data: { runId: run.id, status: run.status, trigger: run.trigger } });
  }
}
