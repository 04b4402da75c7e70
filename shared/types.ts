// The API's resource shapes, exactly as ../shared/spec/deployment-platform-api.md names them.
// Used by the daemon's views, the typed client, the desktop app and the tests.

export type Timestamp = string;

export type KeyAccess = 'read' | 'write';
export type KeyProjects = 'all' | string[];

export interface ApiKey {
  id: string;
  name: string;
  access: KeyAccess;
  projects: KeyProjects;
  createdAt: Timestamp;
  lastUsedAt: Timestamp | null;
}

export type ProjectStatus = 'idle' | 'active';

export interface Project {
  id: string;
  name: string;
  slug: string;
  description: string;
  status: ProjectStatus;
  serviceCount: number;
  lastUpdatedAt: Timestamp;
  services: Service[];
}

export type BuildMethod = 'auto' | 'dockerfile' | 'autobuild';
export type DetectedBuildMethod = 'dockerfile' | 'autobuild';
export type RuntimeMode = 'web' | 'worker' | 'static';
export type ServiceStatus = 'idle' | 'building' | 'active' | 'failed';
export type DatabaseEngine = 'postgres' | 'timescale' | 'mysql' | 'redis' | 'mongodb' | 'clickhouse';

/** A container's resource limits: memory in MiB (no swap beyond it), CPUs (1.0 = one core), processes. */
export interface ServiceLimits {
  memoryMb: number;
  cpus: number;
  pids: number;
}

export interface Service {
  id: string;
  projectId: string;
  name: string;
  slug: string;
  repoFullName: string | null;
  repoUrl: string | null;
  dockerImage: string | null;
  branch: string;
  rootDir: string | null;
  hasGithubToken: boolean;
  installCommand: string | null;
  buildCommand: string | null;
  startCommand: string | null;
  staticOutput: string | null;
  buildMethod: BuildMethod;
  dockerfilePath: string | null;
  detectedBuildMethod: DetectedBuildMethod | null;
  runtimeMode: RuntimeMode;
  internalPort: number | null;
  hostPort: number | null;
  databasePublicEnabled: boolean;
  databasePublicHostname: string | null;
  postgresLogicalReplicationEnabled: boolean;
  status: ServiceStatus;
  reachable: boolean;
  localUrl: string;
  primaryUrl: string;
  preferredDomain: string | null;
  /**
   * The hostname Berth generated for the service, `<service>-<project>.<rootDomain>` (unique to its
   * project; services created before keep `<service>.<rootDomain>`); null without a root domain.
   */
  generatedHostname: string | null;
  framework: string | null;
  lastDeployedAt: Timestamp | null;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  /** The limits its containers run with (the service's own, else the server's defaults). */
  limits: ServiceLimits;
}

export interface EnvVar {
  id: string;
  key: string;
  hasValue: boolean;
  value: string;
  resolvedValue: string;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export type DomainStatus = 'active';

export interface Domain {
  id: string;
  serviceId: string;
  hostname: string;
  status: DomainStatus;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export type DeploymentStatus = 'queued' | 'building' | 'running' | 'superseded' | 'failed' | 'aborted';
/** `manual` (the API or a client), `webhook` (a signed push), `rollback` (an earlier image again, no build). */
export type DeploymentTrigger = 'manual' | 'webhook' | 'rollback';

export interface Deployment {
  id: string;
  serviceId: string;
  commitSha: string | null;
  status: DeploymentStatus;
  trigger: DeploymentTrigger;
  imageTag: string | null;
  containerName: string | null;
  startedAt: Timestamp | null;
  finishedAt: Timestamp | null;
  createdAt: Timestamp;
}

export interface DeploymentLogLine {
  id: number;
  deploymentId: string;
  line: string;
  stream: string;
  createdAt: Timestamp;
}

export type RuntimeLogLine = Omit<DeploymentLogLine, 'deploymentId'>;

/**
 * `GET /api/deployments/:id/logs`: one page, at most 1,000 lines and about 1 MiB (from the start
 * by default; `?after=<id>`, `?before=<id>`, `?tail=true`, `?limit=<n>`).
 */
export interface DeploymentLogPage {
  logs: DeploymentLogLine[];
  /** Pass as `after` for the lines that follow this page; null when no later line is stored now. */
  nextCursor: string | null;
  /** Pass as `before` for the lines that precede this page; null when this page starts the log. */
  prevCursor: string | null;
  /** nextCursor !== null: later lines are stored. */
  hasMore: boolean;
}

export interface ProxyResult {
  ok: boolean;
  detail: string;
}

export interface Suggestion {
  key: string;
  label: string;
}

export interface DatabaseVariableSuggestion {
  key: string;
  value: string;
  label: string;
  dbType: DatabaseEngine;
}

export interface ServiceOverview {
  service: Service;
  deployments: Deployment[];
  env: EnvVar[];
  domains: Domain[];
  publicIp: string;
}

export interface TransferResult {
  service: Pick<Service, 'id' | 'projectId' | 'name' | 'slug'>;
  project: Pick<Project, 'id' | 'name' | 'slug' | 'serviceCount' | 'services'>;
  proxy: ProxyResult;
}

export interface ApiErrorBody {
  error: { code: string; message: string };
}

export interface Health {
  ok: true;
  version: string;
}

// System metrics (GET /api/system/metrics). Rates are averages since the previous collection;
// a part that could not be read is null and named in `errors`.
export interface HostCpuMetrics {
  cores: number;
  loadPercent: number;
}

export interface HostMemoryMetrics {
  totalBytes: number;
  usedBytes: number;
}

export interface DiskMetrics {
  mount: string;
  totalBytes: number;
  usedBytes: number;
}

export interface NetworkMetrics {
  iface: string;
  rxBytesPerSecond: number;
  txBytesPerSecond: number;
}

export interface ServiceContainerMetrics {
  serviceId: string;
  projectId: string;
  deploymentId: string;
  containerName: string;
  /** Of one core (100 = one core busy); null on the first sample of a container. */
  cpuPercent: number | null;
  memoryBytes: number;
  memoryLimitBytes: number;
}

/** A volume whose free space decides whether new builds, deploys and backups may start. */
export interface DiskVolume {
  /** `data`: Berth's data dir (store, logs, backups); `docker`: Docker's data root (images, containers). */
  role: 'data' | 'docker';
  path: string;
  freeBytes: number;
  totalBytes: number;
}

/**
 * `GET /api/system/disk`: whether new work is paused for lack of disk. Keys over all projects also
 * get the threshold and the volumes; project keys only `low` and `message`.
 */
export interface DiskState {
  low: boolean;
  /** Why new builds, deploys and backups are refused; null while there is room. */
  message: string | null;
  minFreeBytes?: number;
  volumes?: DiskVolume[];
}

/** A project's quotas (or the server's defaults). */
export interface QuotaValues {
  maxServices: number;
  /** Backups kept, over all the project's database services (failed ones do not count). */
  maxBackups: number;
  /** Their total size in bytes. */
  maxBackupBytes: number;
  /** Images of successful deployments kept per service for rollbacks (the live one included). */
  maxImagesPerService: number;
}

/** What a project sets for itself; null follows the server's default. */
export type ProjectQuotas = { [K in keyof QuotaValues]: number | null };

/** `GET /api/projects/:projectId/quotas`. */
export interface ProjectQuotasAnswer {
  /** What applies now: the project's own value, else the server's default. */
  quotas: QuotaValues;
  overrides: ProjectQuotas;
  usage: { services: number; backups: number; backupBytes: number };
}

export interface SystemMetrics {
  collectedAt: Timestamp;
  host: {
    cpu: HostCpuMetrics | null;
    memory: HostMemoryMetrics | null;
    disks: DiskMetrics[] | null;
    network: NetworkMetrics[] | null;
  };
  services: ServiceContainerMetrics[] | null;
  errors: string[];
}

// Failure explanations (POST /api/deployments/:deploymentId/explain-failure) and the AI providers
// that give them (GET/PUT/DELETE /api/system/ai-providers). An API key is never returned.
export interface Explanation {
  summary: string;
  likelyCause: string;
  suggestedFix: string;
  commands: string[];
}

export type AiProviderKind = 'openai' | 'anthropic' | 'gemini';

export interface AiProvider {
  id: string;
  /** `local` only for the built-in, offline rules provider. */
  kind: AiProviderKind | 'local';
  name: string;
  /** null for the built-in provider. */
  baseUrl: string | null;
  defaultModel: string | null;
  hasApiKey: boolean;
  createdAt: Timestamp | null;
  updatedAt: Timestamp | null;
}

export interface AiProviderInput {
  kind: AiProviderKind;
  name?: string;
  baseUrl?: string;
  /** Required when creating (or changing kind); kept when omitted on an update. */
  apiKey?: string;
  defaultModel?: string | null;
}

// System settings and DNS providers
export type HttpsMode = 'acme' | 'internal' | 'http';

export interface SystemSettings {
  rootDomain: string | null;
  /** The IPv4 DNS records point at: the stored override, else the address detected at start. */
  publicIp: string;
  /** True when publicIp is the detected address (no override stored). */
  publicIpDetected: boolean;
  acmeEmail: string | null;
  /** null: not chosen (the proxy's default applies). */
  httpsMode: HttpsMode | null;
  dashboardHostname: string | null;
  /** Wall-clock limits on deployment work, in seconds (5 to 86400): a step over its limit is stopped and the deployment fails. */
  buildTimeoutSeconds: number;
  pullTimeoutSeconds: number;
  cloneTimeoutSeconds: number;
  /** Deployments one project may have queued at once (1 to 1000); one more is refused with 429. */
  maxQueuedPerProject: number;
  /** Notification channels may send to this server (loopback) and link-local addresses (default false); Caddy's admin API is refused regardless. */
  allowPrivateNotifyTargets: boolean;
}

/** Any subset; null clears a field (publicIp: back to the detected address; a limit: back to its default). */
export interface SystemSettingsPatch {
  rootDomain?: string | null;
  publicIp?: string | null;
  acmeEmail?: string | null;
  httpsMode?: HttpsMode;
  dashboardHostname?: string | null;
  buildTimeoutSeconds?: number | null;
  pullTimeoutSeconds?: number | null;
  cloneTimeoutSeconds?: number | null;
  maxQueuedPerProject?: number | null;
  allowPrivateNotifyTargets?: boolean;
}

export type DnsProviderId = 'cloudflare' | 'namecheap' | 'spaceship';

export interface DnsProviderStatus {
  id: DnsProviderId;
  name: string;
  connected: boolean;
}

/** Per provider; `baseUrl` defaults to the provider's real API. Never returned. */
export type DnsProviderCredentials =
  | { apiToken: string; baseUrl?: string }
  | { apiUser: string; apiKey: string; username?: string; clientIp: string; baseUrl?: string }
  | { apiKey: string; apiSecret: string; baseUrl?: string };

export interface DnsRecordResult {
  provider: DnsProviderId;
  providerName: string;
  action: 'created' | 'updated' | 'unchanged';
  hostname: string;
  recordType: 'A';
  host: string;
  zone: string;
  targetIp: string;
}

// Databases (see daemon/databases/encoding.ts for the tagged value forms: $bigint, $decimal, $bytes, $date, $oid)
export type DbCell = null | boolean | number | string | DbCell[] | { [key: string]: DbCell };
export type DbRow = Record<string, DbCell>;

export interface DatabaseTable {
  id: string;
  name: string;
  schema: string;
  rowCount: number;
  /** True when rowCount is the engine's estimate (big tables). */
  rowCountEstimated: boolean;
}

export interface DatabaseColumn {
  name: string;
  type: string;
  primary: boolean;
}

export interface DatabaseRowsPage {
  engine: DatabaseEngine;
  table: string;
  columns: DatabaseColumn[];
  rows: DbRow[];
  limit: number;
  offset: number;
  total: number;
  totalEstimated: boolean;
  /** Present (true) only when the page was cut at the daemon's byte cap (16 MB). */
  truncated?: boolean;
  /** Pass as `after` for the next page (keyset paging); null on the last page or when the table has no key to page by. */
  nextCursor: string | null;
}

export interface DatabaseQueryResult {
  columns: { name: string; type: string }[];
  rows: DbRow[];
  rowCount: number;
  truncated: boolean;
}

export interface PostgresTls {
  active: boolean;
  caCertAvailable: boolean;
  publicHostname: string;
  publicPort: number;
}

/** GET /api/services/:serviceId/build-plan: what a deployment of the branch's head would build, computed without building. */
export interface BuildPlanPreview {
  /** The builder a deployment would run under the service's buildMethod; null when it would fail before choosing (see error). */
  buildMethod: DetectedBuildMethod | null;
  /** Whether the service's directory has the Dockerfile it would use (dockerfilePath, <SERVICE>_DOCKERFILE_PATH or Dockerfile). */
  dockerfileExists: boolean;
  branch: string;
  commitSha: string;
  /** What autobuild detected (filled even when the Dockerfile would be used); null when it could not place the repository. */
  stack: string | null;
  framework: string | null;
  /** Package manager or build tool: npm, yarn, pnpm, pip, poetry, go, bundler, composer, maven, gradle, javac, cargo, dotnet, none. */
  tool: string | null;
  installCommand: string | null;
  buildCommand: string | null;
  startCommand: string | null;
  /** The port the app is expected to listen on (PORT is set to it). */
  port: number | null;
  staticOutput: string | null;
  /** The images the generated Dockerfile starts from. */
  baseImages: string[];
  /** The generated Dockerfile, as a deployment would log and build it. */
  dockerfile: string | null;
  notes: string[];
  /** Why a deployment would fail at this stage (no Dockerfile for buildMethod dockerfile, nothing autobuild recognises, ...). */
  error: string | null;
}

/** Remote (S3-compatible) backup storage as the API shows it: the secret access key is never returned. */
export interface BackupStorageSettings {
  endpoint: string;
  region: string;
  bucket: string;
  /** '' or ending with '/'; objects are stored under `<prefix><serviceId>/`. */
  prefix: string;
  accessKeyId: string;
  hasSecret: boolean;
  forcePathStyle: boolean;
}

/** GET / PUT /api/system/backup-storage: the settings and the result of a real, authenticated call. */
export interface BackupStorageStatus {
  storage: BackupStorageSettings | null;
  connected: boolean;
  detail: string;
}

/** PUT /api/system/backup-storage. secretAccessKey may be left out to keep the stored one (same endpoint and key id). */
export interface BackupStorageInput {
  endpoint: string;
  region: string;
  bucket: string;
  prefix?: string;
  accessKeyId: string;
  secretAccessKey?: string;
  /** Default true. */
  forcePathStyle?: boolean;
}

// Backups and imports of database services
export type BackupStorageKind = 'disk' | 'remote' | 'disk+remote';

export interface Backup {
  id: string;
  serviceId: string;
  engine: DatabaseEngine;
  status: 'running' | 'succeeded' | 'failed';
  trigger: 'manual' | 'daily' | 'weekly' | 'monthly';
  storage: BackupStorageKind;
  format: string;
  localPath: string | null;
  remoteKey: string | null;
  sizeBytes: number;
  checksum: string;
  error: string | null;
  createdAt: Timestamp;
  startedAt: Timestamp;
  finishedAt: Timestamp | null;
}

export interface BackupSettings {
  serviceId: string;
  storage: BackupStorageKind;
  automaticEnabled: boolean;
  dailyEnabled: boolean;
  weeklyEnabled: boolean;
  monthlyEnabled: boolean;
  keepDaily: number;
  keepWeekly: number;
  keepMonthly: number;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export type NotifyEvent = 'deployment_failed' | 'deployment_succeeded' | 'backup_failed' | 'daemon_restarted';
export type ChannelType = 'webhook' | 'slack' | 'discord' | 'email';

/** A notification channel as the API shows it: never a secret. */
export interface NotificationChannel {
  id: string;
  name: string;
  type: ChannelType;
  events: NotifyEvent[];
  /** Where it goes: the URL's scheme and host, or the SMTP server and recipients. */
  target: string;
  createdAt: Timestamp;
}

export interface DataImport {
  id: string;
  serviceId: string;
  engine: DatabaseEngine;
  source: 'postgres-url' | 'redis-url';
  sourceLabel: string;
  status: 'running' | 'succeeded' | 'failed';
  error: string | null;
  log: string[];
  createdAt: Timestamp;
  startedAt: Timestamp;
  finishedAt: Timestamp | null;
}

/** A generated hostname label handed out once (GET /api/generated-names, keys over all projects). */
export interface GeneratedName {
  label: string;
  /** `<label>.<rootDomain>`; null without a root domain. */
  hostname: string | null;
  /** The project it was generated for, which keeps it after its service is gone. */
  projectId: string;
  /** The service holding it now; null once that service is gone (the name stays the project's). */
  serviceId: string | null;
  createdAt: Timestamp;
}
