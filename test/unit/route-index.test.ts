// The route index (daemon/http/route-index.ts) narrows which layers @koa/router tests; it must
// never change what a request matches. Two routers with the same routes, one indexed, must answer
// every path and method alike: the API's own route shapes, middleware layers, and paths that
// differ in case, trailing slash, encoding and segment count.
import Router from '@koa/router';
import { expect } from 'chai';
import { indexRoutes } from '../../daemon/http/route-index.js';

const ROUTES: [string, string][] = [
  ['get', '/api/health'],
  ['get', '/api/projects'],
  ['post', '/api/projects'],
  ['get', '/api/projects/:projectSlug'],
  ['patch', '/api/projects/:projectId'],
  ['delete', '/api/projects/:projectId'],
  ['post', '/api/projects/:projectId/services'],
  ['get', '/api/projects/:projectId/database-variable-suggestions'],
  ['get', '/api/services/:serviceId/overview'],
  ['patch', '/api/services/:serviceId'],
  ['delete', '/api/services/:serviceId'],
  ['post', '/api/services/:serviceId/transfer'],
  ['get', '/api/services/:serviceId/env'],
  ['put', '/api/services/:serviceId/env/:envId'],
  ['delete', '/api/services/:serviceId/env/:envId'],
  ['get', '/api/services/:serviceId/domains/:domainId/dns-records'],
  ['get', '/api/services/:serviceId/runtime-logs/stream'],
  ['get', '/api/deployments/:deploymentId/logs'],
  ['post', '/api/deployments/:deploymentId/abort'],
  ['get', '/api/system/settings'],
  ['post', '/api/system/notifications/:channelId/test'],
  ['get', '/api/files/:name.json'],
  ['get', '/api/wild/*rest'],
  ['get', '/api/optional{/:part}'],
  ['get', '/'],
];

const PATHS = [
  '/',
  '/api/health',
  '/api/health/',
  '/API/Health',
  '/api/healthz',
  '/api/projects',
  '/api/projects/',
  '/api/projects/p1',
  '/api/projects/P1/',
  '/api/projects/p1/services',
  '/api/projects/p1/services/',
  '/api/projects/p1/Services',
  '/api/projects/p1/database-variable-suggestions',
  '/api/projects//services',
  '/api/services/abc/overview',
  '/api/services/abc/overview/',
  '/api/services/abc/OVERVIEW',
  '/api/services/a%2Fb/overview',
  '/api/services/abc/overview/extra',
  '/api/services/abc',
  '/api/services/',
  '/api/services',
  '/api/services/abc/env/e1',
  '/api/services/abc/env/',
  '/api/services/abc/domains/d1/dns-records',
  '/api/services/abc/runtime-logs/stream',
  '/api/deployments/d1/logs',
  '/api/deployments/d1/abort',
  '/api/system/settings',
  '/api/system/notifications/c1/test',
  '/api/files/report.json',
  '/api/wild/a/b/c',
  '/api/optional',
  '/api/optional/x',
  '/nothing/here',
  '',
];

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

function build(indexed: boolean): Router {
  const router = new Router();
  router.use('/api/services', async (_ctx, next) => next());
  for (const [method, path] of ROUTES) (router as unknown as Record<string, (p: string, h: () => void) => void>)[method]!(path, () => undefined);
  router.use(async (_ctx, next) => next());
  if (indexed) indexRoutes(router);
  return router;
}

type MatchResult = { path: unknown[]; pathAndMethod: unknown[]; route: boolean };

function positions(router: Router, result: MatchResult): { path: number[]; pathAndMethod: number[]; route: boolean } {
  const stack = (router as unknown as { stack: unknown[] }).stack;
  return { path: result.path.map((l) => stack.indexOf(l)), pathAndMethod: result.pathAndMethod.map((l) => stack.indexOf(l)), route: result.route };
}

describe('route index', () => {
  it('matches exactly the layers the router alone matches, for every path and method', () => {
    const plain = build(false);
    const indexed = build(true);
    let matchedSomewhere = 0;
    for (const path of PATHS) {
      for (const method of METHODS) {
        const want = positions(plain, plain.match(path, method) as unknown as MatchResult);
        const got = positions(indexed, indexed.match(path, method) as unknown as MatchResult);
        expect(got, `${method} ${path}`).to.deep.equal(want);
        if (want.route) matchedSomewhere++;
      }
    }
    expect(matchedSomewhere, 'paths that reach a route').to.be.greaterThan(40);
  });

  it('still sees routes registered after indexing', () => {
    const router = build(true);
    router.get('/api/late/:id', () => undefined);
    expect((router.match('/api/late/7', 'GET') as unknown as MatchResult).route).to.equal(true);
  });
});
