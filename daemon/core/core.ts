// The registry of use cases: every service the HTTP layer and the CLI call, built here from
// explicit dependencies (the ports below). Adapters are built in daemon/compose.ts and handed in;
// nothing in core builds an adapter.
import { AiProviders } from './ai-providers.js';
import { AuditLog } from './audit.js';
import type { BackupStorage } from './backup-storage.js';
import { Backups } from './backups.js';
import { VolumeBackups } from './volume-backups.js';
import { BuildPlans } from './build-plans.js';
import type { BuildPlanner } from './ports/build-planner.js';
import { ProjectVolumes } from './volumes.js';
import type { Catalog } from './catalog.js';
import type { Clock } from './clock.js';
import { Databases, type DatabasesDeps } from './databases.js';
import type { CaPort } from './ports/ca.js';
import type { DeploymentEngine } from './ports/deployment-engine.js';
import type { DeployLimitSettings } from './deploy-limits.js';
import { Deployments } from './deployments.js';
import type { DiskSpace } from './disk-space.js';
import { DnsProviders } from './dns.js';
import type { DnsProviderFactory } from './ports/dns-provider-repo.js';
import { Domains } from './domains.js';
import { EnvVars } from './env-vars.js';
import { EventStreams } from './event-streams.js';
import { Execs } from './execs.js';
import type { ExecRunner } from './ports/exec-runner.js';
import type { EventFeed, EventSink } from './events.js';
import { FailureExplainer } from './explain.js';
import type { FailureLogs, ProviderRegistry } from './ports/explain-provider.js';
import type { PortRange } from './host-ports.js';
import type { PortProbe } from './ports/port-probe.js';
import { KeyService } from './keys.js';
import type { LimitPolicy } from './limits.js';
import { LogStreams } from './log-streams.js';
import { MetricsCollector, SystemMetricsView } from './metrics.js';
import type { MetricsSources } from './ports/metrics-sources.js';
import { MetricAlerts } from './metric-alerts.js';
import { MetricsHistory } from './metrics-history.js';
import type { FootprintProbe, HistorySource } from './ports/metrics-history.js';
import type { NotifyTargets } from './notify-targets.js';
import { NotificationChannels } from './notification-channels.js';
import type { BackupJobs, VolumeBackupJobs } from './ports/backup-jobs.js';
import type { CloneReachCheck } from './ports/clone-reach-check.js';
import type { LogFeed, RuntimeLogState } from './ports/log-feeds.js';
import type { Sender } from './ports/notice-sender.js';
import { Projects } from './projects.js';
import type { ProxyPort } from './ports/proxy.js';
import type { Quotas } from './quotas.js';
import { StatusPages } from './status-pages.js';
import { checksUptime } from './status-page-uptime.js';
import { Services } from './services.js';
import { Instances } from './instances.js';
import type { InstancesSource } from './ports/instances.js';
import { SessionService } from './sessions.js';
import type { Store } from './ports/store.js';
import type { SwarmPort } from './ports/swarm.js';
import type { JoinEndpointPort, RegistryControlPort, SwarmControlPort } from './ports/swarm-control.js';
import { SwarmMode } from './swarm.js';
import { Nodes } from './nodes.js';
import { NodeWatch } from './node-watch.js';
import { NodeJoins } from './node-joins.js';
import { SystemSettings } from './system-settings.js';
import { ServerAddresses } from './server-address.js';
import type { ApiCertificatePort } from './ports/api-certificate.js';
import { ServerUpgrades } from './server-upgrade.js';
import type { ReleaseFeedPort, UpgradeFilesPort, UpgraderMode } from './ports/upgrader.js';
import { ServerBackups } from './server-backups.js';
import type { ServerArchivePort, ServerBackupSchedulePort } from './ports/server-backups.js';
import { Webhooks } from './webhooks.js';
import { GeneratedNames } from './generated-names.js';
import { Jobs } from './jobs.js';
import { Checks } from './checks.js';
import type { CheckSchedulePort } from './ports/checks.js';
import type { CronPort, JobRunnerPort, JobSchedulePort } from './ports/jobs-repo.js';
import { ComposeImport } from './compose-import.js';
import type { ComposeParser } from './ports/compose-parser.js';
import type { ComposeTemplate } from '../../shared/types.js';

export interface CoreDeps {
  store: Store;
  clock: Clock;
  proxy: ProxyPort;
  portRange: PortRange;
  probePort: PortProbe;
  /** The public address for service URLs (the setting, else the detected one). */
  publicIp: () => Promise<string>;
  /** The first non-internal IPv4 of this host, found at start. */
  detectedIp: string;
  /** The certificate the API is served with over HTTPS (its fingerprint after an address change). */
  apiCertificate: ApiCertificatePort;
  engine: DeploymentEngine;
  /** Upgrades of Berth: the version running, how the installer's upgrader runs (null: not available), its files, the release feed. */
  upgrade: { version: string; mode: UpgraderMode | null; sources: readonly string[]; refusedDirs: readonly string[]; files: UpgradeFilesPort; feed: ReleaseFeedPort };
  /** Berth's own backup: the archive maker with its folder, and the schedule's timer (the S3 storage is backupStorage's). */
  serverBackups: { archives: ServerArchivePort; schedule: ServerBackupSchedulePort };
  /** Swarm mode: whether this server is a manager, and its advertise address (daemon/swarm/state.ts). */
  swarm: SwarmPort;
  /** Swarm init/leave, nodes and join tokens through the Engine (daemon/swarm/control.ts). */
  swarmControl: SwarmControlPort;
  /** Berth's registry on the manager (daemon/swarm/registry.ts): started with Swarm, removed with it. */
  registry: RegistryControlPort;
  /** Where joining nodes reach the API over HTTPS, its pin, and the join script's template. */
  joinEndpoint: JoinEndpointPort;
  /** Build, pull and clone timeouts and the per-project queue cap (system settings the engine reads too). */
  deployLimits: DeployLimitSettings;
  buildLogs: LogFeed;
  runtimeLogs: LogFeed;
  runtime: RuntimeLogState;
  /** The daemon's event hub: published to, and followed by streams. */
  events: EventSink & EventFeed;
  /** Container limits: the server's defaults and maxima. */
  limits: LimitPolicy;
  /** Failure explanations: the logs of a failed deployment, and the AI providers' clients. */
  failureLogs: FailureLogs;
  aiClients: ProviderRegistry;
  dnsProviderFor: DnsProviderFactory;
  /** The engine adapters (the port is the db helper's to move into core; see core/databases.ts). */
  openDatabase: DatabasesDeps['open'];
  /** Where a database's published port answers the daemon (loopback, or the Swarm node it runs on). */
  databaseAddress: DatabasesDeps['address'];
  ca: CaPort;
  /**
   * Remote backup storage (S3-compatible, a sealed system setting) and the service catalog: built by
   * compose.ts before core, because the backup runner (an adapter core depends on) reads them too.
   */
  backupStorage: BackupStorage;
  catalog: Catalog;
  backupJobs: BackupJobs;
  /** Backups of service volumes (daemon/backups/volume-backups.ts), and the Docker name of a project's volume. */
  volumeBackupJobs: VolumeBackupJobs;
  volumeDockerName: (projectId: string, name: string) => string;
  buildPlanner: BuildPlanner;
  /** Where a clone may connect for a key over selected projects (core/clone-reach.ts). */
  cloneReach: CloneReachCheck;
  metricsSources: MetricsSources;
  /** Metrics history's sampler (every 10 s) and Berth's own footprint. */
  historySource: HistorySource;
  footprint: FootprintProbe;
  noticeSender: Sender;
  /** Where notification channels may send (core/notify-targets.ts; the sender checks it too). */
  notifyTargets: NotifyTargets;
  /** Per-project quotas (built in compose.ts: the deployment engine and the backup schedules read them too). */
  quotas: Quotas;
  /** The server's free disk and its threshold (likewise shared with the engine and the schedules). */
  disk: DiskSpace;
  /** Scheduled jobs: the runner, the schedules and the cron rules (daemon/jobs/). */
  jobRunner: JobRunnerPort;
  jobSchedule: JobSchedulePort;
  cron: CronPort;
  /** Uptime checks' timers and probes (daemon/checks/), with the shortest interval allowed. */
  checkSchedule: CheckSchedulePort;
  /** One-off commands and terminals in a service's containers, and how long a command may run. */
  execRunner: ExecRunner;
  execTimeoutMs: number;
  /** Compose files: the YAML reader and the template gallery (daemon/compose-import/). */
  composeParser: ComposeParser;
  composeTemplates: readonly ComposeTemplate[];
  /** Where background work that has no record of its own says how it ended (the daemon's log). */
  log: (message: string, err?: unknown) => void;
  /** Where each service's instances run (Swarm tasks or its container). */
  instances: InstancesSource;
  /** Audit log entries kept at most (the oldest pruned past it). */
  auditMaxRows: number;
}

export interface Core {
  keys: KeyService;
  /** GET /services/:id/instances. */
  instances: Instances;
  sessions: SessionService;
  projects: Projects;
  services: Services;
  env: EnvVars;
  domains: Domains;
  deployments: Deployments;
  logStreams: LogStreams;
  webhooks: Webhooks;
  generatedNames: GeneratedNames;
  catalog: Catalog;
  buildPlans: BuildPlans;
  databases: Databases;
  backups: Backups;
  volumeBackups: VolumeBackups;
  backupStorage: BackupStorage;
  aiProviders: AiProviders;
  explainer: FailureExplainer;
  settings: SystemSettings;
  /** The server's address and the API certificate's fingerprint; changing it re-issues the certificate. */
  address: ServerAddresses;
  /** Berth's version, a newer release from the feed, and upgrades handed to the installer's upgrader. */
  upgrade: ServerUpgrades;
  /** Berth's own backup (the archive of its state): settings, runs now or on a schedule, to disk or S3, retention. */
  serverBackups: ServerBackups;
  dns: DnsProviders;
  notifications: NotificationChannels;
  metrics: SystemMetricsView;
  /** Metrics history: sampled every 10 s (server.ts's timer calls tick), three tiers, the footprint. */
  metricsHistory: MetricsHistory;
  /** Threshold alerts on the sampled metrics (a server setting). */
  metricAlerts: MetricAlerts;
  events: EventStreams;
  quotas: Quotas;
  disk: DiskSpace;
  jobs: Jobs;
  checks: Checks;
  volumes: ProjectVolumes;
  execs: Execs;
  compose: ComposeImport;
  swarm: SwarmMode;
  nodes: Nodes;
  nodeJoins: NodeJoins;
  /** Publishes the `node` events (server.ts starts and stops its polling). */
  nodeWatch: NodeWatch;
  /** The audit log: every mutating call recorded (http/audit.ts), read by all-projects keys, pruned by server.ts. */
  audit: AuditLog;
  /** Projects' public status pages, rendered from the uptime checks and served by Caddy (server.ts re-renders them). */
  statusPages: StatusPages;
}

export function buildCore(deps: CoreDeps): Core {
  const { store, clock } = deps;
  const { catalog } = deps;
  const keys = new KeyService(store, clock, deps.events);
  const dns = new DnsProviders(store, clock, deps.dnsProviderFor, () => settings.publicIp(), deps.events);
  const dnsGone = (domains: readonly { id: string }[]) => dns.domainsGone(domains);
  const deployments = new Deployments(store, clock, deps.engine, deps.buildLogs, deps.events, deps.deployLimits);
  const services = new Services({ ...deps, nodes: deps.swarmControl, catalog, dnsGone, redeployLive: (s) => deployments.redeployLive(s) });
  const env = new EnvVars(store, clock, catalog, deps.events);
  const nodeWatch = new NodeWatch({ control: deps.swarmControl, swarm: deps.swarm, events: deps.events, log: deps.log });
  const metricAlerts = new MetricAlerts({ settings: store.settings, store, clock, events: deps.events });
  const settings = new SystemSettings(store.settings, clock, deps.detectedIp, deps.proxy, deps.deployLimits, deps.notifyTargets, deps.events);
  return {
    keys,
    // console sessions in the store (hashed), so they survive a restart
    sessions: new SessionService(store, keys, clock),
    projects: new Projects(store, clock, deps.proxy, catalog, deps.engine, deps.events, dnsGone),
    services,
    instances: new Instances({ store: deps.store, instances: deps.instances }),
    env,
    domains: new Domains(store, clock, deps.proxy, deps.events, dnsGone),
    statusPages: new StatusPages(store, clock, deps.proxy, deps.events, checksUptime(store.checks)),
    deployments,
    logStreams: new LogStreams({ keys, deployments, services, buildLogs: deps.buildLogs, runtimeLogs: deps.runtimeLogs, runtime: deps.runtime, events: deps.events }),
    webhooks: new Webhooks(store, clock, deployments),
    generatedNames: new GeneratedNames(store, deps.events),
    catalog,
    // what autobuild would do with a service's branch, previewed without building
    buildPlans: new BuildPlans(store, deps.buildPlanner),
    // database browsing through the engine adapters, and PostgreSQL TLS from the Berth CA
    databases: new Databases({ store, catalog, open: deps.openDatabase, address: deps.databaseAddress, ca: deps.ca, publicIp: () => settings.publicIp() }),
    backups: new Backups(store, deps.backupJobs, deps.quotas, deps.disk, deps.events),
    volumeBackups: new VolumeBackups(store, deps.volumeBackupJobs, deps.quotas, deps.disk, deps.events, deps.volumeDockerName),
    backupStorage: deps.backupStorage,
    aiProviders: new AiProviders(store.aiProviders, clock, deps.events),
    // failure explanations: the built-in rules or a configured AI provider's HTTP API
    explainer: new FailureExplainer({ deployments, store, logs: deps.failureLogs, providers: deps.aiClients }),
    settings,
    address: new ServerAddresses({ settings: store.settings, clock, detectedIp: deps.detectedIp, proxy: deps.proxy, certificate: deps.apiCertificate, events: deps.events }),
    upgrade: new ServerUpgrades({ settings: store.settings, clock, events: deps.events, log: deps.log, ...deps.upgrade }),
    serverBackups: new ServerBackups({
      repo: store.serverBackups,
      settings: store.settings,
      clock,
      events: deps.events,
      remote: () => deps.backupStorage.remote(),
      cron: deps.cron,
      version: deps.upgrade.version,
      log: deps.log,
      ...deps.serverBackups,
    }),
    // DNS providers: A records written through the provider's HTTP API
    dns,
    notifications: new NotificationChannels(store.settings, clock, deps.noticeSender, deps.notifyTargets, deps.events),
    // one cached collection shared by every polling client
    metrics: new SystemMetricsView(new MetricsCollector(deps.metricsSources, clock)),
    metricsHistory: new MetricsHistory({ repo: store.metrics, store, clock, source: deps.historySource, footprint: deps.footprint, alerts: metricAlerts, log: deps.log }),
    metricAlerts,
    events: new EventStreams(deps.events, keys),
    quotas: deps.quotas,
    disk: deps.disk,
    // scheduled jobs: a command on a cron schedule in a one-off container from the live image
    jobs: new Jobs({ store, clock, events: deps.events, runner: deps.jobRunner, schedule: deps.jobSchedule, cron: deps.cron }),
    // uptime checks of a service's own domains or host port
    checks: new Checks({ store, clock, events: deps.events, schedule: deps.checkSchedule }),
    volumes: new ProjectVolumes(store, catalog.volumeSizes),
    // one-off commands and terminals, recorded per service
    execs: new Execs({ store, clock, runner: deps.execRunner, events: deps.events, timeoutMs: deps.execTimeoutMs }),
    // compose files and templates imported as services, first deployed in dependency order
    compose: new ComposeImport({
      store,
      services,
      env,
      deployments,
      quotas: deps.quotas,
      execRunner: deps.execRunner,
      parser: deps.composeParser,
      templates: deps.composeTemplates,
      log: deps.log,
    }),
    // Swarm mode: this server as the manager, its registry, and the nodes that joined
    swarm: new SwarmMode({
      store,
      clock,
      swarm: deps.swarm,
      control: deps.swarmControl,
      registry: deps.registry,
      events: deps.events,
      watch: nodeWatch,
      publicIp: () => settings.publicIp(),
      log: deps.log,
    }),
    nodes: new Nodes({ store, swarm: deps.swarm, control: deps.swarmControl, registry: deps.registry, watch: nodeWatch, log: deps.log }),
    nodeJoins: new NodeJoins({ store, clock, swarm: deps.swarm, control: deps.swarmControl, registry: deps.registry, endpoint: deps.joinEndpoint, ca: deps.ca }),
    nodeWatch,
    audit: new AuditLog({ repo: store.audit, store, clock, events: deps.events, log: deps.log, maxRows: deps.auditMaxRows }),
  };
}
