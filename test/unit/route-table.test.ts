// The route table (shared/api-routes.ts) is the one list of API routes: the daemon's routers hold
// exactly its routes, a route without a handler (or a handler without a route) stops the start, the
// desktop allow-list admits exactly the desktop's routes, and every path the console and the
// client call is a route of the table with that method.
import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import Router from '@koa/router';
import type Koa from 'koa';
import { API_ROUTES, apiPath, desktopReaches, matchRoute, type ApiRoute } from '../../shared/api-routes.js';
import { createApp, ROUTE_HANDLERS } from '../../daemon/http/app.js';
import { registerRoutes, tableMismatches, type RouteHandlers } from '../../daemon/http/route-table.js';
import type { AppServices } from '../../daemon/http/route-module.js';
import type { Core } from '../../daemon/core/core.js';
import { SseStreams } from '../../daemon/http/sse-streams.js';
import { isAllowedDownload, isAllowedPostStream, isAllowedRequest, isAllowedStream, isAllowedWebSocket } from '../../desktop/main/routes.js';
import { REPO_ROOT } from '../helpers/repo-root.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const key = (method: string, path: string) => `${method} ${path}`;
const tableKeys = () => API_ROUTES.map((r) => key(r.method, r.path)).sort();
/** A concrete path of a route: every `:name` becomes a plain segment. */
const concrete = (path: string) => path.replace(/:[A-Za-z_$][A-Za-z0-9_$]*/g, 'abc123');

interface Layer {
  path: string;
  methods: string[];
  name: string | undefined;
}

/** The layers of every router the app mounts (the key-checked API and the open hooks router). */
function routerLayers(app: Koa): Layer[] {
  return app.middleware.flatMap((mw) => (mw as { router?: { stack: Layer[] } }).router?.stack ?? []);
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return /\.tsx?$/.test(name) ? [full] : [];
  });
}

interface Call {
  where: string;
  /** The method written before the path (several when it is a conditional one); GET when none is. */
  methods: string[];
  /** A literal path (a template's `${...}` parts as `[^/]*`), or null for an apiPath call. */
  pattern: RegExp | null;
  id: string | null;
}

/**
 * The text before `index` on its line, and on the lines above it while they end an argument (`,` or
 * `(`): a call the formatter spread over several lines keeps its method on an earlier line.
 */
function argumentsBefore(text: string, index: number): string {
  let start = text.lastIndexOf('\n', index - 1) + 1;
  for (let i = 0; i < 3 && start > 1; i++) {
    const prevStart = text.lastIndexOf('\n', start - 2) + 1;
    if (!/[,(]\s*$/.test(text.slice(prevStart, start - 1))) break;
    start = prevStart;
  }
  return text.slice(start, index);
}

/** The API calls in a source file: quoted `/api/...` paths and `apiPath('id', ...)` calls, with the method written just before (else GET). */
function callsIn(file: string): Call[] {
  const text = readFileSync(file, 'utf8');
  const calls: Call[] = [];
  const found = /(?:(['"`])(\/api\/(?:[^'"`$\\]|\$\{[^}]*\})*)\1)|apiPath\(\s*'([^']+)'/g;
  for (let m = found.exec(text); m; m = found.exec(text)) {
    // the method written just before, or the methods of a conditional (`isNew ? 'POST' : 'PATCH', isNew ? ...`) before it
    const line = argumentsBefore(text, m.index);
    const direct = /'(GET|POST|PUT|PATCH|DELETE)',\s*$/.exec(line)?.[1];
    const written = [...line.slice(-200).matchAll(/'(GET|POST|PUT|PATCH|DELETE)'/g)].map((x) => x[1]!);
    // the transport's postStream is a POST whose answer is events (exec.start)
    const postStream = /postStream\(\s*$/.test(text.slice(Math.max(0, m.index - 40), m.index));
    const methods = postStream ? ['POST'] : direct !== undefined ? [direct] : written.length > 0 ? written : ['GET'];
    const where = `${relative(REPO_ROOT, file)}:${text.slice(0, m.index).split('\n').length}`;
    if (m[3] !== undefined) {
      calls.push({ where, methods, pattern: null, id: m[3] });
      continue;
    }
    const path = m[2]!.split('?')[0]!;
    const source = path
      .split(/\$\{[^}]*\}/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^/]*');
    calls.push({ where, methods, pattern: new RegExp(`^${source}$`), id: null });
  }
  return calls;
}

/** The table routes a call can be (its method, a path its pattern matches), or the one its id names. */
function routesOf(call: Call): ApiRoute[] {
  const methods: readonly string[] = call.methods;
  if (call.id !== null) return API_ROUTES.filter((r) => r.id === call.id && methods.includes(r.method));
  return API_ROUTES.filter((r) => methods.includes(r.method) && call.pattern!.test(r.path));
}

describe('the route table', () => {
  it('has one route per id and per method and path', () => {
    expect(new Set(API_ROUTES.map((r) => r.id)).size).to.equal(API_ROUTES.length);
    expect(new Set(tableKeys()).size).to.equal(API_ROUTES.length);
  });

  it('the daemon registers exactly the routes of the table, each named by its id', () => {
    const core = { keys: {}, sessions: {} } as unknown as Core;
    const app = createApp({
      core,
      version: 'test',
      log: { error() {}, warn() {}, info() {} } as never,
      storeVersion: () => '1',
      sse: new SseStreams(
        () => '1',
        () => undefined,
      ),
      pingMs: 1000,
    });
    const layers = routerLayers(app);
    const registered = layers.map((l) => key(l.methods.filter((m) => m !== 'HEAD')[0]!, l.path)).sort();
    expect(registered).to.deep.equal(tableKeys());
    for (const l of layers) expect(matchRoute(l.methods.find((m) => m !== 'HEAD')!, l.path)?.id).to.equal(l.name);
  });

  it('every route has a handler and every handler a route; a difference stops the registration', () => {
    expect(tableMismatches(ROUTE_HANDLERS)).to.deep.equal([]);
    const routers = () => ({ api: new Router(), open: new Router() });
    const { 'env.delete': _dropped, ...missing } = ROUTE_HANDLERS;
    expect(() => registerRoutes(routers(), missing as RouteHandlers, {} as AppServices)).to.throw(/route env\.delete .* has no handler/);
    const extra = { ...ROUTE_HANDLERS, 'env.rename': ROUTE_HANDLERS['env.set'] } as RouteHandlers;
    expect(() => registerRoutes(routers(), extra, {} as AppServices)).to.throw(/handler env\.rename is for no route/);
  });

  it('apiPath fills in and encodes each parameter as one segment, and adds the query', () => {
    expect(apiPath('services.patch', { serviceId: 'a/b c' })).to.equal('/api/services/a%2Fb%20c');
    expect(apiPath('database.rows', { serviceId: 's1' }, { table: 'public.items', limit: 50, after: undefined })).to.equal('/api/services/s1/database/rows?table=public.items&limit=50');
    expect(apiPath('projects.list')).to.equal('/api/projects');
  });
});

describe('the desktop allow-list', () => {
  it('admits every route of the table marked for the desktop, each by its kind, and refuses the others', () => {
    for (const r of API_ROUTES) {
      const path = concrete(r.path);
      const desktop = desktopReaches(r);
      const sse = 'sse' in r && r.sse === true;
      const download = 'download' in r && r.download === true;
      const websocket = 'websocket' in r && r.websocket === true;
      expect(isAllowedRequest(r.method, path), `request ${r.id}`).to.equal(desktop && !sse && !download && !websocket);
      if (r.method === 'GET') {
        expect(isAllowedStream(path), `stream ${r.id}`).to.equal(desktop && sse);
        expect(isAllowedDownload(path), `download ${r.id}`).to.equal(desktop && download);
        expect(isAllowedWebSocket(path), `websocket ${r.id}`).to.equal(desktop && websocket);
      }
      if (r.method === 'POST') expect(isAllowedPostStream(path), `POST stream ${r.id}`).to.equal(desktop && sse);
    }
  });

  it("admits the console's Swarm calls (swarm, nodes, join command, instances) and refuses what only a joining server fetches", () => {
    const console = [
      ['GET', '/api/swarm'],
      ['POST', '/api/swarm'],
      ['DELETE', '/api/swarm'],
      ['GET', '/api/nodes'],
      ['POST', '/api/nodes/join'],
      ['PATCH', '/api/nodes/n1'],
      ['DELETE', '/api/nodes/n1'],
      ['GET', '/api/services/s1/instances'],
    ] as const;
    for (const [method, path] of console) expect(isAllowedRequest(method, path), `${method} ${path}`).to.equal(true);
    // the join script, the registry's CA and the completion are the new server's, authenticated by the token alone
    expect(isAllowedRequest('GET', '/api/nodes/join/tok1/script')).to.equal(false);
    expect(isAllowedRequest('GET', '/api/nodes/join/tok1/ca')).to.equal(false);
    expect(isAllowedRequest('POST', '/api/nodes/join/tok1')).to.equal(false);
  });

  it('admits exec.start as the one POST stream and the terminal as the one websocket, nothing else of either kind', () => {
    const postStreams = API_ROUTES.filter((r) => r.method === 'POST' && isAllowedPostStream(concrete(r.path))).map((r) => r.id);
    const websockets = API_ROUTES.filter((r) => r.method === 'GET' && isAllowedWebSocket(concrete(r.path))).map((r) => r.id);
    expect(postStreams).to.deep.equal(['exec.start']);
    expect(websockets).to.deep.equal(['terminal']);
    expect(isAllowedRequest('GET', '/api/services/s1/terminal'), 'the terminal is no JSON request').to.equal(false);
    expect(isAllowedRequest('POST', '/api/services/s1/exec'), 'exec.start is no JSON request').to.equal(false);
    expect(isAllowedStream('/api/services/s1/exec'), 'exec.start is no GET stream').to.equal(false);
    expect(isAllowedWebSocket('/api/services/s1/terminal?x=1')).to.equal(false);
    expect(isAllowedWebSocket('/api/services/../terminal')).to.equal(false);
    expect(isAllowedWebSocket('/api/services/s1/exec')).to.equal(false);
    expect(isAllowedPostStream('/api/services/s1/terminal')).to.equal(false);
    expect(isAllowedPostStream('/api/events')).to.equal(false);
  });

  it('admits nothing else: no other method on a table path, no phantom route, no odd path', () => {
    for (const r of API_ROUTES) {
      const path = concrete(r.path);
      for (const method of METHODS) if (!matchRoute(method, path)) expect(isAllowedRequest(method, path), `${method} ${path}`).to.equal(false);
    }
    // routes the old hand-written list named that the daemon never had
    expect(isAllowedRequest('PATCH', '/api/services/s1/env/e1')).to.equal(false);
    expect(isAllowedRequest('PUT', '/api/services/s1/database/tls')).to.equal(false);
    expect(isAllowedRequest('GET', '/api/services/s1/database/backups/b1')).to.equal(false);
    expect(isAllowedRequest('GET', '/api/services/s1/database/backups/settings')).to.equal(false);
    expect(isAllowedRequest('POST', '/api/services/s1/database/import/mysql-url')).to.equal(false);
    for (const odd of [
      '/api/services/../keys',
      '/api/services/a%2Fb',
      '/api/services/%2e%2e',
      '/api/services//overview',
      `/api/services/${'a'.repeat(2100)}`,
      '/api/services/a b/overview',
      'http://evil/api/keys',
    ]) {
      expect(isAllowedRequest('DELETE', odd) || isAllowedRequest('GET', odd) || isAllowedRequest('GET', `${odd}/overview`), odd).to.equal(false);
    }
    expect(isAllowedStream('/api/events/../keys')).to.equal(false);
    expect(isAllowedDownload('/api/services/s1/database/backups/b1/download/..')).to.equal(false);
  });

  it('admits the notification routes and the downloads the old list refused or lacked', () => {
    expect(isAllowedRequest('GET', '/api/system/notifications')).to.equal(true);
    expect(isAllowedRequest('POST', '/api/system/notifications/c1/test')).to.equal(true);
    expect(isAllowedDownload('/api/services/s1/database/backups/b1/download')).to.equal(true);
    expect(isAllowedDownload('/api/services/s1/database/tls/ca')).to.equal(true);
  });

  it("admits a volume backup's download as a download only (no JSON request, no query)", () => {
    expect(isAllowedDownload('/api/services/s1/volumes/data/backups/b1/download')).to.equal(true);
    expect(isAllowedRequest('GET', '/api/services/s1/volumes/data/backups/b1/download')).to.equal(false);
    expect(isAllowedDownload('/api/services/s1/volumes/data/backups/b1/download?x=1')).to.equal(false);
  });
});

describe('the clients call only routes of the table', () => {
  it('every API call of the console is a table route with that method, and one the desktop admits (but the browser sign-in)', () => {
    const calls = sources(join(REPO_ROOT, 'desktop/renderer/src')).flatMap(callsIn);
    expect(calls.length, 'the console makes API calls').to.be.greaterThan(40);
    for (const call of calls) {
      const routes = routesOf(call);
      expect(routes, `${call.where}: ${call.methods.join('|')} ${call.id ?? call.pattern}`).to.have.length.greaterThan(0);
      if (!call.where.startsWith('desktop/renderer/src/transport/web.ts')) {
        expect(routes.some(desktopReaches), `${call.where}: the desktop must admit it`).to.equal(true);
      }
    }
  });

  it('shared/client builds no API path by hand: every call names a route of the table', () => {
    const files = [join(REPO_ROOT, 'shared/client.ts'), ...sources(join(REPO_ROOT, 'shared/client'))];
    const calls = files.flatMap(callsIn);
    expect(calls.filter((c) => c.id === null).map((c) => c.where)).to.deep.equal([]);
    for (const file of files) {
      const ids = [...readFileSync(file, 'utf8').matchAll(/this\.api\(\s*(?:'([^']+)'|([^,]+))/g)];
      for (const [, id, expr] of ids) {
        if (id !== undefined)
          expect(
            API_ROUTES.some((r) => r.id === id),
            `${file}: ${id}`,
          ).to.equal(true);
        else expect(expr, `${file}: a computed route id`).to.match(/'imports\.postgres-url' : 'imports\.redis-url'/);
      }
    }
  });
});
