// Restore tests ("verifications") of database backups: the backup's file (from disk, or fetched
// from S3 when the local copy is gone) is checked against its checksum, restored by the engine's
// own tool into a throwaway container of the service's engine and image (docker/
// restore-test-container.ts), and the restored database is counted through the daemon's adapter
// (tables and rows; redis: keys and their elements). A restore that exits 0 and an engine that
// answers listTables is `verified` with the counts; any error is `failed` with its text. The
// throwaway container and its volume are removed at the end, whatever happened; start-up removes
// one a crash left, and fails a verification left `running`.
//
// The live database is never touched: the test reads only the backup's file. So it may run beside a
// backup, a restore or an import of the same service (their lock is the runner's); one restore
// test per service at a time (this lock), and a backup under test cannot be deleted or pruned.
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type Docker from 'dockerode';
import { ENGINE_CAPABILITIES } from '../../shared/engines.js';
import type { DatabaseEngine } from '../../shared/types.js';
import { recordVerification, requireVerifiable } from '../core/backup-states.js';
import { databaseLogin } from '../core/engines.js';
import { Conflict, NotFound } from '../core/errors.js';
import type { EventSink } from '../core/events.js';
import type { LimitValues } from '../core/limits.js';
import type { OpenAdapter } from '../core/ports/database-adapter.js';
import type { BackupRecord, BackupVerification, VerificationStatus } from '../core/ports/backups-repo.js';
import type { ServiceRecord } from '../core/records.js';
import { engineModule, withAdapter } from '../databases/engines.js';
import type { Ownership } from '../docker/labels.js';
import { ensureProjectNetwork } from '../docker/networks.js';
import { removeRestoreTestContainer, startRestoreTestContainer } from '../docker/restore-test-container.js';
import { checksumOf } from './backup-file.js';
import { localCopy, type BackupFilesDeps } from './backup-job.js';
import { messageOf } from './job-parts.js';

export interface VerifierDeps extends BackupFilesDeps {
  docker: Docker;
  own: Ownership;
  openAdapter: OpenAdapter;
  /** The image the service runs (its live deployment's, else the configured one of its engine). */
  image(service: ServiceRecord): Promise<string>;
  /** The service's resolved variables: the credentials its container was started with. */
  env(service: ServiceRecord): Promise<Record<string, string>>;
  /** The service's container limits. */
  limits(service: ServiceRecord): LimitValues;
  /** How long the engine may take to answer its readiness statement (default 120 s). */
  readyTimeoutMs?: number;
  events?: EventSink;
}

const ERROR_MAX = 2000;

export class RestoreVerifier {
  /** Services with a restore test under way. */
  private busy = new Set<string>();
  private jobs = new Set<Promise<unknown>>();
  private abort = new AbortController();

  constructor(private d: VerifierDeps) {}

  /** Starts a restore test of a succeeded backup in the background; answers the backup with its `running` verification. */
  async start(service: ServiceRecord, backupId: string): Promise<BackupRecord> {
    const backup = await this.d.store.backups.get(backupId);
    if (!backup || backup.serviceId !== service.id) throw new NotFound('backup not found');
    requireVerifiable(backup);
    if (this.busy.has(service.id)) throw new Conflict('a restore test of this database is already running', 'verification_running');
    this.busy.add(service.id);
    const running: BackupVerification = { status: 'running', startedAt: this.d.clock.now(), finishedAt: null, tables: null, rows: null, error: null };
    try {
      if (!(await recordVerification(this.d.store.backups, backup.id, running))) throw new Conflict('a restore test of this backup is already running', 'verification_running');
    } catch (err) {
      this.busy.delete(service.id);
      throw err;
    }
    this.announce(service, backup.id, 'running');
    const job = this.run(service, backup, running.startedAt).finally(() => this.busy.delete(service.id));
    const tracked = job.catch((err: unknown) => this.d.log(`restore test of backup ${backup.id}`, err)).finally(() => this.jobs.delete(tracked));
    this.jobs.add(tracked);
    return { ...backup, verification: running };
  }

  isBusy(serviceId: string): boolean {
    return this.busy.has(serviceId);
  }

  /** Waits for every restore test under way (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.jobs.size > 0) await Promise.allSettled([...this.jobs]);
  }

  /** Stops the tests under way: each ends `failed` and its container is removed. */
  async shutdown(): Promise<void> {
    this.abort.abort();
    await this.settled();
  }

  /** Runs one test to its recorded end: `verified` with the counts, or `failed` with the reason. */
  private async run(service: ServiceRecord, backup: BackupRecord, startedAt: string): Promise<void> {
    let end: BackupVerification;
    try {
      const counts = await this.restoreAndCount(service, backup);
      end = { status: 'verified', startedAt, finishedAt: this.d.clock.now(), ...counts, error: null };
    } catch (err) {
      end = { status: 'failed', startedAt, finishedAt: this.d.clock.now(), tables: null, rows: null, error: messageOf(err).slice(0, ERROR_MAX) };
    }
    // only a verification still `running` ends (start-up recovery may have failed it meanwhile)
    if (await recordVerification(this.d.store.backups, backup.id, end)) this.announce(service, backup.id, end.status);
  }

  private async restoreAndCount(service: ServiceRecord, backup: BackupRecord): Promise<{ tables: number; rows: number }> {
    const engine = service.databaseEngine!;
    const module = engineModule(engine);
    const signal = this.abort.signal;
    const { path, temporary } = await localCopy(this.d, backup, signal);
    try {
      const actual = await checksumOf(path);
      // the digests are for the log, not the badge: the reason stays readable
      if (actual !== backup.checksum) {
        this.d.log(`restore test of backup ${backup.id}: its file's checksum is ${actual}, recorded ${backup.checksum}`);
        throw new Error('the backup file does not match its checksum: it was changed or damaged after the backup');
      }
      const env = await this.d.env(service);
      // no TLS and no logical replication: the throwaway serves only the daemon, on loopback
      const spec = module.container({ logicalReplication: false, tlsDir: null });
      const container = await startRestoreTestContainer(this.d.docker, {
        name: `berth-restore-test-${backup.id}-${Date.now().toString(36)}`,
        image: await this.d.image(service),
        env,
        labels: this.d.own.labels({ projectId: service.projectId, serviceId: service.id }),
        backupId: backup.id,
        dataPath: spec.dataPath,
        entrypoint: spec.entrypoint,
        cmd: spec.cmd,
        port: ENGINE_CAPABILITIES[engine].port,
        network: await ensureProjectNetwork(this.d.docker, this.d.own, service.projectId),
        limits: this.d.limits(service),
      });
      try {
        const conn = async () => ({ host: '127.0.0.1', port: await container.hostPort(), ...databaseLogin(engine, new Map(Object.entries(env))) });
        await this.waitReady(engine, conn, module.readinessStatement, signal);
        await module.backup.restore({ docker: this.d.docker, containerId: container.id, env, signal, log: () => undefined, restarted: async () => undefined }, createReadStream(path));
        // a restore that restarts the server (redis) answers again before it is counted
        await this.waitReady(engine, conn, module.readinessStatement, signal);
        return await withAdapter(this.d.openAdapter, engine, await conn(), async (a) => {
          const tables = await a.listTables({});
          return { tables: tables.length, rows: tables.reduce((sum, t) => sum + t.rowCount, 0) };
        });
      } finally {
        await removeRestoreTestContainer(this.d.docker, this.d.own, container.id, service.id).catch((err: unknown) => this.d.log(`removing restore-test container ${container.id}`, err));
      }
    } finally {
      if (temporary) await rm(path, { force: true });
    }
  }

  /** Until the engine answers its readiness statement with the service's credentials (bounded). */
  private async waitReady(engine: DatabaseEngine, conn: () => Promise<Parameters<OpenAdapter>[1]>, statement: string, signal: AbortSignal): Promise<void> {
    const deadline = Date.now() + (this.d.readyTimeoutMs ?? 120_000);
    let last: string;
    for (;;) {
      signal.throwIfAborted();
      try {
        await withAdapter(this.d.openAdapter, engine, await conn(), (a) => a.query(statement, { timeoutMs: 3000, maxRows: 1, maxBytes: 64 * 1024 }, {}));
        return;
      } catch (err) {
        last = messageOf(err);
      }
      if (Date.now() > deadline) throw new Error(`the throwaway ${engine} server was not ready within ${Math.round((this.d.readyTimeoutMs ?? 120_000) / 1000)} s: ${last}`);
      await sleep(500, undefined, { signal }).catch(() => undefined);
    }
  }

  /** A `backup-verification` event (the console refetches; the notifier and the desktop tray hear `failed`). */
  private announce(service: ServiceRecord, backupId: string, status: VerificationStatus): void {
    try {
      this.d.events?.publish({ type: 'backup-verification', projectId: service.projectId, data: { backupId, serviceId: service.id, projectId: service.projectId, status } });
    } catch (err) {
      this.d.log(`publishing the ${status} restore test event of backup ${backupId}`, err);
    }
  }
}
