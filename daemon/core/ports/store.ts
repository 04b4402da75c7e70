// The persistence interface core depends on. `daemon/store/` implements it over knex + sqlite3;
// core never imports knex.
import type { BackupsRepo } from './backups-repo.js';
import type { DeploymentRecord, DomainRecord, EnvRecord, GeneratedNameRecord, KeyRecord, LogLineRecord, ProjectRecord, ServiceRecord, VolumeRecord } from '../records.js';
import type { AiProviderRepo } from './ai-provider-repo.js';
import type { DnsProviderRepo } from './dns-provider-repo.js';
import type { QuotaRepo } from './quota-repo.js';
import type { JobsRepo } from './jobs-repo.js';
import type { ChecksRepo } from './checks.js';
import type { ExecRepo } from './exec-repo.js';
import type { ServerBackupsRepo } from './server-backups.js';
import type { AuditRepo } from './audit-repo.js';
import type { StatusPagesRepo } from './status-pages.js';
import type { MetricsRepo } from './metrics-history.js';

export interface KeyRepo {
  list(): Promise<KeyRecord[]>;
  get(id: string): Promise<KeyRecord | null>;
  findByTokenHash(hash: string): Promise<KeyRecord | null>;
  /** `bootstrap`: the key BERTH_BOOTSTRAP_KEY asked for (revoked when the variable changes). */
  insert(key: KeyRecord, tokenHash: string, origin?: { bootstrap: boolean }): Promise<void>;
  /** Ids of the keys created for BERTH_BOOTSTRAP_KEY. */
  bootstrapKeyIds(): Promise<string[]>;
  touch(id: string, at: string): Promise<void>;
  delete(id: string): Promise<boolean>;
}

export interface ProjectRepo {
  list(): Promise<ProjectRecord[]>;
  get(id: string): Promise<ProjectRecord | null>;
  getBySlug(slug: string): Promise<ProjectRecord | null>;
  slugs(): Promise<Set<string>>;
  insert(project: ProjectRecord): Promise<void>;
  update(id: string, patch: Partial<Pick<ProjectRecord, 'name' | 'description' | 'updatedAt'>>): Promise<void>;
  /** Removes the project with its services, variables, domains, deployments and logs, atomically. */
  deleteCascade(id: string): Promise<void>;
}

export interface ServiceRepo {
  /** Services of the given projects, or of all projects when `projectIds` is omitted. */
  list(projectIds?: readonly string[]): Promise<ServiceRecord[]>;
  get(id: string): Promise<ServiceRecord | null>;
  slugsInProject(projectId: string): Promise<Set<string>>;
  namesInProject(projectId: string): Promise<Set<string>>;
  usedHostPorts(): Promise<Set<number>>;
  /** Ids of the services whose generated label is `label` (an indexed look-up: no whole list per new service). */
  withGeneratedLabel(label: string): Promise<string[]>;
  /** Ids of the database services whose public hostname is `hostname`, in any case. */
  withDatabaseHostname(hostname: string): Promise<string[]>;
  /** Inserts the service, its initial variables and the record of its generated label, atomically. */
  insert(service: ServiceRecord, env: readonly EnvRecord[]): Promise<void>;
  /** The record of a generated label (kept after its service is gone), or null. */
  generatedName(label: string): Promise<GeneratedNameRecord | null>;
  /** Every generated label ever handed out and not released, oldest first. */
  generatedNames(): Promise<GeneratedNameRecord[]>;
  /** Gives the service a new generated label, recorded for `projectId`; its old label stays recorded for its project. */
  assignGeneratedLabel(serviceId: string, projectId: string, label: string, at: string): Promise<void>;
  /** Forgets a generated label's record (an all-projects key's decision): another project may get it then. */
  releaseGeneratedName(label: string): Promise<boolean>;
  /** A patch with `volumes` makes them the service's mounts (detaching the ones left out); Conflict when another service mounts one. */
  update(id: string, patch: Partial<ServiceRecord>): Promise<void>;
  /** Every volume of the project: mounted ones and kept ones (no service). */
  projectVolumes(projectId: string): Promise<VolumeRecord[]>;
  /** Removes the service with its variables, domains, deployments and logs, atomically; its volume rows too unless `keepVolumes` (then they stay with no service). */
  deleteCascade(id: string, keepVolumes?: boolean): Promise<void>;
}

export interface EnvRepo {
  listByService(serviceId: string): Promise<EnvRecord[]>;
  listByServices(serviceIds: readonly string[]): Promise<EnvRecord[]>;
  upsert(env: EnvRecord): Promise<void>;
  delete(serviceId: string, envId: string): Promise<boolean>;
}

export interface DomainRepo {
  listByServices(serviceIds: readonly string[]): Promise<DomainRecord[]>;
  listAll(): Promise<DomainRecord[]>;
  get(serviceId: string, domainId: string): Promise<DomainRecord | null>;
  findByHostname(hostname: string): Promise<DomainRecord | null>;
  insert(domain: DomainRecord): Promise<void>;
  update(id: string, patch: Pick<DomainRecord, 'hostname' | 'updatedAt'>): Promise<void>;
  delete(id: string): Promise<void>;
}

/** What may change on a deployment besides its status (which only `setStatus` writes). */
export type DeploymentPatch = Partial<Omit<DeploymentRecord, 'id' | 'serviceId' | 'status'>>;

export interface DeploymentRepo {
  /** Newest first. */
  listByService(serviceId: string): Promise<DeploymentRecord[]>;
  get(id: string): Promise<DeploymentRecord | null>;
  /** Oldest first. */
  listByStatus(statuses: readonly DeploymentRecord['status'][]): Promise<DeploymentRecord[]>;
  /**
   * The live deployment of each given service that has one (see core/deployment-states.ts): its
   * newest `running` deployment with a container. At most one per service.
   */
  live(serviceIds: readonly string[]): Promise<DeploymentRecord[]>;
  /** Stores a new deployment; core stores every deployment as `queued`. */
  insert(deployment: DeploymentRecord): Promise<void>;
  update(id: string, patch: DeploymentPatch): Promise<void>;
  /**
   * Sets the status (and `patch`) only while the stored status is one of `from`, in one statement;
   * false when it was not (or the deployment is gone). Use core's `recordStatus`, which checks the
   * state table.
   */
  setStatus(id: string, to: DeploymentRecord['status'], from: readonly DeploymentRecord['status'][], patch: DeploymentPatch): Promise<boolean>;
}

export type LogTable = 'deployment_logs' | 'runtime_logs';

export interface LogLineInsert extends LogLineRecord {
  /** The deployment (build logs) or the service (runtime logs) the line belongs to. */
  owner: string;
  deploymentId: string;
}

export interface LogSize {
  lines: number;
  bytes: number;
}

/** Build and runtime log lines; ids are assigned by the writer. */
export interface LogsRepo {
  maxId(table: LogTable): Promise<number>;
  insert(table: LogTable, lines: readonly LogLineInsert[]): Promise<void>;
  /** Lines of a deployment (build) or a service (runtime) with id > afterId, oldest first. */
  list(table: LogTable, owner: string, afterId: number, limit: number): Promise<LogLineRecord[]>;
  /** The newest `limit` lines of an owner, oldest first. */
  tail(table: LogTable, owner: string, limit: number): Promise<LogLineRecord[]>;
  /** The newest `limit` lines of an owner with id < beforeId, oldest first. */
  before(table: LogTable, owner: string, beforeId: number, limit: number): Promise<LogLineRecord[]>;
  /** How many lines an owner has and the bytes of their text. */
  sizeOf(table: LogTable, owner: string): Promise<LogSize>;
  /**
   * Removes an owner's oldest lines until at most `keep.lines` lines and `keep.bytes` bytes of text
   * are left; returns what is left.
   */
  trimOwner(table: LogTable, owner: string, keep: LogSize): Promise<LogSize>;
  /**
   * Build logs: removes the oldest lines over every deployment of the service `deploymentId`
   * belongs to until at most `keep.lines` lines and `keep.bytes` bytes are left; returns how many went.
   */
  trimServiceBuildLogs(deploymentId: string, keep: LogSize): Promise<number>;
  /** The newest `limit` lines of an owner that belong to one deployment, oldest first. */
  tailOfDeployment(table: LogTable, owner: string, deploymentId: string, limit: number): Promise<LogLineRecord[]>;
  /** Keeps the newest `keep` lines per owner; returns how many were removed. */
  trim(table: LogTable, keep: number): Promise<number>;
  /** Hands the file's free pages back to the file system (where the store's auto_vacuum allows it). */
  releaseFreePages(): Promise<void>;
}

export interface SettingsRepo {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, at: string): Promise<void>;
  /** Removes the key (a setting back to its default); no error when it was not set. */
  delete(key: string): Promise<void>;
  /** Like get/set for a secret value: sealed at rest with the store's box, plain text in memory. */
  getSealed(key: string): Promise<string | null>;
  setSealed(key: string, plain: string, at: string): Promise<void>;
}

export interface SessionRecord {
  secretHash: string;
  keyId: string;
  createdAt: string;
  expiresAt: string;
}

/** Console sessions (see core/sessions.ts). Not cached. */
export interface SessionRepo {
  insert(session: SessionRecord): Promise<void>;
  get(secretHash: string): Promise<SessionRecord | null>;
  delete(secretHash: string): Promise<void>;
  deleteExpired(now: string): Promise<void>;
}

export interface WebhookRecord {
  serviceId: string;
  /** The shared secret, opened (the table holds it sealed). */
  secret: string;
  createdAt: string;
  lastDeliveryAt: string | null;
}

export interface WebhookRepo {
  get(serviceId: string): Promise<WebhookRecord | null>;
  /** Creates or replaces the service's webhook (a new secret). */
  put(serviceId: string, secret: string, at: string): Promise<void>;
  delete(serviceId: string): Promise<boolean>;
  touch(serviceId: string, at: string): Promise<void>;
  /**
   * Records a delivery's keys (its id, its body's hash, its pushed commit) in one transaction; answers
   * null when none was recorded before, else the first key that was (a replay: nothing is recorded).
   * Keys older than `forgetBefore` are dropped.
   */
  firstDelivery(serviceId: string, keys: readonly string[], at: string, forgetBefore: string): Promise<string | null>;
}

/** A join token for a Swarm worker (core/node-joins.ts): its keyed hash, and the machine that used it. */
export interface NodeJoinRecord {
  tokenHash: string;
  createdAt: string;
  expiresAt: string;
  machineId: string | null;
  hostname: string | null;
  usedAt: string | null;
}

/** Swarm join tokens. Not cached. */
export interface NodeJoinRepo {
  insert(join: Pick<NodeJoinRecord, 'tokenHash' | 'createdAt' | 'expiresAt'>): Promise<void>;
  get(tokenHash: string): Promise<NodeJoinRecord | null>;
  /** Records the machine that used the token; false when one already did (conditional). */
  claim(tokenHash: string, machineId: string, hostname: string, at: string): Promise<boolean>;
  deleteExpired(now: string): Promise<void>;
}

export interface Store {
  keys: KeyRepo;
  sessions: SessionRepo;
  projects: ProjectRepo;
  services: ServiceRepo;
  env: EnvRepo;
  domains: DomainRepo;
  deployments: DeploymentRepo;
  settings: SettingsRepo;
  /** Not cached: read once per explanation or settings call. */
  aiProviders: AiProviderRepo;
  /** DNS provider connections; credentials sealed at rest. Not cached. */
  dnsProviders: DnsProviderRepo;
  /** Not cached: see store/logs-repo.ts. */
  logs: LogsRepo;
  /** Backups, their settings and data imports. Not cached: their state changes while jobs run. */
  backups: BackupsRepo;
  /** Deploy-on-push webhooks (secrets sealed) and the deliveries seen. Not cached. */
  webhooks: WebhookRepo;
  /** Per-project quota overrides (core/quotas.ts). Not cached. */
  quotas: QuotaRepo;
  /** Scheduled jobs, their runs and the runs' output. Not cached: runs change while they run. */
  jobs: JobsRepo;
  /** Uptime checks, results, rollups and incidents (core/checks.ts). Not cached: results change them. */
  checks: ChecksRepo;
  /** One-off commands and terminal sessions (core/execs.ts). Not cached. */
  execs: ExecRepo;
  /** Swarm worker join tokens (core/node-joins.ts). Not cached. */
  nodeJoins: NodeJoinRepo;
  /** The runs of Berth's own backup (core/server-backups.ts). Not cached: runs change while they run. */
  serverBackups: ServerBackupsRepo;
  /** The audit log (core/audit.ts). Not cached: written after every mutating call. */
  audit: AuditRepo;
  /** Public status pages, with the HTML Caddy serves (core/status-pages.ts). Not cached. */
  statusPages: StatusPagesRepo;
  /** Metrics history's points (core/metrics-history.ts). Not cached: written every 10 s. */
  metrics: MetricsRepo;
  /** What is stored for an API key's secret (a keyed hash; see crypto/token-hash.ts). */
  hashToken(token: string): string;
  /** Raised by insert/update when a unique constraint is hit; lets core turn races into 409s. */
  isUniqueViolation(err: unknown): boolean;
  close(): Promise<void>;
}
