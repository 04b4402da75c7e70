// Every API route, declared once as data (Fastify-style route options without the handler): the
// daemon registers exactly these (daemon/http/route-table.ts), the clients build their paths with
// `apiPath`, the desktop allow-list admits the routes marked `desktop`, and the auth-matrix test
// checks every route's `access`. A route is added here and nowhere else as a path.
//
// access:
// - `open`: no key at all (health; a git host's delivery, which its signature authenticates)
// - `session`: signing in to or out of a console session (no key; the same-origin check applies)
// - `read` / `write`: a key that sees the resource (write: a write key; core then answers 404 for a
//   resource outside the key's projects, exactly like an unknown one)
// - `all-projects-read` / `all-projects-write`: a key over all projects (`action` says what for, in
//   the 403 message: "<action> needs a key over all projects")
// - `project-admin`: a write key over all projects acting on one project; a project the key cannot
//   see answers 404 like an unknown one before the 403 (core checks both, in that order)

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type RouteAccess = 'open' | 'session' | 'read' | 'write' | 'all-projects-read' | 'all-projects-write' | 'project-admin';

export interface RouteSpec {
  readonly id: string;
  readonly method: Method;
  /** `:name` is one path segment. */
  readonly path: string;
  readonly access: RouteAccess;
  /** For the all-projects accesses and project-admin: what the key is refused for. */
  readonly action?: string;
  /** A Server-Sent Events stream. */
  readonly sse?: boolean;
  /** A binary answer saved as a file (not JSON). */
  readonly download?: boolean;
  /** A WebSocket: the request upgrades (a plain GET answers 426 after the key check). */
  readonly websocket?: boolean;
  /** The desktop window may reach it through the main process (default true). */
  readonly desktop?: boolean;
}

const S = '/api/services/:serviceId';
const DB = `${S}/database`;
const VB = `${S}/volumes/:volumeName/backups`;

export const API_ROUTES = [
  { id: 'health', method: 'GET', path: '/api/health', access: 'open' },
  // keys: managing them needs a write key over all projects, even to list them
  { id: 'keys.list', method: 'GET', path: '/api/keys', access: 'all-projects-write', action: 'managing keys' },
  { id: 'keys.create', method: 'POST', path: '/api/keys', access: 'all-projects-write', action: 'managing keys' },
  { id: 'keys.revoke', method: 'DELETE', path: '/api/keys/:keyId', access: 'all-projects-write', action: 'managing keys' },
  { id: 'projects.list', method: 'GET', path: '/api/projects', access: 'read' },
  { id: 'projects.create', method: 'POST', path: '/api/projects', access: 'all-projects-write', action: 'creating a project' },
  // scripts in the field call it with a project id as well as a slug: both are accepted
  { id: 'projects.get', method: 'GET', path: '/api/projects/:projectSlug', access: 'read' },
  { id: 'projects.patch', method: 'PATCH', path: '/api/projects/:projectId', access: 'write' },
  { id: 'projects.delete', method: 'DELETE', path: '/api/projects/:projectId', access: 'write' },
  { id: 'projects.database-variable-suggestions', method: 'GET', path: '/api/projects/:projectId/database-variable-suggestions', access: 'read' },
  { id: 'services.create', method: 'POST', path: '/api/projects/:projectId/services', access: 'write' },
  { id: 'services.overview', method: 'GET', path: `${S}/overview`, access: 'read' },
  { id: 'services.patch', method: 'PATCH', path: S, access: 'write' },
  { id: 'services.transfer', method: 'POST', path: `${S}/transfer`, access: 'write' },
  { id: 'services.delete', method: 'DELETE', path: S, access: 'write' },
  { id: 'services.suggestion-keys', method: 'GET', path: `${S}/suggestion-keys`, access: 'read' },
  { id: 'env.set', method: 'POST', path: `${S}/env`, access: 'write' },
  { id: 'env.delete', method: 'DELETE', path: `${S}/env/:envId`, access: 'write' },
  { id: 'domains.add', method: 'POST', path: `${S}/domains`, access: 'write' },
  { id: 'domains.patch', method: 'PATCH', path: `${S}/domains/:domainId`, access: 'write' },
  { id: 'domains.delete', method: 'DELETE', path: `${S}/domains/:domainId`, access: 'write' },
  { id: 'generated-names.list', method: 'GET', path: '/api/generated-names', access: 'all-projects-read', action: 'listing the generated names of every project' },
  { id: 'generated-names.release', method: 'DELETE', path: '/api/generated-names/:label', access: 'all-projects-write', action: 'releasing a generated name' },
  { id: 'deployments.create', method: 'POST', path: `${S}/deployments`, access: 'write' },
  { id: 'deployments.list', method: 'GET', path: `${S}/deployments`, access: 'read' },
  { id: 'deployments.abort', method: 'POST', path: '/api/deployments/:deploymentId/abort', access: 'write' },
  { id: 'deployments.rollback', method: 'POST', path: '/api/deployments/:deploymentId/rollback', access: 'write' },
  { id: 'deployments.logs', method: 'GET', path: '/api/deployments/:deploymentId/logs', access: 'read' },
  { id: 'deployments.stream', method: 'GET', path: '/api/deployments/:deploymentId/stream', access: 'read', sse: true },
  { id: 'services.runtime-logs', method: 'GET', path: `${S}/runtime-logs/stream`, access: 'read', sse: true },
  { id: 'webhooks.create', method: 'POST', path: `${S}/webhook`, access: 'write' },
  { id: 'webhooks.get', method: 'GET', path: `${S}/webhook`, access: 'read' },
  { id: 'webhooks.delete', method: 'DELETE', path: `${S}/webhook`, access: 'write' },
  { id: 'events', method: 'GET', path: '/api/events', access: 'read', sse: true },
  { id: 'system.metrics', method: 'GET', path: '/api/system/metrics', access: 'read' },
  // metrics history (10 s for 1 h, 1 min for 24 h, 10 min for 30 days), Berth's own footprint and the threshold alerts
  { id: 'services.metrics', method: 'GET', path: `${S}/metrics`, access: 'read' },
  { id: 'system.metrics.history', method: 'GET', path: '/api/system/metrics/history', access: 'all-projects-read', action: "reading the host's metrics history" },
  { id: 'system.footprint', method: 'GET', path: '/api/system/footprint', access: 'all-projects-read', action: "reading Berth's footprint" },
  { id: 'system.metric-alerts', method: 'GET', path: '/api/system/metrics/alerts', access: 'all-projects-read', action: 'reading the metric alerts' },
  { id: 'system.metric-alerts.patch', method: 'PATCH', path: '/api/system/metrics/alerts', access: 'all-projects-write', action: 'changing the metric alerts' },
  // any key reads whether builds are paused; keys over all projects also see the volumes
  { id: 'system.disk', method: 'GET', path: '/api/system/disk', access: 'read' },
  { id: 'system.disk.patch', method: 'PATCH', path: '/api/system/disk', access: 'all-projects-write', action: 'changing the free disk threshold' },
  { id: 'quotas.get', method: 'GET', path: '/api/projects/:projectId/quotas', access: 'read' },
  { id: 'quotas.patch', method: 'PATCH', path: '/api/projects/:projectId/quotas', access: 'project-admin', action: "changing a project's quotas" },
  // a project's public status page (core/status-pages.ts); the page itself is served by Caddy on its hostname
  { id: 'status-page.get', method: 'GET', path: '/api/projects/:projectId/status-page', access: 'read' },
  { id: 'status-page.put', method: 'PUT', path: '/api/projects/:projectId/status-page', access: 'write' },
  { id: 'status-page.delete', method: 'DELETE', path: '/api/projects/:projectId/status-page', access: 'write' },
  { id: 'system.quotas', method: 'GET', path: '/api/system/quotas', access: 'all-projects-read', action: 'reading the default quotas' },
  { id: 'system.quotas.patch', method: 'PATCH', path: '/api/system/quotas', access: 'all-projects-write', action: 'changing the default quotas' },
  { id: 'deployments.explain-failure', method: 'POST', path: '/api/deployments/:deploymentId/explain-failure', access: 'write' },
  { id: 'ai-providers.list', method: 'GET', path: '/api/system/ai-providers', access: 'all-projects-read', action: 'listing AI providers' },
  { id: 'ai-providers.put', method: 'PUT', path: '/api/system/ai-providers/:providerId', access: 'all-projects-write', action: 'managing AI providers' },
  { id: 'ai-providers.delete', method: 'DELETE', path: '/api/system/ai-providers/:providerId', access: 'all-projects-write', action: 'managing AI providers' },
  { id: 'system.settings', method: 'GET', path: '/api/system/settings', access: 'all-projects-read', action: 'reading system settings' },
  { id: 'system.settings.patch', method: 'PATCH', path: '/api/system/settings', access: 'all-projects-write', action: 'changing system settings' },
  // the server's address and the fingerprint of the API certificate served for it; changing it re-issues that certificate
  { id: 'system.address', method: 'GET', path: '/api/system/address', access: 'all-projects-read', action: "reading the server's address" },
  { id: 'system.address.set', method: 'PUT', path: '/api/system/address', access: 'all-projects-write', action: "changing the server's address" },
  // Berth's own version, a newer release from the feed, and the last upgrade; POST hands a bundle to the installer's upgrader
  { id: 'system.upgrade', method: 'GET', path: '/api/system/upgrade', access: 'all-projects-read', action: 'reading the upgrade state' },
  { id: 'system.upgrade.start', method: 'POST', path: '/api/system/upgrade', access: 'all-projects-write', action: 'upgrading Berth' },
  // Berth's own backup (the archive of its state) from the API: settings, runs, downloads
  { id: 'system.backups', method: 'GET', path: '/api/system/backups', access: 'all-projects-read', action: "reading Berth's backups" },
  { id: 'system.backups.patch', method: 'PATCH', path: '/api/system/backups', access: 'all-projects-write', action: "changing Berth's backup settings" },
  { id: 'system.backups.run', method: 'POST', path: '/api/system/backups', access: 'all-projects-write', action: 'backing up Berth' },
  { id: 'system.backups.download', method: 'GET', path: '/api/system/backups/:runId/download', access: 'all-projects-write', action: "downloading Berth's backups", download: true },
  { id: 'system.backups.delete', method: 'DELETE', path: '/api/system/backups/:runId', access: 'all-projects-write', action: "deleting Berth's backups" },
  { id: 'dns-providers.put', method: 'PUT', path: '/api/system/dns-providers/:providerId', access: 'all-projects-write', action: 'managing DNS providers' },
  { id: 'dns-providers.delete', method: 'DELETE', path: '/api/system/dns-providers/:providerId', access: 'all-projects-write', action: 'managing DNS providers' },
  { id: 'domains.dns-record', method: 'POST', path: `${S}/domains/:domainId/dns-records`, access: 'write' },
  { id: 'services.build-plan', method: 'GET', path: `${S}/build-plan`, access: 'read' },
  { id: 'database.tables', method: 'GET', path: `${DB}/tables`, access: 'read' },
  { id: 'database.rows', method: 'GET', path: `${DB}/rows`, access: 'read' },
  { id: 'database.query', method: 'POST', path: `${DB}/query`, access: 'write' },
  { id: 'database.rows.insert', method: 'POST', path: `${DB}/rows`, access: 'write' },
  { id: 'database.rows.update', method: 'PATCH', path: `${DB}/rows`, access: 'write' },
  { id: 'database.rows.delete', method: 'DELETE', path: `${DB}/rows`, access: 'write' },
  { id: 'database.tls', method: 'GET', path: `${DB}/tls`, access: 'read' },
  { id: 'database.tls.ca', method: 'GET', path: `${DB}/tls/ca`, access: 'read', download: true },
  { id: 'backup-storage.get', method: 'GET', path: '/api/system/backup-storage', access: 'all-projects-read', action: 'reading backup storage settings' },
  { id: 'backup-storage.put', method: 'PUT', path: '/api/system/backup-storage', access: 'all-projects-write', action: 'changing backup storage settings' },
  { id: 'backup-storage.delete', method: 'DELETE', path: '/api/system/backup-storage', access: 'all-projects-write', action: 'changing backup storage settings' },
  { id: 'backups.list', method: 'GET', path: `${DB}/backups`, access: 'read' },
  { id: 'backups.create', method: 'POST', path: `${DB}/backups`, access: 'write' },
  { id: 'backups.settings.patch', method: 'PATCH', path: `${DB}/backups/settings`, access: 'write' },
  { id: 'backups.restore', method: 'POST', path: `${DB}/backups/:backupId/restore`, access: 'write' },
  { id: 'backups.verify', method: 'POST', path: `${DB}/backups/:backupId/verify`, access: 'write' },
  { id: 'backups.download', method: 'GET', path: `${DB}/backups/:backupId/download`, access: 'read', download: true },
  { id: 'backups.delete', method: 'DELETE', path: `${DB}/backups/:backupId`, access: 'write' },
  { id: 'imports.list', method: 'GET', path: `${DB}/imports`, access: 'read' },
  { id: 'imports.postgres-url', method: 'POST', path: `${DB}/import/postgres-url`, access: 'write' },
  { id: 'imports.redis-url', method: 'POST', path: `${DB}/import/redis-url`, access: 'write' },
  // volumes of a project, and their backups (the database backups' shapes and verbs)
  { id: 'volumes.list', method: 'GET', path: '/api/projects/:projectId/volumes', access: 'read' },
  { id: 'volume-backups.list', method: 'GET', path: VB, access: 'read' },
  { id: 'volume-backups.create', method: 'POST', path: VB, access: 'write' },
  { id: 'volume-backups.settings.patch', method: 'PATCH', path: `${VB}/settings`, access: 'write' },
  { id: 'volume-backups.restore', method: 'POST', path: `${VB}/:backupId/restore`, access: 'write' },
  { id: 'volume-backups.download', method: 'GET', path: `${VB}/:backupId/download`, access: 'read', download: true },
  { id: 'volume-backups.delete', method: 'DELETE', path: `${VB}/:backupId`, access: 'write' },
  // scheduled jobs of a service and their runs
  { id: 'jobs.list', method: 'GET', path: `${S}/jobs`, access: 'read' },
  { id: 'jobs.create', method: 'POST', path: `${S}/jobs`, access: 'write' },
  { id: 'jobs.patch', method: 'PATCH', path: `${S}/jobs/:jobId`, access: 'write' },
  { id: 'jobs.delete', method: 'DELETE', path: `${S}/jobs/:jobId`, access: 'write' },
  { id: 'jobs.run', method: 'POST', path: `${S}/jobs/:jobId/runs`, access: 'write' },
  { id: 'jobs.runs', method: 'GET', path: `${S}/jobs/:jobId/runs`, access: 'read' },
  { id: 'jobs.run-logs', method: 'GET', path: `${S}/jobs/:jobId/runs/:runId/logs`, access: 'read' },
  // uptime checks of a service: its own domains through Berth's Caddy, or its host port (docs/uptime.md)
  { id: 'checks.list', method: 'GET', path: `${S}/checks`, access: 'read' },
  { id: 'checks.create', method: 'POST', path: `${S}/checks`, access: 'write' },
  { id: 'checks.get', method: 'GET', path: `${S}/checks/:checkId`, access: 'read' },
  { id: 'checks.patch', method: 'PATCH', path: `${S}/checks/:checkId`, access: 'write' },
  { id: 'checks.delete', method: 'DELETE', path: `${S}/checks/:checkId`, access: 'write' },
  { id: 'checks.run', method: 'POST', path: `${S}/checks/:checkId/run`, access: 'write' },
  { id: 'checks.results', method: 'GET', path: `${S}/checks/:checkId/results`, access: 'read' },
  { id: 'checks.uptime', method: 'GET', path: `${S}/checks/:checkId/uptime`, access: 'read' },
  { id: 'checks.incidents', method: 'GET', path: `${S}/checks/:checkId/incidents`, access: 'read' },
  // one-off commands (an SSE answer) and their record; an interactive terminal (a WebSocket)
  { id: 'exec.start', method: 'POST', path: `${S}/exec`, access: 'write', sse: true },
  { id: 'exec.list', method: 'GET', path: `${S}/exec`, access: 'read' },
  { id: 'terminal', method: 'GET', path: `${S}/terminal`, access: 'write', websocket: true },
  // a compose file (or a template of the gallery) imported into a project; the gallery
  { id: 'compose.import', method: 'POST', path: '/api/projects/:projectId/compose', access: 'write' },
  { id: 'templates.list', method: 'GET', path: '/api/templates', access: 'read' },
  // Swarm mode: this server as the manager, the nodes that joined, and where instances run
  { id: 'swarm.get', method: 'GET', path: '/api/swarm', access: 'all-projects-read', action: 'reading the swarm' },
  { id: 'swarm.enable', method: 'POST', path: '/api/swarm', access: 'all-projects-write', action: 'turning Swarm mode on' },
  { id: 'swarm.disable', method: 'DELETE', path: '/api/swarm', access: 'all-projects-write', action: 'turning Swarm mode off' },
  { id: 'nodes.list', method: 'GET', path: '/api/nodes', access: 'all-projects-read', action: 'listing nodes' },
  { id: 'nodes.join', method: 'POST', path: '/api/nodes/join', access: 'all-projects-write', action: 'joining nodes' },
  { id: 'nodes.patch', method: 'PATCH', path: '/api/nodes/:nodeId', access: 'all-projects-write', action: 'changing nodes' },
  { id: 'nodes.delete', method: 'DELETE', path: '/api/nodes/:nodeId', access: 'all-projects-write', action: 'removing nodes' },
  // what the join command fetches on the new server: its single-use token authenticates it
  { id: 'nodes.join-script', method: 'GET', path: '/api/nodes/join/:token/script', access: 'open', desktop: false },
  { id: 'nodes.join-ca', method: 'GET', path: '/api/nodes/join/:token/ca', access: 'open', desktop: false },
  { id: 'nodes.join-complete', method: 'POST', path: '/api/nodes/join/:token', access: 'open', desktop: false },
  { id: 'services.instances', method: 'GET', path: `${S}/instances`, access: 'read' },
  { id: 'notifications.list', method: 'GET', path: '/api/system/notifications', access: 'all-projects-read', action: 'reading notification channels' },
  { id: 'notifications.create', method: 'POST', path: '/api/system/notifications', access: 'all-projects-write', action: 'changing notification channels' },
  { id: 'notifications.patch', method: 'PATCH', path: '/api/system/notifications/:channelId', access: 'all-projects-write', action: 'changing notification channels' },
  { id: 'notifications.delete', method: 'DELETE', path: '/api/system/notifications/:channelId', access: 'all-projects-write', action: 'changing notification channels' },
  { id: 'notifications.test', method: 'POST', path: '/api/system/notifications/:channelId/test', access: 'all-projects-write', action: 'testing notification channels' },
  // the desktop app signs in with its stored key itself: the window only asks who it is
  { id: 'session.open', method: 'POST', path: '/api/session', access: 'session', desktop: false },
  { id: 'session.get', method: 'GET', path: '/api/session', access: 'read' },
  { id: 'session.close', method: 'DELETE', path: '/api/session', access: 'session', desktop: false },
  // the audit log: every mutating call, newest first (append-only: no route changes or deletes an entry)
  { id: 'audit.list', method: 'GET', path: '/api/audit', access: 'all-projects-read', action: 'reading the audit log' },
  // a git host's signed push delivery: no key (its signature authenticates it)
  { id: 'hooks.deliver', method: 'POST', path: '/api/hooks/:serviceId', access: 'open', desktop: false },
] as const satisfies readonly RouteSpec[];

export type ApiRoute = (typeof API_ROUTES)[number];
export type RouteId = ApiRoute['id'];
export type RouteOf<Id extends RouteId> = Extract<ApiRoute, { id: Id }>;
export type PathOf<Id extends RouteId> = RouteOf<Id>['path'];

/** The `:names` of a path, as a union of strings. */
export type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}` ? Name | ParamNames<`/${Rest}`> : P extends `${string}:${infer Name}` ? Name : never;

/** The parameters a route's path takes, each one path segment. */
export type RouteParams<Id extends RouteId> = { [N in ParamNames<PathOf<Id>>]: string };

/** Query string values; undefined ones are left out. */
export type QueryValues = Record<string, string | number | boolean | undefined>;

const BY_ID = new Map<string, RouteSpec>(API_ROUTES.map((r) => [r.id, r]));

export function routeById<Id extends RouteId>(id: Id): RouteOf<Id> {
  const route = BY_ID.get(id);
  if (!route) throw new Error(`no API route ${id}`);
  return route as RouteOf<Id>;
}

type ParamsArg<Id extends RouteId> = [ParamNames<PathOf<Id>>] extends [never] ? [params?: Record<string, never>, query?: QueryValues] : [params: RouteParams<Id>, query?: QueryValues];

/**
 * The path of a route with its parameters filled in (each encoded as one segment) and an optional
 * query string: `apiPath('services.patch', { serviceId })`.
 */
export function apiPath<Id extends RouteId>(id: Id, ...[params, query]: ParamsArg<Id>): string {
  return routePath(id, (params ?? {}) as RouteParams<Id>, query);
}

/** apiPath with the parameters always given (`{}` for a route without any). */
export function routePath<Id extends RouteId>(id: Id, params: RouteParams<Id>, query?: QueryValues): string {
  const values = params as Record<string, string | undefined>;
  const path = routeById(id).path.replace(/:([A-Za-z_$][A-Za-z0-9_$]*)/g, (_m, name: string) => {
    const value = values[name];
    if (typeof value !== 'string') throw new Error(`apiPath(${id}): ${name} is missing`);
    return encodeURIComponent(value);
  });
  return path + queryString(query);
}

/** `?a=1&b=x` from the defined entries, or '' when none. */
function queryString(query: QueryValues | undefined): string {
  const entries = Object.entries(query ?? {}).filter((e): e is [string, string | number | boolean] => e[1] !== undefined);
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries.map(([k, v]) => [k, String(v)])).toString()}`;
}

/** Whether a route is one the desktop window may reach through the main process. */
export function desktopReaches(route: RouteSpec): boolean {
  return route.desktop !== false;
}

/**
 * The table route a concrete path and method are (literal segments win over parameters, as in the
 * daemon: `backups/settings` before `backups/:backupId`), or null. `path` has no query string.
 */
export function matchRoute(method: string, path: string): ApiRoute | null {
  const segments = path.split('/').slice(1);
  let best: ApiRoute | null = null;
  let bestLiterals = -1;
  for (const route of API_ROUTES) {
    if (route.method !== method) continue;
    const parts = route.path.split('/').slice(1);
    if (parts.length !== segments.length) continue;
    if (!parts.every((p, i) => p.startsWith(':') || p === segments[i])) continue;
    const literals = parts.filter((p) => !p.startsWith(':')).length;
    if (literals > bestLiterals) {
      best = route;
      bestLiterals = literals;
    }
  }
  return best;
}
