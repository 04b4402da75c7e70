// A typed client for the Berth API over fetch. Tests, the desktop app and scripts all use it.
import type {
  ImportSource,
  DnsProviderCredentials,
  DnsProviderId,
  DnsProviderStatus,
  DnsRecordResult,
  SystemSettings,
  SystemSettingsPatch,
  AiProvider,
  AiProviderInput,
  ApiKey,
  BuildPlanPreview,
  DatabaseVariableSuggestion,
  Deployment,
  GeneratedName,
  DeploymentLogPage,
  Explanation,
  Health,
  KeyAccess,
  KeyProjects,
  NotificationChannel,
  Project,
  ProxyResult,
  Service,
  ServiceOverview,
  Domain,
  Suggestion,
  SystemMetrics,
  TransferResult,
  DatabaseEngine,
  DatabaseQueryResult,
  DatabaseRowsPage,
  DatabaseTable,
  DbCell,
  DbRow,
  PostgresTls,
  BackupStorageInput,
  BackupStorageStatus,
  Backup,
  BackupSettings,
  BackupStorageKind,
  DataImport,
  DiskState,
  ProjectQuotas,
  ProjectQuotasAnswer,
  QuotaValues,
} from './types.js';
import { readSse, type SseEvent } from './sse.js';
import type { FetchLike } from './pinned-tls.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface RawResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  /** Send this string as the body as-is (for malformed input); overrides `body`. */
  rawBody?: string;
  headers?: Record<string, string>;
  /** Override the client's token for this call; null sends no Authorization header. */
  token?: string | null;
  signal?: AbortSignal;
}

/** Fields accepted when creating a service (any kind). */
export interface CreateServiceInput {
  name: string;
  repoFullName?: string | null;
  repoUrl?: string | null;
  dockerImage?: string | null;
  branch?: string;
  rootDir?: string | null;
  githubToken?: string | null;
  installCommand?: string | null;
  buildCommand?: string | null;
  startCommand?: string | null;
  staticOutput?: string | null;
  buildMethod?: string;
  dockerfilePath?: string | null;
  runtimeMode?: string;
  internalPort?: number | null;
  databasePublicEnabled?: boolean;
  databasePublicHostname?: string | null;
  postgresLogicalReplicationEnabled?: boolean;
  env?: { key: string; value: string }[];
  /** Container limits; a null field goes back to the server's default. */
  limits?: { memoryMb?: number | null; cpus?: number | null; pids?: number | null };
}

export type PatchServiceInput = Partial<
  Pick<
    CreateServiceInput,
    | 'name'
    | 'branch'
    | 'rootDir'
    | 'githubToken'
    | 'installCommand'
    | 'buildCommand'
    | 'startCommand'
    | 'staticOutput'
    | 'buildMethod'
    | 'dockerfilePath'
    | 'runtimeMode'
    | 'internalPort'
    | 'limits'
  >
>;

export interface ClientOptions {
  /** The fetch to use (default: the global one); `pinnedFetch` from pinned-tls.ts pins a self-signed certificate. */
  fetch?: FetchLike;
}

export class BerthClient {
  readonly baseUrl: string;
  private readonly fetch: FetchLike;

  constructor(
    baseUrl: string,
    private token: string | null = null,
    private readonly options: ClientOptions = {},
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.fetch = options.fetch ?? ((input, init) => fetch(input, init));
  }

  withToken(token: string | null): BerthClient {
    return new BerthClient(this.baseUrl, token, this.options);
  }

  /** One HTTP call; never throws on an HTTP status, only on a network failure. */
  async request<T = unknown>(method: string, path: string, body?: unknown, opts: RequestOptions = {}): Promise<RawResponse<T>> {
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
    const token = opts.token === undefined ? this.token : opts.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let payload: string | undefined;
    if (opts.rawBody !== undefined) payload = opts.rawBody;
    else if (body !== undefined) payload = JSON.stringify(body);
    if (payload !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'application/json';
    }
    const res = await this.fetch(this.baseUrl + path, { method, headers, body: payload, signal: opts.signal });
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    const parsed = type.includes('json') && text ? (JSON.parse(text) as T) : (text as T);
    return { status: res.status, headers: res.headers, body: parsed };
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.request<T>(method, path, body);
    if (res.status >= 400) {
      const err = (res.body as { error?: { code?: string; message?: string } })?.error;
      throw new ApiError(res.status, err?.code ?? 'http_error', err?.message ?? `HTTP ${res.status}`);
    }
    return res.body;
  }

  health(): Promise<Health> {
    return this.call('GET', '/api/health');
  }

  // Keys
  listKeys(): Promise<{ keys: ApiKey[] }> {
    return this.call('GET', '/api/keys');
  }
  createKey(input: { name?: string; access: KeyAccess; projects: KeyProjects }): Promise<{ key: ApiKey; token: string }> {
    return this.call('POST', '/api/keys', input);
  }
  revokeKey(keyId: string): Promise<{ ok: true }> {
    return this.call('DELETE', `/api/keys/${enc(keyId)}`);
  }

  // Projects
  listProjects(): Promise<{ projects: Project[] }> {
    return this.call('GET', '/api/projects');
  }
  createProject(input: { name: string; description?: string }): Promise<{ project: Project }> {
    return this.call('POST', '/api/projects', input);
  }
  getProject(slugOrId: string): Promise<{ project: Project }> {
    return this.call('GET', `/api/projects/${enc(slugOrId)}`);
  }
  patchProject(projectId: string, input: { name?: string; description?: string }): Promise<{ project: Project }> {
    return this.call('PATCH', `/api/projects/${enc(projectId)}`, input);
  }
  deleteProject(projectId: string): Promise<{ ok: true; proxy: ProxyResult }> {
    return this.call('DELETE', `/api/projects/${enc(projectId)}`);
  }
  projectDatabaseVariableSuggestions(projectId: string): Promise<{ suggestions: DatabaseVariableSuggestion[] }> {
    return this.call('GET', `/api/projects/${enc(projectId)}/database-variable-suggestions`);
  }

  // Services
  createService(projectId: string, input: CreateServiceInput): Promise<{ service: Service }> {
    return this.call('POST', `/api/projects/${enc(projectId)}/services`, input);
  }
  overview(serviceId: string): Promise<ServiceOverview> {
    return this.call('GET', `/api/services/${enc(serviceId)}/overview`);
  }
  patchService(serviceId: string, input: PatchServiceInput): Promise<{ service: Service }> {
    return this.call('PATCH', `/api/services/${enc(serviceId)}`, input);
  }
  transferService(serviceId: string, targetProjectId: string): Promise<TransferResult> {
    return this.call('POST', `/api/services/${enc(serviceId)}/transfer`, { targetProjectId });
  }
  deleteService(serviceId: string): Promise<{ ok: true; proxy: ProxyResult }> {
    return this.call('DELETE', `/api/services/${enc(serviceId)}`);
  }
  suggestionKeys(serviceId: string): Promise<{ suggestions: Suggestion[]; databaseVariables: DatabaseVariableSuggestion[] }> {
    return this.call('GET', `/api/services/${enc(serviceId)}/suggestion-keys`);
  }
  /** What a deployment would build (the builder, autobuild's plan and generated Dockerfile), without building. */
  buildPlan(serviceId: string): Promise<{ plan: BuildPlanPreview }> {
    return this.call('GET', `/api/services/${enc(serviceId)}/build-plan`);
  }

  // Environment variables
  setEnv(serviceId: string, key: string, value: string): Promise<{ ok: true }> {
    return this.call('POST', `/api/services/${enc(serviceId)}/env`, { key, value });
  }
  deleteEnv(serviceId: string, envId: string): Promise<{ ok: true }> {
    return this.call('DELETE', `/api/services/${enc(serviceId)}/env/${enc(envId)}`);
  }

  // Domains
  addDomain(serviceId: string, hostname: string): Promise<{ ok: true; proxy: ProxyResult; domain: Domain }> {
    return this.call('POST', `/api/services/${enc(serviceId)}/domains`, { hostname });
  }
  patchDomain(serviceId: string, domainId: string, hostname: string): Promise<{ ok: true; proxy: ProxyResult }> {
    return this.call('PATCH', `/api/services/${enc(serviceId)}/domains/${enc(domainId)}`, { hostname });
  }
  deleteDomain(serviceId: string, domainId: string): Promise<{ ok: true; proxy: ProxyResult }> {
    return this.call('DELETE', `/api/services/${enc(serviceId)}/domains/${enc(domainId)}`);
  }
  /** Every generated hostname label handed out, with the project that keeps it (keys over all projects). */
  generatedNames(): Promise<{ names: GeneratedName[] }> {
    return this.call('GET', '/api/generated-names');
  }
  /** Releases a kept generated name (a label or its hostname) so that another project may get it. */
  releaseGeneratedName(labelOrHostname: string): Promise<{ ok: true }> {
    return this.call('DELETE', `/api/generated-names/${enc(labelOrHostname)}`);
  }

  // Deployments
  listDeployments(serviceId: string): Promise<{ deployments: Deployment[] }> {
    return this.call('GET', `/api/services/${enc(serviceId)}/deployments`);
  }
  deploy(serviceId: string, input: { branch?: string; force?: boolean } = {}): Promise<{ deployment: Deployment }> {
    return this.call('POST', `/api/services/${enc(serviceId)}/deployments`, input);
  }
  abortDeployment(deploymentId: string): Promise<{ accepted: true }> {
    return this.call('POST', `/api/deployments/${enc(deploymentId)}/abort`);
  }
  /** Creates or rotates a git service's push webhook; the secret is shown only here. */
  createWebhook(serviceId: string): Promise<{ url: string; secret: string }> {
    return this.call('POST', `/api/services/${enc(serviceId)}/webhook`);
  }
  getWebhook(serviceId: string): Promise<{ url: string; hasSecret: boolean; lastDeliveryAt: string | null }> {
    return this.call('GET', `/api/services/${enc(serviceId)}/webhook`);
  }
  deleteWebhook(serviceId: string): Promise<{ ok: true }> {
    return this.call('DELETE', `/api/services/${enc(serviceId)}/webhook`);
  }
  /** A new deployment (trigger `rollback`) that runs that earlier deployment's image again, without building. */
  rollbackDeployment(deploymentId: string): Promise<{ deployment: Deployment }> {
    return this.call('POST', `/api/deployments/${enc(deploymentId)}/rollback`);
  }
  /**
   * One page of a build log: at most 1,000 lines and about 1 MiB. From the start by default;
   * `after` a page's nextCursor reads on, `before` a page's prevCursor reads back, `tail` gives the
   * newest lines.
   */
  deploymentLogs(deploymentId: string, page: { after?: string | number; before?: string | number; tail?: boolean; limit?: number } = {}): Promise<DeploymentLogPage> {
    return this.call('GET', `/api/deployments/${enc(deploymentId)}/logs${qs({ after: page.after, before: page.before, tail: page.tail ? 'true' : undefined, limit: page.limit })}`);
  }
  /** Every page of a build log after line `after` (0: from the start), oldest first. */
  async *deploymentLogPages(deploymentId: string, after: string | number = 0): AsyncGenerator<DeploymentLogPage> {
    let cursor: string | number = after;
    for (;;) {
      const page = await this.deploymentLogs(deploymentId, { after: cursor });
      yield page;
      if (page.nextCursor === null) return;
      cursor = page.nextCursor;
    }
  }

  // System
  systemMetrics(): Promise<SystemMetrics> {
    return this.call('GET', '/api/system/metrics');
  }

  /** Whether new builds, deploys and backups are paused for lack of disk (volumes and threshold for keys over all projects). */
  systemDisk(): Promise<{ disk: DiskState }> {
    return this.call('GET', '/api/system/disk');
  }
  /** `minFreeBytes: null` goes back to the server's default (BERTH_DISK_MIN_FREE_MB). */
  patchSystemDisk(input: { minFreeBytes: number | null }): Promise<{ disk: DiskState }> {
    return this.call('PATCH', '/api/system/disk', input);
  }
  /** The server-wide default quotas (a key over all projects). */
  defaultQuotas(): Promise<{ quotas: QuotaValues }> {
    return this.call('GET', '/api/system/quotas');
  }
  patchDefaultQuotas(input: Partial<ProjectQuotas>): Promise<{ quotas: QuotaValues }> {
    return this.call('PATCH', '/api/system/quotas', input);
  }
  projectQuotas(projectId: string): Promise<ProjectQuotasAnswer> {
    return this.call('GET', `/api/projects/${enc(projectId)}/quotas`);
  }
  /** A number sets a quota, null goes back to the server's default (a write key over all projects). */
  patchProjectQuotas(projectId: string, input: Partial<ProjectQuotas>): Promise<ProjectQuotasAnswer> {
    return this.call('PATCH', `/api/projects/${enc(projectId)}/quotas`, input);
  }

  // Failure explanations and the AI providers behind them
  explainFailure(deploymentId: string, input: { providerId: string; model?: string }): Promise<{ explanation: Explanation }> {
    return this.call('POST', `/api/deployments/${enc(deploymentId)}/explain-failure`, input);
  }
  listAiProviders(): Promise<{ providers: AiProvider[] }> {
    return this.call('GET', '/api/system/ai-providers');
  }
  putAiProvider(providerId: string, input: AiProviderInput): Promise<{ provider: AiProvider }> {
    return this.call('PUT', `/api/system/ai-providers/${enc(providerId)}`, input);
  }
  deleteAiProvider(providerId: string): Promise<{ ok: true }> {
    return this.call('DELETE', `/api/system/ai-providers/${enc(providerId)}`);
  }

  // Notification channels (a key over all projects)
  listNotificationChannels(): Promise<{ channels: NotificationChannel[] }> {
    return this.call('GET', '/api/system/notifications');
  }
  /** A webhook's answer carries its signing secret, this once. */
  createNotificationChannel(input: Record<string, unknown> & { type: NotificationChannel['type']; name: string; events: NotificationChannel['events'] }): Promise<{ channel: NotificationChannel; secret?: string }> {
    return this.call('POST', '/api/system/notifications', input);
  }
  updateNotificationChannel(channelId: string, patch: Record<string, unknown>): Promise<{ channel: NotificationChannel }> {
    return this.call('PATCH', `/api/system/notifications/${enc(channelId)}`, patch);
  }
  deleteNotificationChannel(channelId: string): Promise<{ ok: true }> {
    return this.call('DELETE', `/api/system/notifications/${enc(channelId)}`);
  }
  testNotificationChannel(channelId: string): Promise<{ ok: boolean; detail: string }> {
    return this.call('POST', `/api/system/notifications/${enc(channelId)}/test`);
  }

  // System settings, DNS providers and A records for custom domains
  systemSettings(): Promise<{ settings: SystemSettings; dnsProviders: DnsProviderStatus[] }> {
    return this.call('GET', '/api/system/settings');
  }
  patchSystemSettings(patch: SystemSettingsPatch): Promise<{ settings: SystemSettings; dnsProviders: DnsProviderStatus[]; proxy: ProxyResult }> {
    return this.call('PATCH', '/api/system/settings', patch);
  }
  connectDnsProvider(providerId: DnsProviderId, credentials: DnsProviderCredentials): Promise<{ provider: DnsProviderStatus }> {
    return this.call('PUT', `/api/system/dns-providers/${enc(providerId)}`, credentials);
  }
  disconnectDnsProvider(providerId: DnsProviderId): Promise<{ ok: true }> {
    return this.call('DELETE', `/api/system/dns-providers/${enc(providerId)}`);
  }
  createDnsRecord(serviceId: string, domainId: string, providerId: DnsProviderId): Promise<{ ok: true; result: DnsRecordResult; domain: Domain }> {
    return this.call('POST', `/api/services/${enc(serviceId)}/domains/${enc(domainId)}/dns-records`, { providerId });
  }

  // Databases: tables, rows, queries and PostgreSQL TLS. `database` is redis's logical database.
  databaseTables(serviceId: string, opts: { database?: number } = {}): Promise<{ engine: DatabaseEngine; tables: DatabaseTable[] }> {
    return this.call('GET', `/api/services/${enc(serviceId)}/database/tables${qs(opts)}`);
  }
  /** A page from the start, `offset` rows in, or `after` a page's `nextCursor` (not both). */
  databaseRows(serviceId: string, q: { table: string; limit?: number; offset?: number; after?: string; database?: number }): Promise<DatabaseRowsPage> {
    return this.call('GET', `/api/services/${enc(serviceId)}/database/rows${qs(q)}`);
  }
  databaseQuery(serviceId: string, sql: string, opts: { database?: number } = {}): Promise<DatabaseQueryResult> {
    return this.call('POST', `/api/services/${enc(serviceId)}/database/query`, { sql, ...opts });
  }
  insertDatabaseRow(serviceId: string, input: { table: string; values: DbRow; database?: number }): Promise<{ ok: true; table: string; id: DbCell }> {
    return this.call('POST', `/api/services/${enc(serviceId)}/database/rows`, input);
  }
  updateDatabaseRow(serviceId: string, input: { table: string; primaryKey: DbRow; values: DbRow; database?: number }): Promise<{ ok: true }> {
    return this.call('PATCH', `/api/services/${enc(serviceId)}/database/rows`, input);
  }
  deleteDatabaseRow(serviceId: string, input: { table: string; primaryKey: DbRow; database?: number }): Promise<{ ok: true }> {
    return this.call('DELETE', `/api/services/${enc(serviceId)}/database/rows`, input);
  }
  databaseTls(serviceId: string): Promise<{ tls: PostgresTls }> {
    return this.call('GET', `/api/services/${enc(serviceId)}/database/tls`);
  }
  /** The Berth CA that signs database certificates, as PEM text. */
  databaseCaPem(serviceId: string): Promise<string> {
    return this.call('GET', `/api/services/${enc(serviceId)}/database/tls/ca`);
  }

  // Remote (S3-compatible) backup storage
  backupStorage(): Promise<BackupStorageStatus> {
    return this.call('GET', '/api/system/backup-storage');
  }
  putBackupStorage(input: BackupStorageInput): Promise<BackupStorageStatus> {
    return this.call('PUT', '/api/system/backup-storage', input);
  }
  deleteBackupStorage(): Promise<{ ok: true }> {
    return this.call('DELETE', '/api/system/backup-storage');
  }

  // Backups, restores, downloads and imports of database services
  listBackups(serviceId: string): Promise<{ backups: Backup[]; settings: BackupSettings; remote: { connected: boolean } }> {
    return this.call('GET', `/api/services/${enc(serviceId)}/database/backups`);
  }
  createBackup(serviceId: string, storage: BackupStorageKind = 'disk'): Promise<{ backup: Backup }> {
    return this.call('POST', `/api/services/${enc(serviceId)}/database/backups`, { storage });
  }
  patchBackupSettings(serviceId: string, patch: Partial<Omit<BackupSettings, 'serviceId' | 'createdAt' | 'updatedAt'>>): Promise<{ settings: BackupSettings }> {
    return this.call('PATCH', `/api/services/${enc(serviceId)}/database/backups/settings`, patch);
  }
  restoreBackup(serviceId: string, backupId: string): Promise<{ ok: true; restoredAt: string; backup: { id: string; status: string } }> {
    return this.call('POST', `/api/services/${enc(serviceId)}/database/backups/${enc(backupId)}/restore`);
  }
  /** The backup file's bytes. */
  async downloadBackup(serviceId: string, backupId: string): Promise<{ bytes: Buffer; headers: Headers }> {
    const res = await this.openBackupDownload(serviceId, backupId);
    return { bytes: Buffer.from(await res.arrayBuffer()), headers: res.headers };
  }
  /** The download response, for streaming a big file to disk; throws ApiError on an error status. */
  async openBackupDownload(serviceId: string, backupId: string, signal?: AbortSignal): Promise<Response> {
    const res = await this.fetch(`${this.baseUrl}/api/services/${enc(serviceId)}/database/backups/${enc(backupId)}/download`, {
      headers: this.token ? { authorization: `Bearer ${this.token}` } : {},
      signal,
    });
    if (res.status >= 400) {
      const err = ((await res.json().catch(() => ({}))) as { error?: { code?: string; message?: string } }).error;
      throw new ApiError(res.status, err?.code ?? 'http_error', err?.message ?? `HTTP ${res.status}`);
    }
    return res;
  }
  deleteBackup(serviceId: string, backupId: string): Promise<{ ok: true }> {
    return this.call('DELETE', `/api/services/${enc(serviceId)}/database/backups/${enc(backupId)}`);
  }
  listImports(serviceId: string): Promise<{ imports: DataImport[] }> {
    return this.call('GET', `/api/services/${enc(serviceId)}/database/imports`);
  }
  importFrom(serviceId: string, source: ImportSource, sourceUrl: string): Promise<{ result: { id: string; status: string; source: string; createdAt: string } }> {
    return this.call('POST', `/api/services/${enc(serviceId)}/database/import/${source}`, { sourceUrl });
  }

  /** A deployment's build log as SSE: `snapshot`, `log`, `ping`, then `end` {status}; resume with lastEventId. */
  deploymentStream(deploymentId: string, opts: { lastEventId?: string; signal?: AbortSignal } = {}): AsyncGenerator<SseEvent> {
    return this.stream(`/api/deployments/${enc(deploymentId)}/stream`, opts);
  }
  /** A service's running container output as SSE: `snapshot` (the tail), `log`, `status` {ok, closed}. */
  runtimeLogStream(serviceId: string, opts: { lastEventId?: string; signal?: AbortSignal } = {}): AsyncGenerator<SseEvent> {
    return this.stream(`/api/services/${enc(serviceId)}/runtime-logs/stream`, opts);
  }

  /** Reads a Server-Sent Events endpoint; yields events until the server closes or `signal` aborts. */
  async *stream(path: string, opts: { lastEventId?: string; signal?: AbortSignal } = {}): AsyncGenerator<SseEvent> {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (this.token !== null) headers.authorization = `Bearer ${this.token}`;
    if (opts.lastEventId !== undefined) headers['last-event-id'] = opts.lastEventId;
    const res = await this.fetch(this.baseUrl + path, { headers, signal: opts.signal });
    if (!res.ok || !res.body) {
      const text = await res.text();
      let code = 'http_error';
      let message = `HTTP ${res.status}`;
      try {
        const parsed = JSON.parse(text) as { error: { code: string; message: string } };
        code = parsed.error.code;
        message = parsed.error.message;
      } catch {
        // not a JSON error body; keep the status line
      }
      throw new ApiError(res.status, code, message);
    }
    yield* readSse(res.body);
  }
}

function enc(segment: string): string {
  return encodeURIComponent(segment);
}

/** `?a=1&b=x` from the defined entries, or '' when none. */
function qs(params: Record<string, string | number | undefined>): string {
  const entries = Object.entries(params).filter((e): e is [string, string | number] => e[1] !== undefined);
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)])).toString()}`;
}
