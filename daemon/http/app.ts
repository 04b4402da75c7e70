// createApp(deps): the Koa app. Middleware order is the request lifecycle: audit trail, error funnel, health
// (no key), auth, cached reads, body parsing with limits, routes. Every route of the shared table
// (shared/api-routes.ts) is registered by route-table.ts with its handler from the modules below.
import Koa from 'koa';
import Router from '@koa/router';
import type { Core } from '../core/core.js';
import { authenticate } from './auth.js';
import { serveConsole } from './console.js';
import { sessionLayer, sessionRoutes } from './session.js';
import { jsonBody } from './body.js';
import { ResponseCache } from './response-cache.js';
import { indexRoutes, routesIfMatchable } from './route-index.js';
import { errorFunnel, type Logger, type Unavailable } from './errors.js';
import type { AppServices, HookBase } from './route-module.js';
import { mergeHandlers, registerRoutes, route } from './route-table.js';
import { apiPath } from '../../shared/api-routes.js';
import { aiRoutes } from './routes/ai.js';
import { auditRoutes } from './routes/audit.js';
import { auditTrail } from './audit.js';
import { backupStorageRoutes } from './routes/backup-storage.js';
import { serverBackupRoutes } from './routes/server-backups.js';
import { backupRoutes } from './routes/backups.js';
import { volumeBackupRoutes } from './routes/volume-backups.js';
import { jobRoutes } from './routes/jobs.js';
import { checkRoutes } from './routes/checks.js';
import { buildPlanRoutes } from './routes/build-plan.js';
import { databaseRoutes } from './routes/databases.js';
import { deploymentRoutes } from './routes/deployments.js';
import { domainRoutes } from './routes/domains.js';
import { envRoutes } from './routes/env.js';
import { execRoutes } from './routes/exec.js';
import { swarmRoutes } from './routes/swarm.js';
import { eventRoutes } from './routes/events.js';
import { keyRoutes } from './routes/keys.js';
import { metricsRoutes } from './routes/metrics.js';
import { diskRoutes } from './routes/disk.js';
import { quotaRoutes } from './routes/quotas.js';
import { statusPageRoutes } from './routes/status-pages.js';
import { notificationRoutes } from './routes/notifications.js';
import { projectRoutes } from './routes/projects.js';
import { serviceRoutes } from './routes/services.js';
import { systemRoutes } from './routes/system.js';
import { webhookRoutes } from './routes/webhooks.js';
import { generatedNameRoutes } from './routes/generated-names.js';
import { composeRoutes } from './routes/compose.js';
import type { SseStreams } from './sse-streams.js';
import { requestOrigin } from './request-origin.js';
import { HeavyReads } from './heavy-reads.js';

const HEALTH_PATH = apiPath('health');

const healthRoutes = route('health', { handler: (_req, { version }) => ({ ok: true, version }) });

/** Every route's handler, by route id (a route of the table without one stops the start). */
export const ROUTE_HANDLERS = mergeHandlers(
  healthRoutes,
  keyRoutes,
  projectRoutes,
  serviceRoutes,
  composeRoutes,
  envRoutes,
  domainRoutes,
  generatedNameRoutes,
  deploymentRoutes,
  webhookRoutes,
  eventRoutes,
  metricsRoutes,
  diskRoutes,
  quotaRoutes,
  statusPageRoutes,
  aiRoutes,
  systemRoutes,
  buildPlanRoutes,
  databaseRoutes,
  backupStorageRoutes,
  serverBackupRoutes,
  backupRoutes,
  volumeBackupRoutes,
  jobRoutes,
  checkRoutes,
  notificationRoutes,
  execRoutes,
  swarmRoutes,
  sessionRoutes,
  auditRoutes,
);

export interface AppDeps {
  core: Core;
  version: string;
  log: Logger;
  /** Errors that mean the Docker Engine is down: answered 503 with this message instead of 500. */
  unavailable?: Unavailable;
  /** Changes whenever stored data may have changed (see store/read-cache.ts). */
  storeVersion: () => string;
  /** Open event streams per key. */
  sse: SseStreams;
  /** How often an idle event stream is pinged. */
  pingMs: number;
  /** The built web console (dist/console), served at `/`; a short page says when it is missing. */
  consoleDir?: string;
  /** Where git hosts send deploy-on-push deliveries (default: the origin a request came to). */
  hookBase?: HookBase;
  /** Largest accepted JSON body. */
  bodyLimit?: string;
}

export function createApp(deps: AppDeps): Koa {
  const app = new Koa();
  app.silent = true; // the funnel logs what matters; Koa's default handler would print 4xx noise

  const cache = new ResponseCache(deps.storeVersion);
  const services: AppServices = {
    core: deps.core,
    cache,
    sse: deps.sse,
    pingMs: deps.pingMs,
    hookBase: deps.hookBase ?? (async (ctx) => requestOrigin(ctx)),
    heavyReads: new HeavyReads(),
    version: deps.version,
  };
  const api = new Router();
  const open = new Router(); // routes without a key that read their own body (git hosts' deliveries)
  registerRoutes({ api, open }, ROUTE_HANDLERS, services);
  indexRoutes(api); // every API route is registered: match a request against the few it can match

  // outermost: every mutating call's answer, whatever answered it, goes to the audit log
  app.use(auditTrail(deps.core.audit, deps.log));
  app.use(errorFunnel(deps.log, deps.unavailable));
  if (deps.consoleDir !== undefined) app.use(serveConsole(deps.consoleDir));
  app.use(routesIfMatchable(open));
  const bearer = authenticate(deps.core.keys, [HEALTH_PATH]);
  app.use(sessionLayer(deps.core.sessions, deps.sse, bearer, [HEALTH_PATH]));
  app.use(cache.answerCached()); // a read already built for this key scope and store version
  app.use(jsonBody(deps.bodyLimit ?? '1mb'));
  app.use(api.routes());
  app.use(api.allowedMethods({ throw: true }));
  return app;
}
