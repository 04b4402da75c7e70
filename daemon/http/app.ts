// createApp(deps): the Koa app. Middleware order is the request lifecycle: error funnel, health
// (no key), auth, body parsing with limits, routes.
import Koa from 'koa';
import Router from '@koa/router';
import type { Core } from '../core/core.js';
import type { SessionService } from '../core/sessions.js';
import { authenticate } from './auth.js';
import { serveConsole } from './console.js';
import { sessionLayer, sessionRoutes } from './session.js';
import { jsonBody } from './body.js';
import { ResponseCache } from './response-cache.js';
import { indexRoutes } from './route-index.js';
import { errorFunnel, type Logger } from './errors.js';
import { deploymentRoutes, type StreamDeps } from './routes/deployments.js';
import { domainRoutes } from './routes/domains.js';
import { envRoutes } from './routes/env.js';
import { keyRoutes } from './routes/keys.js';
import { projectRoutes } from './routes/projects.js';
import { serviceRoutes } from './routes/services.js';
import { hookRoutes, webhookRoutes, type HookBase } from './routes/webhooks.js';

const HEALTH_PATH = '/api/health';

export interface AppDeps {
  core: Core;
  version: string;
  log: Logger;
  /** Changes whenever stored data may have changed (see store/read-cache.ts). */
  storeVersion: () => string;
  streams: StreamDeps;
  /** More route groups, each given the API router (system settings, metrics, ...). */
  moreRoutes?: ((router: Router) => void)[];
  /** The built web console (dist/console), served at `/`; a short page says when it is missing. */
  consoleDir?: string;
  /** Console sessions (cookie sign-in); without them only Bearer keys authenticate. */
  sessions?: SessionService;
  /** Where git hosts send deploy-on-push deliveries (default: the origin a request came to). */
  hookBase?: HookBase;
  /** Largest accepted JSON body. */
  bodyLimit?: string;
}

export function createApp(deps: AppDeps): Koa {
  const app = new Koa();
  app.silent = true; // the funnel logs what matters; Koa's default handler would print 4xx noise

  const api = new Router();
  api.get(HEALTH_PATH, (ctx) => {
    ctx.body = { ok: true, version: deps.version };
  });
  const cache = new ResponseCache(deps.storeVersion);
  keyRoutes(api, deps.core);
  projectRoutes(api, deps.core, cache);
  serviceRoutes(api, deps.core, cache);
  envRoutes(api, deps.core);
  domainRoutes(api, deps.core);
  deploymentRoutes(api, deps.core, cache, deps.streams);
  webhookRoutes(api, deps.core, deps.hookBase ?? (async (ctx) => `${ctx.protocol}://${ctx.host}`));
  // The one route without an API key (a git host's signed delivery), before the key check.
  const open = new Router();
  hookRoutes(open, deps.core);
  for (const register of deps.moreRoutes ?? []) register(api);
  const streams = deps.streams.sse;
  if (deps.sessions) sessionRoutes(deps.sessions, streams)(api);
  indexRoutes(api); // every API route is registered: match a request against the few it can match

  app.use(errorFunnel(deps.log));
  if (deps.consoleDir !== undefined) app.use(serveConsole(deps.consoleDir));
  app.use(open.routes());
  const bearer = authenticate(deps.core.keys, [HEALTH_PATH]);
  app.use(deps.sessions ? sessionLayer(deps.sessions, streams, bearer, [HEALTH_PATH]) : bearer);
  app.use(jsonBody(deps.bodyLimit ?? '1mb'));
  app.use(api.routes());
  app.use(api.allowedMethods({ throw: true }));
  return app;
}
