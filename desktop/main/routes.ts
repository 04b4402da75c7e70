// The allow-list of API routes the desktop window may reach through the main process: the
// console's calls (spec + turn-2 contracts), nothing else. A path outside it (an unknown route,
// `..`, an encoded slash, another origin) is refused before any key is attached.

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

const S = ':serviceId';
const D = ':deploymentId';

/** [methods, pattern]; `:name` is one path segment. */
const ROUTES: [Method[], string][] = [
  [['GET'], '/api/health'],
  [['GET'], '/api/session'], // who the stored key is; signing in and out is the main process's business
  [['GET', 'POST'], '/api/keys'],
  [['DELETE'], '/api/keys/:keyId'],
  [['GET', 'POST'], '/api/projects'],
  [['GET', 'PATCH', 'DELETE'], '/api/projects/:projectId'],
  [['GET'], '/api/projects/:projectId/database-variable-suggestions'],
  [['GET', 'PATCH'], '/api/projects/:projectId/quotas'],
  [['POST'], '/api/projects/:projectId/services'],
  [['PATCH', 'DELETE'], `/api/services/${S}`],
  [['GET'], `/api/services/${S}/overview`],
  [['GET'], `/api/services/${S}/build-plan`],
  [['GET', 'POST'], `/api/services/${S}/deployments`],
  [['GET'], `/api/services/${S}/suggestion-keys`],
  [['POST'], `/api/services/${S}/transfer`],
  [['POST'], `/api/services/${S}/env`],
  [['PATCH', 'DELETE'], `/api/services/${S}/env/:envId`],
  [['POST'], `/api/services/${S}/domains`],
  [['PATCH', 'DELETE'], `/api/services/${S}/domains/:domainId`],
  [['POST'], `/api/services/${S}/domains/:domainId/dns-records`],
  [['GET', 'POST'], `/api/services/${S}/database/backups`],
  [['GET', 'DELETE'], `/api/services/${S}/database/backups/:backupId`],
  [['POST'], `/api/services/${S}/database/backups/:backupId/restore`],
  [['GET', 'PATCH'], `/api/services/${S}/database/backups/settings`],
  [['POST'], `/api/services/${S}/database/import/:source`],
  [['GET'], `/api/services/${S}/database/imports`],
  [['POST'], `/api/services/${S}/database/query`],
  [['GET', 'POST', 'PATCH', 'DELETE'], `/api/services/${S}/database/rows`],
  [['GET'], `/api/services/${S}/database/tables`],
  [['GET', 'PUT', 'PATCH'], `/api/services/${S}/database/tls`],
  [['GET'], `/api/services/${S}/database/tls/ca`],
  [['GET', 'POST', 'DELETE'], `/api/services/${S}/webhook`],
  [['GET'], `/api/deployments/${D}/logs`],
  [['POST'], `/api/deployments/${D}/abort`],
  [['POST'], `/api/deployments/${D}/explain-failure`],
  [['POST'], `/api/deployments/${D}/rollback`],
  [['GET', 'PATCH'], '/api/system/settings'],
  [['GET'], '/api/system/metrics'],
  [['GET', 'PATCH'], '/api/system/disk'],
  [['GET', 'PATCH'], '/api/system/quotas'],
  [['GET'], '/api/generated-names'],
  [['DELETE'], '/api/generated-names/:label'],
  [['GET', 'PUT', 'DELETE'], '/api/system/backup-storage'],
  [['GET'], '/api/system/ai-providers'],
  [['PUT', 'DELETE'], '/api/system/ai-providers/:providerId'],
  [['PUT', 'DELETE'], '/api/system/dns-providers/:providerId'],
];

/** Server-Sent Events streams a window may subscribe to. */
const STREAMS: string[] = ['/api/events', `/api/deployments/${D}/stream`, `/api/services/${S}/runtime-logs/stream`];

const SEGMENT = /^[A-Za-z0-9._~@-]+$/;

function splitPath(path: string): { segments: string[]; query: string } | null {
  if (typeof path !== 'string' || path.length > 2048 || !path.startsWith('/api/')) return null;
  const q = path.indexOf('?');
  const pathname = q < 0 ? path : path.slice(0, q);
  const query = q < 0 ? '' : path.slice(q);
  if (/[#\\\s]/.test(path)) return null;
  const segments = pathname.split('/').slice(1);
  for (const seg of segments) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(seg);
    } catch {
      return null;
    }
    if (seg === '' || decoded === '.' || decoded === '..' || decoded.includes('/') || !SEGMENT.test(decoded)) return null;
  }
  return { segments, query };
}

function matches(pattern: string, segments: string[]): boolean {
  const parts = pattern.split('/').slice(1);
  if (parts.length !== segments.length) return false;
  return parts.every((p, i) => p.startsWith(':') || p === segments[i]);
}

export function isAllowedRequest(method: string, path: string): boolean {
  const split = splitPath(path);
  if (!split) return false;
  // a literal segment must win over a parameter (backups/settings vs backups/:backupId): any match is fine, both are allowed
  return ROUTES.some(([methods, pattern]) => methods.includes(method as Method) && matches(pattern, split.segments));
}

export function isAllowedStream(path: string): boolean {
  const split = splitPath(path);
  if (!split) return false;
  return STREAMS.some((pattern) => matches(pattern, split.segments));
}
