// The one wiring place: opens the store, builds every adapter (Docker, Caddy, log books, the
// deployment engine, backup runner, DNS and AI clients, metrics sources, notification senders)
// and hands them to core's registry (core/core.ts `buildCore`). server.ts starts and stops what
// this builds; nothing else constructs a service.
import { DockerVolumeSizes } from './docker/volume-sizes.js';
import { join } from 'node:path';
import type { Config } from './config.js';
import { recoverInterrupted } from './backups/recover.js';
import { BackupRunner } from './backups/backups.js';
import { RestoreVerifier } from './backups/verify.js';
import { removeRestoreTestLeftovers } from './docker/restore-test-container.js';
import { effectiveLimits } from './core/limits.js';
import { lazyS3Store } from './backups/lazy-s3-store.js';
import { BackupScheduler } from './backups/schedule.js';
import { VolumeBackupRunner } from './backups/volume-backups.js';
import { containerState, publishedPort } from './docker/containers.js';
import { projectVolumeName } from './docker/volumes.js';
import { waitUntilAnswering } from './deploy/health.js';
import { backupTool, openAdapter } from './databases/engines.js';
import { importPostgresUrl } from './databases/postgres/import.js';
import { hostReachFacts } from './backups/source-reach.js';
import { BuildPlanPreviewer } from './builder/autobuild/preview.js';
import { cloneReachCheck } from './builder/clone-reach.js';
import { systemClock } from './core/clock.js';
import { BackupStorage } from './core/backup-storage.js';
import { Catalog } from './core/catalog.js';
import { composeParser } from './compose-import/parse.js';
import { COMPOSE_TEMPLATES } from './compose-import/templates/index.js';
import { buildCore, type Core } from './core/core.js';
import { DiskSpace } from './core/disk-space.js';
import { probeFree } from './proxy/host-port-probe.js';
import { instanceId } from './store/instance-id.js';
import { liveDeployment } from './core/deployment-states.js';
import { BerthCa } from './databases/tls.js';
import { DockerDeploymentEngine } from './deploy/engine.js';
import { dockerExecRunner } from './deploy/exec-runner.js';
import { DeployLimitSettings } from './core/deploy-limits.js';
import { DaemonEvents } from './deploy/events.js';
import { failureLogs } from './deploy/failure-logs.js';
import { LogBook } from './deploy/log-book.js';
import { RuntimeLogs } from './deploy/runtime-logs.js';
import { connectDocker } from './docker/client.js';
import { DockerSwarmState } from './swarm/state.js';
import { BerthRegistry } from './swarm/registry.js';
import { NodeEngines } from './swarm/node-engines.js';
import { databaseNodeEnginesOf, serviceAddress, serviceHost } from './deploy/service-host.js';
import { DockerSwarmControl } from './swarm/control.js';
import { JoinEndpoint } from './swarm/join-endpoint.js';
import { Ownership } from './docker/labels.js';
import { EventHub } from './events/hub.js';
import type { Logger } from './http/errors.js';
import { SseStreams } from './http/sse-streams.js';
import { providerRegistry } from './integrations/ai/registry.js';
import { dnsProviderFor } from './integrations/dns/registry.js';
import { diskProbe } from './metrics/disk-space.js';
import { metricsSources } from './metrics/sources.js';
import { metricsHistoryAdapters } from './metrics/history-source.js';
import { Notifier } from './notify/notifier.js';
import { channelSender } from './notify/senders.js';
import { NotifyTargets } from './core/notify-targets.js';
import { lookupAll } from './notify/lookup.js';
import { TaskPools } from './swarm/task-pools.js';
import { TaskWatcher } from './swarm/task-watcher.js';
import { EngineInstances } from './swarm/instances.js';
import { CaddyProxy } from './proxy/caddy.js';
import { Quotas } from './core/quotas.js';
import { keptDetectedIp, publicIpSource } from './public-ip.js';
import { CaddyApiCertificate } from './proxy/api-certificate.js';
import { openDataDir } from './runtime.js';
import { ReleaseFeed } from './server-tools/release-feed.js';
import { UpgradeFiles } from './server-tools/upgrade-files.js';
import { tenantWritableDirs } from './core/upgrade-text.js';
import { ServerArchiveFiles } from './server-tools/server-archive-files.js';
import { defaultServerPaths } from './server-tools/server-archive.js';
import { ServerBackupSchedule } from './backups/server-backup-schedule.js';
import { VERSION } from './version.js';
import type { CachedStore } from './store/read-cache.js';
import { cronRules } from './jobs/cron.js';
import { JobRunner } from './jobs/runner.js';
import { JobScheduler } from './jobs/scheduler.js';
import { recoverJobRuns } from './jobs/recover.js';
import { checkScheduler } from './checks/build.js';

export interface Composed {
  core: Core;
  /** The store behind the read cache (`cachedReads()` says how much it holds). */
  store: CachedStore;
  hub: EventHub;
  engine: DockerDeploymentEngine;
  proxy: CaddyProxy;
  /** Follows Swarm tasks into Caddy's pools (started by server.ts). */
  taskWatcher: TaskWatcher;
  backups: BackupRunner;
  /** Restore tests of database backups. */
  verifier: RestoreVerifier;
  backupScheduler: BackupScheduler;
  volumeBackups: VolumeBackupRunner;
  notifier: Notifier;
  sse: SseStreams;
  jobRunner: JobRunner;
  jobScheduler: JobScheduler;
  /** The schedule of Berth's own backup; `fire()` takes the scheduled path now (the test hook). */
  serverBackupSchedule: ServerBackupSchedule;
  /** Start-up: removes the restore-test containers (and volumes) a crash left. */
  removeRestoreTestLeftovers: () => Promise<void>;
  /** Start-up recovery of job runs a crash left `running` (before the schedules arm). */
  recoverJobs: () => Promise<void>;
  /** Berth's CA (the development join listener's certificate comes from it). */
  ca: BerthCa;
}

export async function composeDaemon(config: Config, log: Logger): Promise<Composed> {
  const clock = systemClock;
  const store = await openDataDir(config.dataDir);
  const docker = connectDocker(config.dockerSocket);
  const onLogError = (err: unknown) => log('writing log lines', err);
  const { retention, rate: logRate } = config.logBudgets;
  const buildLogs = new LogBook(store.logs, 'deployment_logs', clock, onLogError, retention);
  const runtimeBook = new LogBook(store.logs, 'runtime_logs', clock, onLogError, { perOwner: retention.perOwner });
  await buildLogs.init();
  await runtimeBook.init();
  const hub = new EventHub(clock);
  const runtimeLogs = new RuntimeLogs(docker, runtimeBook, logRate);
  const own = new Ownership(await instanceId(store));
  // the server's address: the user's setting, else the one detected on the first start (kept: it never drifts)
  const detectedIp = await keptDetectedIp(store.settings);
  const publicIp = publicIpSource(store.settings, detectedIp);
  // Swarm mode as Docker sees it (cached ~2 s): read by the deploy machinery and core
  const swarm = new DockerSwarmState(docker);
  const ca = new BerthCa(join(config.dataDir, 'tls'));
  // Swarm mode's image registry on the manager (started when Swarm turns on, and by deployments)
  const registry = new BerthRegistry({
    docker,
    own,
    ca,
    settings: store.settings,
    swarm,
    image: config.registry.image,
    port: config.registry.port,
    dir: join(config.dataDir, 'registry'),
    certsDir: '/etc/docker/certs.d',
    now: () => clock.now(),
    log,
  });
  // the Docker Engine of any node (exec and terminals in tasks on workers)
  const nodeEngines = new NodeEngines({ docker, own, ca, registry, ...config.nodeEngine, tlsDir: join(config.dataDir, 'tls'), log });
  const databaseNodeEngines = () => databaseNodeEnginesOf(store, nodeEngines); // metrics sample their databases too
  // the engine removes a deleted service's folder of backups; config files written per deployment are bind-mounted read-only
  const backupsDir = join(config.dataDir, 'backups');
  const filesDir = join(config.dataDir, 'files');
  // the answering tasks of Swarm-backed services: the watcher writes them, Caddy's routing reads them
  const pools = new TaskPools();
  // Caddy, the data plane, through its admin API; when it is not running, every result says so and a timer retries.
  const proxy = new CaddyProxy({
    store,
    adminUrl: config.caddyAdmin,
    httpAddr: config.proxyHttpAddr,
    httpsAddr: config.proxyHttpsAddr,
    apiTls: config.apiTlsAddr === null ? null : { addr: config.apiTlsAddr, subject: publicIp },
    log,
    storeVersion: store.version,
    pools: () => pools.snapshot(),
    pagesDir: config.statusPagesDir,
  });
  const taskWatcher = new TaskWatcher({ docker, own, swarm, store, pools, apply: () => proxy.apply(), events: hub, log });
  // this host's addresses and Docker's networks: what redis imports and clones of keys over selected projects may not reach
  const reachFacts = hostReachFacts(docker);
  // build, pull and clone timeouts and the per-project queue cap: system settings, read by core and the engine
  const deployLimits = new DeployLimitSettings(store.settings, { cloneTimeoutSeconds: Math.round(config.cloneLimits.timeoutMs / 1000) });
  // Per-project quotas and the free disk threshold: read by the engine, the backup schedules and core alike.
  const quotas = new Quotas(store, clock, config.quotaDefaults, hub);
  const disk = new DiskSpace(store.settings, clock, diskProbe(docker, config.dataDir), config.diskMinFreeBytes);
  const engine = new DockerDeploymentEngine(
    {
      store,
      docker,
      own,
      clock,
      swarm,
      registry,
      dockerCliImage: config.dockerCliImage,
      log,
      buildLogs,
      runtimeLogs,
      logRate,
      dataPlane: proxy,
      events: new DaemonEvents(hub),
      gitBaseUrl: config.gitBaseUrl,
      reachFacts,
      buildCaFile: config.buildCaFile,
      buildsDir: join(config.dataDir, 'builds'),
      filesDir,
      cloneLimits: config.cloneLimits,
      deployLimits: () => deployLimits.read(),
      healthTimeoutMs: config.healthTimeoutMs,
      autobuildImages: config.autobuildImages,
      databaseImages: config.images,
      ca,
      openAdapter,
      backupsDir,
      publicIp,
      limits: config.limits,
      buildLimits: config.buildLimits,
      keepImages: (projectId) => quotas.imagesPerService(projectId),
      diskLow: (what) => disk.lowReason(what),
      swarmTasks: taskWatcher,
      nodeEngines,
    },
    config.buildConcurrency,
  );
  // Remote backup storage and the service catalog (resolved variables) are core services the
  // backup runner reads; they are built here, before the runner, and handed to `buildCore` too.
  const backupStorage = new BackupStorage(store.settings, clock, lazyS3Store, hub);
  const catalog = new Catalog(store, config.limits, new DockerVolumeSizes(docker, own, log));
  // Restore tests: a backup restored into a throwaway container of the service's engine and image.
  const verifier = new RestoreVerifier({
    store,
    docker,
    own,
    clock,
    dir: backupsDir,
    remote: () => backupStorage.remote(),
    openAdapter,
    image: async (service) => (await liveDeployment(store, service.id))?.imageTag ?? config.images[service.databaseEngine!],
    env: async (service) => Object.fromEntries(await catalog.resolvedEnv(service)),
    limits: (service) => effectiveLimits(config.limits, service),
    log,
    events: hub,
  });
  // Backups, restores and imports with the engines' own tools inside the database containers.
  const backups = new BackupRunner({
    verifier,
    // The one real cycle: the scheduler drives the runner (start, isBusy, removeFiles) and the
    // runner tells the scheduler that settings were saved (it arms on the first automatic
    // schedule). The scheduler is built right after the runner; this reads it only when settings
    // are saved, which no request can do before composeDaemon returns.
    settingsSaved: () => void scheduler.armWhenScheduled(),
    store,
    docker,
    clock,
    dir: backupsDir,
    tool: backupTool,
    remote: () => backupStorage.remote(),
    live: async (service) => {
      const live = await liveDeployment(store, service.id);
      if (!live || service.hostPort === null) return null;
      // a database created on another Swarm node: its container is driven through that node's Engine
      const host = await serviceHost({ docker, nodeEngines }, service);
      return { containerId: live.containerId, env: Object.fromEntries(await catalog.resolvedEnv(service)), hostPort: service.hostPort, docker: host.docker, host: host.address };
    },
    restarted: (serviceId) => engine.containerRestarted(serviceId),
    importPostgres: importPostgresUrl,
    importTimeoutMs: config.importTimeoutMs,
    // ioredis loads only when a redis import runs
    importRedis: async (...args) => (await import('./databases/redis/import.js')).importRedisUrl(...args),
    reach: reachFacts,
    log,
    events: hub,
  });
  // loopback and link-local targets only when a setting allows; Caddy's admin API never
  const notifyTargets = new NotifyTargets(store.settings, lookupAll, config.caddyAdmin);
  const sender = channelSender(log, undefined, (channel) => notifyTargets.check(channel.config, 'sending'));
  // Backups of service volumes: tarballs through the Engine's archive API, the same files, remote
  // store, schedules and events as the database backups.
  const volumeBackups = new VolumeBackupRunner({
    settingsSaved: () => void scheduler.armWhenScheduled(),
    store,
    docker,
    own,
    clock,
    dir: backupsDir,
    remote: () => backupStorage.remote(),
    live: async (serviceId) => {
      const live = await liveDeployment(store, serviceId);
      return live?.containerId ? { containerId: live.containerId } : null;
    },
    // a restore started the live container again: the routes follow its published port, then it must answer on it
    restarted: async (service, containerId, signal) => {
      await engine.containerRestarted(service.id);
      if (service.internalPort === null) return 'answering';
      const port = await publishedPort(docker, containerId, `${service.internalPort}/tcp`);
      if (port === null) return 'exited';
      return waitUntilAnswering(port, 'tcp', config.healthTimeoutMs, signal, async () => (await containerState(docker, containerId))?.running ?? false);
    },
    log,
    events: hub,
  });
  const scheduler = new BackupScheduler(store, backups, log, { quotas, disk }, volumeBackups, { verifier, dir: backupsDir });
  // scheduled jobs: one-off containers from the live image, node-cron tasks per enabled job
  const jobRunner = new JobRunner({ store, docker, own, limits: config.limits, filesDir, clock, events: hub, log });
  const jobScheduler = new JobScheduler(store, jobRunner, log);
  // Berth's own backup: the archive `berth server backup` writes (the daemon reads /etc/berth and Caddy's home), in <data>/server-backups
  const serverBackupSchedule = new ServerBackupSchedule(log);
  const core = buildCore({
    store,
    instances: new EngineInstances({ docker, own, swarm }),
    catalog,
    backupStorage,
    clock,
    proxy,
    portRange: config.portRange,
    probePort: probeFree,
    publicIp,
    detectedIp,
    engine,
    swarm,
    swarmControl: new DockerSwarmControl(docker, own, swarm, nodeEngines),
    registry,
    // the certificate Caddy serves the API with, read by a handshake (the fingerprint a change of the address answers)
    apiCertificate: new CaddyApiCertificate(config.apiTlsAddr),
    // upgrades of Berth: the files shared with the installer's upgrader, and the release feed
    upgrade: {
      version: VERSION,
      mode: config.upgrade.upgrader,
      sources: config.upgrade.sources,
      refusedDirs: tenantWritableDirs(config.dataDir),
      files: new UpgradeFiles(config.dataDir, config.upgrade.installRoot),
      feed: new ReleaseFeed(config.upgrade.releaseFeed),
    },
    serverBackups: {
      archives: new ServerArchiveFiles(defaultServerPaths(config.dataDir), join(config.dataDir, 'server-backups')),
      schedule: serverBackupSchedule,
    },
    joinEndpoint: new JoinEndpoint({ joinTlsAddr: config.joinTlsAddr, apiTlsAddr: config.apiTlsAddr, publicIp }),
    deployLimits,
    notifyTargets,
    buildLogs,
    runtimeLogs: runtimeBook,
    runtime: runtimeLogs,
    events: hub,
    limits: config.limits,
    failureLogs: failureLogs(buildLogs, runtimeBook),
    aiClients: providerRegistry(store.aiProviders),
    dnsProviderFor: (record) => dnsProviderFor(record),
    openDatabase: openAdapter,
    databaseAddress: (service) => serviceAddress(nodeEngines, service),
    ca,
    backupJobs: backups,
    volumeBackupJobs: volumeBackups,
    volumeDockerName: projectVolumeName,
    buildPlanner: new BuildPlanPreviewer({
      store,
      gitBaseUrl: config.gitBaseUrl,
      images: config.autobuildImages,
      workDir: join(config.dataDir, 'builds'),
      cloneLimits: config.cloneLimits,
      concurrency: config.buildPlanConcurrency,
      reachFacts,
    }),
    cloneReach: cloneReachCheck(reachFacts, config.gitBaseUrl),
    metricsSources: metricsSources({ docker, own, store, dataDir: config.dataDir, remotes: databaseNodeEngines }),
    ...metricsHistoryAdapters({ docker, own, store, dataDir: config.dataDir, caddyAdmin: config.caddyAdmin, remotes: databaseNodeEngines }),
    noticeSender: sender,
    quotas,
    disk,
    jobRunner,
    jobSchedule: jobScheduler,
    cron: cronRules,
    checkSchedule: checkScheduler({ store, clock, events: hub, config, log }),
    execRunner: dockerExecRunner({ store, docker, own, limits: config.limits, filesDir, swarmTasks: taskWatcher, engines: nodeEngines }),
    execTimeoutMs: config.execLimits.timeoutMs,
    composeParser,
    composeTemplates: COMPOSE_TEMPLATES,
    auditMaxRows: config.auditMaxRows,
    log,
  });
  return {
    core,
    store,
    hub,
    engine,
    proxy,
    taskWatcher,
    backups,
    verifier,
    backupScheduler: scheduler,
    volumeBackups,
    // Notification channels: failures (and, when chosen, successes) told where the team already talks.
    notifier: new Notifier({ store, clock, channels: core.notifications, sender, log }),
    sse: new SseStreams(store.version, log),
    jobRunner,
    jobScheduler,
    serverBackupSchedule,
    ca,
    removeRestoreTestLeftovers: async () => {
      const removed = await removeRestoreTestLeftovers(docker, own).catch((err: unknown) => {
        log('removing restore-test containers left by a stop', err);
        return 0;
      });
      if (removed > 0) log(`removed ${removed} restore-test container(s) a stop left behind`);
    },
    recoverJobs: () => recoverJobRuns({ store, docker, own, clock, events: hub, log }),
  };
}

/** Start-up clean-up before any job runs: backups and imports a crash left `running` are failed. */
export async function recoverBackups(composed: Composed, config: Config): Promise<void> {
  await recoverInterrupted(composed.store, systemClock, join(config.dataDir, 'backups'));
  await composed.removeRestoreTestLeftovers();
}
