// What each audited call did, in words, for the console's audit view and `berth audit`: the routes
// the audit log records (every route of the table whose method is not GET, and the terminal). A
// route added to the table does not compile here until it has its words.
import type { ApiRoute, RouteId } from './api-routes.js';

/** The route ids the audit log records: every non-GET route of the table, and the terminal's WebSocket. */
export type AuditedRouteId = Exclude<ApiRoute, { method: 'GET' }>['id'] | 'terminal';

const ACTION_WORDS: Record<AuditedRouteId, string> = {
  'keys.create': 'create key',
  'keys.revoke': 'revoke key',
  'projects.create': 'create project',
  'projects.patch': 'change project',
  'projects.delete': 'delete project',
  'services.create': 'create service',
  'services.patch': 'change service',
  'services.transfer': 'move service',
  'services.delete': 'delete service',
  'env.set': 'set variable',
  'env.delete': 'delete variable',
  'domains.add': 'add domain',
  'domains.patch': 'change domain',
  'domains.delete': 'delete domain',
  'generated-names.release': 'release generated name',
  'deployments.create': 'deploy',
  'deployments.abort': 'abort deployment',
  'deployments.rollback': 'roll back',
  'webhooks.create': 'create webhook',
  'webhooks.delete': 'delete webhook',
  'system.disk.patch': 'change disk threshold',
  'system.metric-alerts.patch': 'change metric alerts',
  'quotas.patch': 'change project quotas',
  'status-page.put': 'set up status page',
  'status-page.delete': 'remove status page',
  'system.quotas.patch': 'change default quotas',
  'deployments.explain-failure': 'explain failure',
  'ai-providers.put': 'set AI provider',
  'ai-providers.delete': 'delete AI provider',
  'system.settings.patch': 'change settings',
  'system.address.set': 'change server address',
  'system.upgrade.start': 'upgrade Berth',
  'system.backups.patch': 'change backup of Berth',
  'system.backups.run': 'back up Berth',
  'system.backups.delete': 'delete backup of Berth',
  'dns-providers.put': 'connect DNS provider',
  'dns-providers.delete': 'disconnect DNS provider',
  'domains.dns-record': 'write DNS record',
  'database.query': 'run SQL query',
  'database.rows.insert': 'insert row',
  'database.rows.update': 'update row',
  'database.rows.delete': 'delete row',
  'backup-storage.put': 'set backup storage',
  'backup-storage.delete': 'remove backup storage',
  'backups.create': 'back up database',
  'backups.settings.patch': 'change backup settings',
  'backups.restore': 'restore database',
  'backups.verify': 'test a backup by restoring it',
  'backups.delete': 'delete backup',
  'imports.postgres-url': 'import PostgreSQL data',
  'imports.redis-url': 'import Redis data',
  'volume-backups.create': 'back up volume',
  'volume-backups.settings.patch': 'change volume backup settings',
  'volume-backups.restore': 'restore volume',
  'volume-backups.delete': 'delete volume backup',
  'jobs.create': 'create job',
  'jobs.patch': 'change job',
  'jobs.delete': 'delete job',
  'jobs.run': 'run job',
  'checks.create': 'create uptime check',
  'checks.patch': 'change uptime check',
  'checks.delete': 'delete uptime check',
  'checks.run': 'run uptime check',
  'exec.start': 'run command',
  terminal: 'open terminal',
  'compose.import': 'import compose file',
  'swarm.enable': 'turn Swarm on',
  'swarm.disable': 'turn Swarm off',
  'nodes.join': 'create join command',
  'nodes.patch': 'change node',
  'nodes.delete': 'remove node',
  'nodes.join-complete': 'node joined',
  'notifications.create': 'create notification channel',
  'notifications.patch': 'change notification channel',
  'notifications.delete': 'delete notification channel',
  'notifications.test': 'test notification channel',
  'session.open': 'sign in',
  'session.close': 'sign out',
  'hooks.deliver': 'webhook delivery',
};

/** Every route id the audit log records. */
export const AUDITED_ROUTE_IDS = Object.keys(ACTION_WORDS) as AuditedRouteId[];

/** A route id in words ("services.create" -> "create service"); an id this client does not know is shown as it is. */
export function actionWords(route: string): string {
  return (ACTION_WORDS as Record<string, string | undefined>)[route] ?? route;
}

/** Whether a route (by id) is one the audit log records. */
export function isAudited(id: RouteId | string): id is AuditedRouteId {
  return id in ACTION_WORDS;
}
