// Starting the daemon in-process: compose.ts builds every adapter and service, this file starts
// them in order, serves HTTP, and stops them. main.ts wraps it for production; tests call it with a
// temporary data dir and port 0.
import { startJoinTlsServer } from './swarm/join-tls-server.js';
import { writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BackupRunner } from './backups/backups.js';
import type { BackupScheduler } from './backups/schedule.js';
import type { VolumeBackupRunner } from './backups/volume-backups.js';
import type { RestoreVerifier } from './backups/verify.js';
import { composeDaemon, recoverBackups } from './compose.js';
import type { Config } from './config.js';
import type { Core } from './core/core.js';
import type { DockerDeploymentEngine } from './deploy/engine.js';
import { createApp } from './http/app.js';
import { isDockerUnreachable } from './docker/client.js';
import type { Logger } from './http/errors.js';
import type { SseStreams } from './http/sse-streams.js';
import { followStatusPages } from './events/status-page-follow.js';
import { Notifier } from './notify/notifier.js';
import type { CaddyProxy } from './proxy/caddy.js';
import type { CachedStore } from './store/read-cache.js';
import { VERSION } from './version.js';
import { requestOrigin } from './http/request-origin.js';
import type { JobRunner } from './jobs/runner.js';
import type { JobScheduler } from './jobs/scheduler.js';
import type { ServerBackupSchedule } from './backups/server-backup-schedule.js';
import { terminalSockets } from './http/terminal-ws.js';
import { SAMPLE_MS } from './core/metrics-tiers.js';

export interface RunningDaemon {
  url: string;
  port: number;
  core: Core;
  /** The store behind the read cache (`cachedReads()` says how much it holds). */
  store: CachedStore;
  engine: DockerDeploymentEngine;
  /** The backup runner (`settled()` waits for jobs under way; tests use it). */
  backups: BackupRunner;
  /** Scheduled backups; `tick(date)` runs what is due at that time (tests drive it). */
  backupScheduler: BackupScheduler;
  /** Volume backups (tests wait on `settled()`). */
  volumeBackups: VolumeBackupRunner;
  /** Restore tests of database backups (tests wait on `settled()`). */
  verifier: RestoreVerifier;
  /** The reverse proxy (Caddy); `apply()` re-loads routing from the store, e.g. after a settings change. */
  proxy: CaddyProxy;
  /** Open event streams per key (`count(keyId)`). */
  sse: SseStreams;
  /** Job runs under way (`settled()` waits for them; tests use it). */
  jobRunner: JobRunner;
  /** Jobs' schedules; `fire(jobId)` takes the scheduled path now (the test hook). */
  jobScheduler: JobScheduler;
  /** The schedule of Berth's own backup; `fire()` takes the scheduled path now (the test hook). */
  serverBackupSchedule: ServerBackupSchedule;
  stop(): Promise<void>;
}

const INITIAL_KEY_FILE = 'initial-key';
const LOG_TRIM_INTERVAL_MS = 10 * 60_000;
/** How often the audit log drops entries past its retention and its row cap (a flood is also capped as it is written). */
const AUDIT_PRUNE_INTERVAL_MS = 60 * 60_000;
/** Berth's registry (Swarm mode) is garbage-collected once a day. */
const REGISTRY_GC_INTERVAL_MS = 24 * 60 * 60_000;
const SSE_PING_MS = 15_000;
/** How often a finished upgrade is looked for (one that failed before switching never restarts the daemon). */
const UPGRADE_CHECK_MS = 5_000;

export async function startDaemon(config: Config, log: Logger): Promise<RunningDaemon> {
  const composed = await composeDaemon(config, log);
  const { core, store, hub, engine, proxy, backups, backupScheduler, notifier, sse, jobRunner, jobScheduler } = composed;

  if (config.bootstrapKey !== null) {
    for (const id of await core.keys.ensureBootstrap(config.bootstrapKey)) {
      log(`BERTH_BOOTSTRAP_KEY changed: revoked key ${id}, made for its earlier value`);
    }
  } else if ((await core.keys.count()) === 0) {
    // First start with no key at all: issue one and hand it over through a file only root can read,
    // never through the log.
    const { token } = await core.keys.create({ name: 'initial', access: 'write', projects: 'all' });
    const path = join(config.dataDir, INITIAL_KEY_FILE);
    writeFileSync(path, token + '\n', { mode: 0o600 });
    log(`no API key existed: an all-projects write key was written to ${path}`);
  }

  try {
    await engine.start(config.reachabilityIntervalMs);
  } catch (err) {
    // The API still serves without Docker; deployments will say the Engine is unreachable.
    log(`docker engine at ${config.dockerSocket} is not usable yet (${(err as Error).message}); reconciliation skipped`);
  }

  const trim = async () => {
    await store.logs.trim('deployment_logs', config.logRetentionLines);
    await store.logs.trim('runtime_logs', config.logRetentionLines);
    await store.logs.releaseFreePages();
  };
  await trim().catch((err: unknown) => log('trimming old log lines', err));
  const trimTimer = setInterval(() => void trim().catch((err: unknown) => log('trimming old log lines', err)), LOG_TRIM_INTERVAL_MS);
  trimTimer.unref();

  const pruneAudit = () => void core.audit.prune().catch((err: unknown) => log('pruning the audit log', err));
  pruneAudit();
  const auditTimer = setInterval(pruneAudit, AUDIT_PRUNE_INTERVAL_MS);
  auditTimer.unref();
  const collectRegistry = () =>
    void composed.engine
      .collectRegistryGarbage()
      .then((r) => {
        if (r && r.deletedManifests > 0)
          log(`Berth's registry: ${r.deletedManifests} image(s) no rollback needs removed${r.freedBytes === null ? '' : `, ${Math.round(r.freedBytes / 1048576)} MB freed`}`);
      })
      .catch((err: unknown) => log("collecting the garbage of Berth's registry", err));
  const registryGcTimer = setInterval(collectRegistry, REGISTRY_GC_INTERVAL_MS);
  registryGcTimer.unref();

  await recoverBackups(composed, config);
  // exec and terminal records a stopped daemon left running end without an exit code
  await core.execs.recover().catch((err: unknown) => log('ending exec records left running', err));
  notifier.start(hub);
  const unfollowStatusPages = followStatusPages(hub, core.statusPages, log);
  if (Notifier.markRunning(config.dataDir)) notifier.restartedAfterCrash();
  backupScheduler.start();
  // job runs a crash left `running` end `failed` (and notify), their containers go; then the schedules arm
  await composed.recoverJobs();
  jobRunner.watch();
  await jobScheduler.start();
  // uptime checks run from the store's rows: an incident a stop left open stays open until a success
  await core.checks.startSchedule();
  // Berth's own backup: runs a stopped daemon left `running` end `failed` and their files go; then its schedule arms
  await core.serverBackups.recover().catch((err: unknown) => log("recovering Berth's interrupted backups", err));
  await core.serverBackups.startSchedule().catch((err: unknown) => log("arming the schedule of Berth's backup", err));
  // `node` events while Swarm is on (a cached `docker info` every few seconds while it is off)
  await core.nodeWatch.start();
  // metrics history: always on (history is the point), every 10 s; a round still running makes the next one skip
  const sampleMetrics = () => void core.metricsHistory.tick().catch((err: unknown) => log('sampling metrics history', err));
  const metricsTimer = setInterval(sampleMetrics, SAMPLE_MS);
  metricsTimer.unref();
  const app = createApp({
    core,
    version: VERSION,
    log,
    unavailable: (err) => (isDockerUnreachable(err) ? 'the Docker Engine is not answering (is dockerd running?); try again when it is back' : null),
    storeVersion: store.version,
    sse,
    pingMs: SSE_PING_MS,
    // the console next to the daemon's build
    consoleDir: config.consoleDir ?? fileURLToPath(new URL('../console', import.meta.url)),
    // deliveries come through Caddy on the dashboard hostname when one is set
    hookBase: async (ctx) => {
      const host = (await store.settings.get('dashboardHostname'))?.trim();
      if (!host) return requestOrigin(ctx);
      return `${(await store.settings.get('httpsMode')) === 'http' ? 'http' : 'https'}://${host}`;
    },
  });
  const server: Server = await new Promise((resolve, reject) => {
    const srv = app.listen(config.port, config.host, () => resolve(srv));
    srv.once('error', reject);
  });
  server.keepAliveTimeout = 65_000;
  // the terminal's WebSocket: the upgrade goes through the same app (key check, session, same-origin)
  // a development daemon's HTTPS listener for joining nodes (an installed server's Caddy serves the API over HTTPS)
  const joinServer = config.joinTlsAddr === null ? null : await startJoinTlsServer(config.joinTlsAddr, composed.ca, app.callback());
  const terminals = terminalSockets(app, { idleMs: config.execLimits.terminalIdleMs, log });
  server.on('upgrade', (req, socket, head) => terminals.onUpgrade(req, socket, head));
  const port = (server.address() as AddressInfo).port;
  const shownHost = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  proxy.setDashboardUpstream(`${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`);
  // Start-up: Caddy (resumed from its autosave) normally runs exactly what the store describes and
  // is left alone; it is loaded only when it differs (not awaited; an unreachable Caddy is logged
  // loudly and starts the retry timer).
  void proxy.sync().then((r) => {
    if (r.state === 'loaded') log(`reverse proxy: Caddy did not run the current routing; ${r.result.detail}`);
    else if (r.state === 'refused' || r.state === 'failed') log(`reverse proxy: ${r.result.detail}`);
  });
  proxy.watch();
  // an upgrade that ended (often: the switch that started this daemon, or the switch back) is announced
  // once; the release feed is read in the background
  const checkUpgrade = () => void core.upgrade.announceFinished().catch((err: unknown) => log('reading the upgrader status', err));
  checkUpgrade();
  const upgradeTimer = config.upgrade.upgrader === null ? null : setInterval(checkUpgrade, UPGRADE_CHECK_MS);
  upgradeTimer?.unref();
  void core.upgrade.refreshLatest();
  // Caddy's pools follow the Swarm tasks of replicated services (a cheap Engine check while Swarm is off)
  composed.taskWatcher.start();
  return {
    url: `http://${shownHost}:${port}`,
    port,
    core,
    store,
    engine,
    backups,
    backupScheduler,
    volumeBackups: composed.volumeBackups,
    verifier: composed.verifier,
    proxy,
    sse,
    jobRunner,
    jobScheduler,
    serverBackupSchedule: composed.serverBackupSchedule,
    async stop() {
      clearInterval(trimTimer);
      clearInterval(auditTimer);
      clearInterval(registryGcTimer);
      clearInterval(metricsTimer);
      if (upgradeTimer) clearInterval(upgradeTimer);
      sse.closeAll();
      terminals.closeAll();
      backupScheduler.stop();
      await unfollowStatusPages();
      jobScheduler.stop();
      await core.checks.stopSchedule();
      composed.serverBackupSchedule.stop();
      core.nodeWatch.stop();
      proxy.stop();
      composed.taskWatcher.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      if (joinServer) {
        await new Promise<void>((resolve) => {
          joinServer.close(() => resolve());
          joinServer.closeAllConnections();
        });
      }
      await engine.shutdown();
      await backups.shutdown();
      await composed.verifier.shutdown();
      await composed.volumeBackups.shutdown();
      await jobRunner.shutdown();
      // a backup of Berth under way ends recorded before the store closes
      await core.serverBackups.settled();
      await core.metricsHistory.settled();
      await notifier.stop();
      // the last calls' entries (the sign-out of a closing console, ...) are written before the store closes
      await core.audit.flush();
      await store.close();
      Notifier.markStopped(config.dataDir);
    },
  };
}
