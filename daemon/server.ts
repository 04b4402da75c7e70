// Starting the daemon in-process: store, deployment engine, core, HTTP. main.ts wraps this for
// production; tests call it with a temporary data dir and port 0.
import { writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type Router from '@koa/router';
import type { Config } from './config.js';
import { systemClock } from './core/clock.js';
import { buildCore, type Core } from './core/core.js';
import { probeFree } from './core/host-ports.js';
import { newId } from './core/ids.js';
import { CaddyProxy } from './proxy/caddy.js';
import type { Store } from './core/store.js';
import type { CachedStore } from './store/read-cache.js';
import { BerthCa } from './databases/tls.js';
import { backupTool, openAdapter } from './databases/engines.js';
import { Databases } from './core/databases.js';
import { liveDeployment } from './core/deployment-states.js';
import { databaseRoutes } from './http/routes/databases.js';
import { DockerDeploymentEngine } from './deploy/engine.js';
import { DaemonEvents } from './deploy/events.js';
import { EventHub } from './events/hub.js';
import { NotificationChannels } from './notify/channels.js';
import { Notifier } from './notify/notifier.js';
import { channelSender } from './notify/senders.js';
import { notificationRoutes } from './http/routes/notifications.js';
import { eventRoutes } from './http/routes/events.js';
import { SseStreams } from './http/sse-streams.js';
import { LogBook } from './deploy/log-book.js';
import { RuntimeLogs } from './deploy/runtime-logs.js';
import { connectDocker } from './docker/client.js';
import { Ownership } from './docker/labels.js';
import { createApp } from './http/app.js';
import { metricsRoutes } from './http/routes/metrics.js';
import { MetricsCollector, metricsSources } from './metrics/collector.js';
import type { Logger } from './http/errors.js';
import { publicIpSource } from './public-ip.js';
import { openDataDir } from './runtime.js';
import { VERSION } from './version.js';
import { AiProviders } from './core/ai-providers.js';
import { FailureExplainer } from './core/explain.js';
import { failureLogs } from './deploy/failure-logs.js';
import { aiRoutes } from './http/routes/ai.js';
import { providerRegistry } from './integrations/ai/registry.js';
import { detectInterfaceIpv4 } from './public-ip.js';
import { SystemSettings } from './core/system-settings.js';
import { DnsProviders } from './core/dns.js';
import { dnsProviderFor } from './integrations/dns/registry.js';
import { systemRoutes } from './http/routes/system.js';
import { BuildPlans } from './build/autobuild/preview.js';
import { buildPlanRoutes } from './http/routes/build-plan.js';
import { BackupStorage } from './core/backup-storage.js';
import { lazyS3Store } from './backups/lazy-s3-store.js';
import { backupStorageRoutes } from './http/routes/backup-storage.js';
import { Backups } from './backups/backups.js';
import { recoverInterrupted } from './backups/recover.js';
import { BackupScheduler } from './backups/schedule.js';
import { importPostgresUrl } from './databases/postgres/import.js';
import { backupRoutes } from './http/routes/backups.js';
import { SessionService } from './core/sessions.js';
import { fileURLToPath } from 'node:url';

export interface RunningDaemon {
  url: string;
  port: number;
  core: Core;
  /** The store behind the read cache (`cachedReads()` says how much it holds). */
  store: CachedStore;
  engine: DockerDeploymentEngine;
  backups: Backups;
  /** Scheduled backups; `tick(date)` runs what is due at that time (tests drive it). */
  backupScheduler: BackupScheduler;
  /** The reverse proxy (Caddy); `apply()` re-loads routing from the store, e.g. after a settings change. */
  proxy: CaddyProxy;
  /** Open event streams per key (`count(keyId)`). */
  sse: SseStreams;
  stop(): Promise<void>;
}

export const INITIAL_KEY_FILE = 'initial-key';
const LOG_TRIM_INTERVAL_MS = 10 * 60_000;
const SSE_PING_MS = 15_000;

async function instanceId(store: Store): Promise<string> {
  const existing = await store.settings.get('instanceId');
  if (existing) return existing;
  const id = newId();
  await store.settings.set('instanceId', id, systemClock.now());
  return id;
}

export async function startDaemon(config: Config, log: Logger): Promise<RunningDaemon> {
  const store = await openDataDir(config.dataDir);
  const docker = connectDocker(config.dockerSocket);
  const onLogError = (err: unknown) => log('writing log lines', err);
  const buildLogs = new LogBook(store.logs, 'deployment_logs', systemClock, onLogError);
  const runtimeBook = new LogBook(store.logs, 'runtime_logs', systemClock, onLogError);
  await buildLogs.init();
  await runtimeBook.init();
  const hub = new EventHub(systemClock);
  const events = new DaemonEvents(hub);
  const runtimeLogs = new RuntimeLogs(docker, runtimeBook);
  const own = new Ownership(await instanceId(store));
  const ca = new BerthCa(join(config.dataDir, 'tls'));
  // Caddy, the data plane, through its admin API; when it is not running, every result says so and a timer retries.
  const proxy = new CaddyProxy({
    store,
    adminUrl: config.caddyAdmin,
    httpAddr: config.proxyHttpAddr,
    httpsAddr: config.proxyHttpsAddr,
    apiTls: config.apiTlsAddr === null ? null : { addr: config.apiTlsAddr, subject: publicIpSource(store.settings) },
    log,
  });
  const engine = new DockerDeploymentEngine(
    {
      store,
      docker,
      own,
      clock: systemClock,
      log,
      buildLogs,
      runtimeLogs,
      dataPlane: proxy,
      events,
      gitBaseUrl: config.gitBaseUrl,
      buildCaFile: config.buildCaFile,
      buildsDir: join(config.dataDir, 'builds'),
      cloneLimits: config.cloneLimits,
      healthTimeoutMs: config.healthTimeoutMs,
      autobuildImages: config.autobuildImages,
      databaseImages: config.images,
      ca,
      openAdapter,
      backupsDir: join(config.dataDir, 'backups'),
      publicIp: async () => (await store.settings.get('publicIp')) ?? detectInterfaceIpv4(),
      limits: config.limits,
      buildLimits: config.buildLimits,
      keepImages: config.keepImages,
    },
    config.buildConcurrency,
  );
  const core = buildCore({
    store,
    clock: systemClock,
    proxy,
    portRange: config.portRange,
    probePort: probeFree,
    publicIp: publicIpSource(store.settings),
    engine,
    buildLogs,
    events: hub,
    limits: config.limits,
  });

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
  };
  await trim().catch((err: unknown) => log('trimming old log lines', err));
  const trimTimer = setInterval(() => void trim().catch((err: unknown) => log('trimming old log lines', err)), LOG_TRIM_INTERVAL_MS);
  trimTimer.unref();

  // Route groups beyond the core API; each registers itself on the API router.
  const sse = new SseStreams(store.version, log);
  const moreRoutes: ((router: Router) => void)[] = [eventRoutes(hub, SSE_PING_MS, sse, core.keys)];
  // System metrics: one cached collection shared by every polling client.
  const metrics = new MetricsCollector(metricsSources({ docker, own, store, dataDir: config.dataDir }), systemClock);
  moreRoutes.push((router) => metricsRoutes(router, metrics));
  // Failure explanations: the built-in rules or a configured AI provider's HTTP API.
  const explainer = new FailureExplainer({
    deployments: core.deployments,
    store,
    logs: failureLogs(buildLogs, runtimeBook),
    providers: providerRegistry(store.aiProviders),
  });
  moreRoutes.push(aiRoutes({ providers: new AiProviders(store.aiProviders, systemClock), explainer }));
  // System settings and DNS providers: A records written through the provider's HTTP API.
  const systemSettings = new SystemSettings(store.settings, systemClock, detectInterfaceIpv4(), proxy);
  const dnsProviders = new DnsProviders(store, systemClock, (record) => dnsProviderFor(record), () => systemSettings.publicIp());
  moreRoutes.push(systemRoutes({ settings: systemSettings, dns: dnsProviders }));
  // Build plans: what autobuild would do with a service's branch, previewed without building.
  moreRoutes.push(buildPlanRoutes(new BuildPlans({
        store,
        gitBaseUrl: config.gitBaseUrl,
        images: config.autobuildImages,
        workDir: join(config.dataDir, 'builds'),
        cloneLimits: config.cloneLimits,
        concurrency: config.buildPlanConcurrency,
      })));
  // Database browsing through the engine adapters, and PostgreSQL TLS from the Berth CA.
  moreRoutes.push(databaseRoutes(new Databases({ store, catalog: core.catalog, open: openAdapter, ca, publicIp: () => systemSettings.publicIp() })));
  // Remote backup storage (S3-compatible), a sealed system setting; `remote()` gives the runner its store.
  const backupStorage = new BackupStorage(store.settings, systemClock, lazyS3Store);
  moreRoutes.push(backupStorageRoutes(backupStorage));
  // Backups, restores and imports with the engines' own tools inside the database containers.
  const backupsDir = join(config.dataDir, 'backups'); // the engine removes a deleted service's folder
  await recoverInterrupted(store, systemClock, backupsDir);
  const backups = new Backups({
    store,
    docker,
    clock: systemClock,
    dir: backupsDir,
    tool: backupTool,
    remote: () => backupStorage.remote(),
    live: async (service) => {
      const live = await liveDeployment(store, service.id);
      if (!live || service.hostPort === null) return null;
      return { containerId: live.containerId, env: Object.fromEntries(await core.catalog.resolvedEnv(service)), hostPort: service.hostPort };
    },
    restarted: (serviceId) => engine.containerRestarted(serviceId),
    importPostgres: importPostgresUrl,
    importTimeoutMs: config.importTimeoutMs,
    // ioredis loads only when a redis import runs
    importRedis: async (...args) => (await import('./databases/redis/import.js')).importRedisUrl(...args),
    log,
    events: hub,
  });
  moreRoutes.push(backupRoutes(backups));
  // Notification channels: failures (and, when chosen, successes) told where the team already talks.
  const sender = channelSender(log);
  const channels = new NotificationChannels(store.settings, systemClock, sender);
  moreRoutes.push(notificationRoutes(channels));
  const notifier = new Notifier({ store, clock: systemClock, channels, sender, log });
  notifier.start(hub);
  if (Notifier.markRunning(config.dataDir)) notifier.restartedAfterCrash();
  const backupScheduler = new BackupScheduler(store, backups, log);
  backupScheduler.start();
  const app = createApp({ core, version: VERSION, log, storeVersion: store.version, streams: { buildLogs, runtimeLogs, events, pingMs: SSE_PING_MS, sse },
    moreRoutes,
    // console sessions in the store (hashed), so they survive a restart; the console next to the daemon's build
    sessions: new SessionService(store, core.keys, systemClock),
    consoleDir: config.consoleDir ?? fileURLToPath(new URL('../console', import.meta.url)),
    // deliveries come through Caddy on the dashboard hostname when one is set
    hookBase: async (ctx) => {
      const host = (await store.settings.get('dashboardHostname'))?.trim();
      if (!host) return `${ctx.protocol}://${ctx.host}`;
      return `${(await store.settings.get('httpsMode')) === 'http' ? 'http' : 'https'}://${host}`;
    },
  });
  const server: Server = await new Promise((resolve, reject) => {
    const srv = app.listen(config.port, config.host, () => resolve(srv));
    srv.once('error', reject);
  });
  server.keepAliveTimeout = 65_000;
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
  return {
    url: `http://${shownHost}:${port}`,
    port,
    core,
    store,
    engine,
    backups,
    backupScheduler,
    proxy,
    sse,
    async stop() {
      clearInterval(trimTimer);
      sse.closeAll();
      backupScheduler.stop();
      proxy.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await engine.shutdown();
      await backups.shutdown();
      await notifier.stop();
      await store.close();
      Notifier.markStopped(config.dataDir);
    },
  };
}
