// The API's resource shapes, exactly as ../shared/spec/deployment-platform-api.md names them, one
// file per area under types/. Used by the daemon's views, the typed client, the desktop app and the
// tests: import from here (or from the area's file).

export type * from './types/common.js';
export type * from './types/keys.js';
export type * from './types/projects.js';
export type * from './types/services.js';
export type * from './types/env.js';
export type * from './types/domains.js';
export type * from './types/deployments.js';
export type * from './types/metrics.js';
export type * from './types/metrics-history.js';
export type * from './types/disk-quotas.js';
export type * from './types/ai.js';
export type * from './types/settings.js';
export type * from './types/dns.js';
export type * from './types/databases.js';
export type * from './types/backups.js';
export type * from './types/notifications.js';
export type * from './types/volumes.js';
export type * from './types/jobs.js';
export type * from './types/checks.js';
export type * from './types/exec.js';
export type * from './types/compose.js';
export type * from './types/swarm.js';
export type * from './types/upgrade.js';
export type * from './types/server-backups.js';
export type * from './types/audit.js';
export type * from './types/status-pages.js';
