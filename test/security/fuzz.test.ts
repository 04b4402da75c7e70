// A bounded fuzz of every mutating endpoint (and the GETs that take input), with an all-projects
// key and a selected-projects key: a few thousand hostile bodies from a seeded PRNG (the seed is
// printed; BERTH_FUZZ_SEED replays one). Every answer must be a 2xx/4xx (or a 502 naming an
// upstream that is down: Berth points providers and clones at a closed loopback port here), no
// connection may drop, the daemon keeps answering /api/health within 1 s, it logs no internal error,
// and no prototype is polluted. Endpoints that would run real work thousands of times are capped
// (deployments, build plans) or only ever addressed with ids that do not exist (deletes, restores).
import { expect } from 'chai';
import { randomInt } from 'node:crypto';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDatabaseImages } from '../helpers/databases.js';
import { uniq } from '../helpers/fixtures.js';
import {
  deepNesting,
  INVALID_JSON,
  LOCAL_URLS,
  mutate,
  pick,
  PROTOTYPE_KEYS,
  randomObject,
  randomString,
  randomValue,
  seededRng,
  withOddNumber,
  WRONG_CONTENT_TYPES,
  type Rng,
  type Strings,
} from '../helpers/fuzz-bodies.js';
import { until, waitForDeployment } from '../helpers/wait.js';

const TOTAL = Number(process.env.BERTH_FUZZ_COUNT ?? 3000);
const CONCURRENCY = 4;
/** Upstream failures that are answers, not faults: the provider or the git server is down. */
const UPSTREAM_CODES = new Set(['provider_error', 'source_unavailable']);

interface Ids {
  projectA: string;
  projectB: string;
  gitA: string;
  imageA: string;
  redisA: string;
  pgA: string;
  workerA: string;
  gitB: string;
  envA: string;
  domainA: string;
  deploymentA: string;
}

const BOGUS = ['nope', '00000000-0000-0000-0000-000000000000', 'x'.repeat(300), '%2e%2e', '..', '%00', '__proto__', 'constructor', encodeURIComponent('名前'), '%F0%9F%9A%80'];

interface Endpoint {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: (rng: Rng) => string;
  /** A body that is right or nearly so; null for endpoints that take none. */
  template: (rng: Rng) => Record<string, unknown> | null;
  /** Fields that may make the daemon dial out: always loopback (a missing baseUrl means the real provider's). */
  pin?: (rng: Rng, body: Record<string, unknown>) => void;
  /** At most this many requests in one run (real work behind each). */
  cap?: number;
  /** Query strings to fuzz instead of a body. */
  query?: (rng: Rng, s: Strings) => string;
}

function endpoints(ids: Ids, s: Strings): Endpoint[] {
  const real = (rng: Rng, list: string[]) => (rng() < 0.8 ? pick(rng, list) : pick(rng, BOGUS));
  const bogus = (rng: Rng) => pick(rng, BOGUS);
  const project = (rng: Rng) => real(rng, [ids.projectA, ids.projectA, ids.projectB]);
  const service = (rng: Rng) => real(rng, [ids.gitA, ids.imageA, ids.redisA, ids.pgA, ids.workerA, ids.gitB]);
  const database = (rng: Rng) => real(rng, [ids.redisA, ids.redisA, ids.pgA, ids.pgA, ids.gitA]);
  const str = (rng: Rng) => randomString(rng, s);
  const local = (rng: Rng) => (rng() < 0.8 ? pick(rng, LOCAL_URLS) : str(rng));
  const pinUrl = (field: string) => (rng: Rng, body: Record<string, unknown>) => {
    const v = body[field];
    if (typeof v !== 'string' || /^[a-z]+:\/\//i.test(v) || rng() < 0.9)
      body[field] = pick(
        rng,
        LOCAL_URLS.filter((u) => u.startsWith('http')),
      );
  };
  const pinSource = (rng: Rng, body: Record<string, unknown>) => {
    const v = body.sourceUrl;
    if (typeof v === 'string' && /:\/\//.test(v) && !LOCAL_URLS.includes(v as (typeof LOCAL_URLS)[number])) body.sourceUrl = pick(rng, LOCAL_URLS);
  };
  const serviceFields = (rng: Rng) => ({
    name: uniq('fz'),
    repoFullName: pick(rng, ['acme/app', 'database:redis', null, 'image:berth-test/busybox:latest']),
    repoUrl: pick(rng, [undefined, 'http://127.0.0.1:1/acme/app.git', 'database', 'docker-image']),
    dockerImage: pick(rng, [undefined, 'berth-test/busybox:latest']),
    branch: 'main',
    rootDir: pick(rng, [null, 'app']),
    buildMethod: pick(rng, ['auto', 'dockerfile', 'autobuild']),
    runtimeMode: pick(rng, ['web', 'worker', 'static']),
    internalPort: 8080,
    env: [{ key: 'A_KEY', value: str(rng) }],
    limits: { memoryMb: 256, cpus: 0.5, pids: 64 },
  });
  const db = '/database';
  return [
    { method: 'POST', path: () => '/api/projects', template: (rng) => ({ name: uniq('fz'), description: str(rng) }) },
    { method: 'PATCH', path: (rng) => `/api/projects/${project(rng)}`, template: (rng) => ({ name: uniq('fz'), description: str(rng) }) },
    { method: 'DELETE', path: (rng) => `/api/projects/${bogus(rng)}`, template: () => null },
    { method: 'POST', path: (rng) => `/api/projects/${project(rng)}/services`, template: serviceFields },
    {
      method: 'PATCH',
      path: (rng) => `/api/services/${service(rng)}`,
      template: (rng) => {
        const { name: _n, repoFullName: _r, repoUrl: _u, dockerImage: _d, env: _e, ...rest } = serviceFields(rng);
        return rest;
      },
    },
    { method: 'POST', path: (rng) => `/api/services/${service(rng)}/transfer`, template: (rng) => ({ targetProjectId: project(rng) }) },
    { method: 'DELETE', path: (rng) => `/api/services/${bogus(rng)}`, template: () => null },
    { method: 'POST', path: (rng) => `/api/services/${service(rng)}/env`, template: (rng) => ({ key: pick(rng, ['A_KEY', 'FUZZ', 'PORT']), value: str(rng) }) },
    { method: 'DELETE', path: (rng) => `/api/services/${service(rng)}/env/${real(rng, [ids.envA])}`, template: () => null },
    { method: 'POST', path: (rng) => `/api/services/${service(rng)}/domains`, template: () => ({ hostname: `${uniq('d')}.fuzz.test` }) },
    { method: 'PATCH', path: (rng) => `/api/services/${service(rng)}/domains/${real(rng, [ids.domainA])}`, template: () => ({ hostname: `${uniq('d')}.fuzz.test` }) },
    { method: 'DELETE', path: (rng) => `/api/services/${service(rng)}/domains/${bogus(rng)}`, template: () => null },
    {
      method: 'POST',
      path: (rng) => `/api/services/${service(rng)}/domains/${real(rng, [ids.domainA])}/dns-records`,
      template: (rng) => ({ providerId: pick(rng, ['cloudflare', 'namecheap', 'spaceship', 'nope']) }),
    },
    // each accepted one clones from a closed port and fails at once; databases and images are never redeployed here
    { method: 'POST', path: (rng) => `/api/services/${real(rng, [ids.gitA, ids.gitB])}/deployments`, template: (rng) => ({ branch: pick(rng, ['main', 'dev']), force: true }), cap: 25 },
    { method: 'POST', path: (rng) => `/api/deployments/${real(rng, [ids.deploymentA])}/abort`, template: () => null },
    {
      method: 'POST',
      path: (rng) => `/api/deployments/${real(rng, [ids.deploymentA])}/explain-failure`,
      template: (rng) => ({ providerId: pick(rng, ['local', 'fuzz-provider', 'nope']), model: 'm' }),
    },
    { method: 'POST', path: () => '/api/keys', template: (rng) => ({ name: 'fz', access: pick(rng, ['read', 'write']), projects: rng() < 0.5 ? 'all' : [ids.projectA] }) },
    { method: 'DELETE', path: (rng) => `/api/keys/${bogus(rng)}`, template: () => null },
    {
      method: 'PATCH',
      path: () => '/api/system/settings',
      template: (rng) => ({ rootDomain: 'fuzz.test', publicIp: '10.0.0.1', acmeEmail: 'ops@fuzz.test', httpsMode: pick(rng, ['acme', 'internal', 'http']), dashboardHostname: 'berth.fuzz.test' }),
    },
    {
      method: 'PUT',
      path: (rng) => `/api/system/dns-providers/${pick(rng, ['cloudflare', 'namecheap', 'spaceship', 'nope'])}`,
      template: (rng) => ({ apiToken: str(rng), apiUser: 'u', apiKey: 'k', username: 'u', clientIp: '10.0.0.1', apiSecret: 's' }),
      pin: pinUrl('baseUrl'),
    },
    { method: 'DELETE', path: (rng) => `/api/system/dns-providers/${pick(rng, ['cloudflare', 'namecheap', 'spaceship', 'nope'])}`, template: () => null },
    {
      method: 'PUT',
      path: (rng) => `/api/system/ai-providers/${pick(rng, ['fuzz-provider', 'local', 'Bad Id', 'x'.repeat(50)])}`,
      template: (rng) => ({ kind: pick(rng, ['openai', 'anthropic', 'gemini']), name: 'fz', apiKey: 'sk-fuzz', defaultModel: 'm' }),
      pin: pinUrl('baseUrl'),
    },
    { method: 'DELETE', path: (rng) => `/api/system/ai-providers/${pick(rng, ['fuzz-provider', 'local', 'nope'])}`, template: () => null },
    {
      method: 'PUT',
      path: () => '/api/system/backup-storage',
      template: (rng) => ({ region: 'us-east-1', bucket: 'fz', prefix: str(rng), accessKeyId: 'AKIAFUZZ', secretAccessKey: 's', forcePathStyle: true }),
      pin: pinUrl('endpoint'),
    },
    { method: 'DELETE', path: () => '/api/system/backup-storage', template: () => null },
    { method: 'POST', path: (rng) => `/api/services/${database(rng)}${db}/query`, template: (rng) => ({ sql: pick(rng, ['SELECT 1', 'PING', 'GET k', 'SELECT * FROM kept']) }) },
    { method: 'POST', path: (rng) => `/api/services/${database(rng)}${db}/rows`, template: (rng) => ({ table: pick(rng, ['public.kept', 'h', 'k']), values: { note: str(rng), f: 'v' } }) },
    {
      method: 'PATCH',
      path: (rng) => `/api/services/${database(rng)}${db}/rows`,
      template: (rng) => ({ table: pick(rng, ['public.kept', 'h']), primaryKey: { id: 1, field: 'f' }, values: { note: str(rng) } }),
    },
    { method: 'DELETE', path: (rng) => `/api/services/${database(rng)}${db}/rows`, template: (rng) => ({ table: pick(rng, ['public.kept', 'h']), primaryKey: { id: 2 } }) },
    { method: 'POST', path: (rng) => `/api/services/${database(rng)}${db}/backups`, template: (rng) => ({ storage: pick(rng, ['disk', 'remote', 'disk+remote']) }) },
    {
      method: 'PATCH',
      path: (rng) => `/api/services/${database(rng)}${db}/backups/settings`,
      template: (rng) => ({ storage: 'disk', automaticEnabled: rng() < 0.5, dailyEnabled: true, weeklyEnabled: false, monthlyEnabled: false, keepDaily: 7, keepWeekly: 4, keepMonthly: 12 }),
    },
    { method: 'POST', path: (rng) => `/api/services/${database(rng)}${db}/backups/${bogus(rng)}/restore`, template: () => null },
    { method: 'DELETE', path: (rng) => `/api/services/${database(rng)}${db}/backups/${bogus(rng)}`, template: () => null },
    { method: 'POST', path: (rng) => `/api/services/${database(rng)}${db}/import/postgres-url`, template: (rng) => ({ sourceUrl: local(rng) }), pin: pinSource },
    { method: 'POST', path: (rng) => `/api/services/${database(rng)}${db}/import/redis-url`, template: (rng) => ({ sourceUrl: local(rng) }), pin: pinSource },
    // GETs that take input: the build plan clones (from a closed port), rows and tables read query strings
    { method: 'GET', path: (rng) => `/api/services/${real(rng, [ids.gitA, ids.imageA, ids.pgA])}/build-plan`, template: () => null, cap: 15 },
    {
      method: 'GET',
      path: (rng) => `/api/services/${database(rng)}${db}/rows`,
      template: () => null,
      query: (rng, st) => {
        const params = new URLSearchParams();
        for (const k of ['table', 'limit', 'offset', 'after', 'database'])
          if (rng() < 0.7) params.append(k, rng() < 0.5 ? JSON.stringify(randomValue(rng, st)) : pick(rng, ['public.kept', 'h', 'k', '-1', '1e9', '0', '2']));
        if (rng() < 0.1) params.append('table', 'kept');
        return params.toString();
      },
    },
    {
      method: 'GET',
      path: (rng) => `/api/services/${database(rng)}${db}/tables`,
      template: () => null,
      query: (rng, st) => new URLSearchParams({ database: JSON.stringify(randomValue(rng, st)) }).toString(),
    },
  ];
}

interface Case {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
  scoped: boolean;
  describe: string;
}

function makeCase(rng: Rng, e: Endpoint, s: Strings): Case {
  const headers: Record<string, string> = {};
  let path = e.path(rng);
  if (e.query) path += `?${e.query(rng, s)}`;
  let body: string | undefined;
  let what = 'no body';
  const template = e.template(rng);
  if (e.method !== 'GET' && (template !== null || rng() < 0.3)) {
    const r = rng();
    let value: unknown;
    if (r < 0.55) value = mutate(rng, s, template ?? {});
    else if (r < 0.7) value = rng() < 0.5 ? randomValue(rng, s) : randomObject(rng, s);
    else if (r < 0.75) value = { ...(template ?? {}), ...Object.fromEntries(PROTOTYPE_KEYS.map((k) => [k, { projects: 'all', access: 'write', polluted: true }])) };
    else value = template ?? {};
    if (e.pin && value !== null && typeof value === 'object' && !Array.isArray(value)) e.pin(rng, value as Record<string, unknown>);
    body = JSON.stringify(value);
    what = 'json';
    headers['content-type'] = 'application/json';
    const m = rng();
    if (r >= 0.75 && m < 0.3) [body, what] = [pick(rng, INVALID_JSON), 'invalid json'];
    else if (r >= 0.75 && m < 0.45) [body, what] = [withOddNumber(rng, body), 'odd number'];
    else if (r >= 0.75 && m < 0.6) [body, what] = [deepNesting(rng), 'deep nesting'];
    else if (r >= 0.75 && m < 0.75) [headers['content-type'], what] = [pick(rng, WRONG_CONTENT_TYPES), 'content type'];
    else if (r >= 0.75 && m < 0.8) [body, what] = [JSON.stringify({ ...(template ?? {}), pad: 'x'.repeat(1_100_000) }), 'too large'];
    else if (r >= 0.75 && m < 0.85) [headers['content-encoding'], what] = [pick(rng, ['gzip', 'deflate', 'br', 'identity, gzip', 'x-unknown']), 'content encoding'];
    if (headers['content-type'] === '') delete headers['content-type'];
  }
  const scoped = rng() < 0.4;
  return { method: e.method, path, headers, body, scoped, describe: `${e.method} ${path.slice(0, 160)} [${what}${scoped ? ', selected-projects key' : ''}] ${(body ?? '').slice(0, 200)}` };
}

describe('security: bounded fuzz of every mutating endpoint', function () {
  this.timeout(600_000);
  let t: TestDaemon;
  let ids: Ids;
  let scopedToken: string;
  let adminToken: string;

  before(async function () {
    this.timeout(600_000);
    const images = requireDatabaseImages();
    t = await startTestDaemon({ ...images, BERTH_GIT_BASE_URL: 'http://127.0.0.1:1', BERTH_HEALTH_TIMEOUT: '5' });
    const admin = t.admin;
    const projectA = (await admin.createProject({ name: uniq('fuzz-a') })).project.id;
    const projectB = (await admin.createProject({ name: uniq('fuzz-b') })).project.id;
    const svc = async (projectId: string, input: Parameters<typeof admin.createService>[1]) => (await admin.createService(projectId, input)).service;
    const gitA = await svc(projectA, { name: 'web', repoUrl: 'http://127.0.0.1:1/acme/app.git', internalPort: 8080, env: [{ key: 'A_KEY', value: 'v' }] });
    const imageA = await svc(projectA, { name: 'img', repoUrl: 'docker-image', dockerImage: 'berth-test/busybox:latest', internalPort: 8080 });
    const redisA = await svc(projectA, { name: 'cache', repoFullName: 'database:redis', repoUrl: 'database' });
    const pgA = await svc(projectA, { name: 'db', repoFullName: 'database:postgres', repoUrl: 'database' });
    const workerA = await svc(projectA, { name: 'jobs', repoUrl: 'http://127.0.0.1:1/acme/jobs.git', runtimeMode: 'worker' });
    const gitB = await svc(projectB, { name: 'other', repoUrl: 'http://127.0.0.1:1/acme/other.git', internalPort: 8080 });
    const { domain } = await admin.addDomain(gitA.id, `${uniq('web')}.fuzz.test`);
    const envA = (await admin.overview(gitA.id)).env[0]!.id;
    const deploymentA = (await admin.deploy(gitA.id)).deployment.id;
    await waitForDeployment(admin, gitA.id, deploymentA, ['failed']);
    for (const dbService of [redisA, pgA]) {
      const dep = (await admin.deploy(dbService.id)).deployment;
      await waitForDeployment(admin, dbService.id, dep.id, ['running'], 300_000);
    }
    await admin.databaseQuery(pgA.id, "CREATE TABLE kept (id int PRIMARY KEY, note text); INSERT INTO kept VALUES (1, 'one')").catch(async () => {
      await admin.databaseQuery(pgA.id, 'CREATE TABLE kept (id int PRIMARY KEY, note text)');
      await admin.databaseQuery(pgA.id, "INSERT INTO kept VALUES (1, 'one')");
    });
    await admin.databaseQuery(redisA.id, 'HSET h f v');
    ids = { projectA, projectB, gitA: gitA.id, imageA: imageA.id, redisA: redisA.id, pgA: pgA.id, workerA: workerA.id, gitB: gitB.id, envA, domainA: domain.id, deploymentA };
    adminToken = (await admin.createKey({ name: 'fuzz admin', access: 'write', projects: 'all' })).token;
    scopedToken = (await admin.createKey({ name: 'fuzz scoped', access: 'write', projects: [projectA] })).token;
  });
  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    // stop() fails when the daemon logged an internal error
    await t?.stop();
  });

  it('answers every hostile body with a 2xx or 4xx, drops no connection and keeps serving health', async () => {
    const seed = process.env.BERTH_FUZZ_SEED ? Number(process.env.BERTH_FUZZ_SEED) : randomInt(2 ** 31);
    console.log(`      fuzz seed ${seed} (replay with BERTH_FUZZ_SEED=${seed}), ${TOTAL} requests`);
    const rng = seededRng(seed);
    const strings: Strings = {
      ids: Object.values(ids),
      fields: [
        ...new Set([
          'name',
          'description',
          'repoFullName',
          'repoUrl',
          'dockerImage',
          'branch',
          'rootDir',
          'githubToken',
          'installCommand',
          'buildCommand',
          'startCommand',
          'staticOutput',
          'buildMethod',
          'dockerfilePath',
          'runtimeMode',
          'internalPort',
          'databasePublicEnabled',
          'databasePublicHostname',
          'postgresLogicalReplicationEnabled',
          'env',
          'limits',
          'memoryMb',
          'cpus',
          'pids',
          'key',
          'value',
          'hostname',
          'providerId',
          'model',
          'access',
          'projects',
          'targetProjectId',
          'force',
          'rootDomain',
          'publicIp',
          'acmeEmail',
          'httpsMode',
          'dashboardHostname',
          'apiToken',
          'apiUser',
          'apiKey',
          'username',
          'clientIp',
          'apiSecret',
          'kind',
          'defaultModel',
          'region',
          'bucket',
          'prefix',
          'accessKeyId',
          'secretAccessKey',
          'forcePathStyle',
          'sql',
          'database',
          'table',
          'values',
          'primaryKey',
          'storage',
          'automaticEnabled',
          'keepDaily',
          '$bigint',
          '$decimal',
          '$bytes',
          '$date',
          '$oid',
        ]),
      ],
    };
    const list = endpoints(ids, strings);
    const used = new Map<Endpoint, number>();
    const cases: Case[] = [];
    while (cases.length < TOTAL) {
      const e = pick(rng, list);
      if (e.cap !== undefined && (used.get(e) ?? 0) >= e.cap) continue;
      used.set(e, (used.get(e) ?? 0) + 1);
      cases.push(makeCase(rng, e, strings));
    }

    const failures: string[] = [];
    const statuses = new Map<number, number>();
    const noRoute: string[] = [];
    let next = 0;
    let done = 0;
    const worker = async () => {
      while (next < cases.length) {
        const c = cases[next++]!;
        const headers = { ...c.headers, authorization: `Bearer ${c.scoped ? scopedToken : adminToken}` };
        try {
          const res = await fetch(t.url + c.path, { method: c.method, headers, body: c.body, signal: AbortSignal.timeout(60_000) });
          const text = await res.text();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 404 && text.includes('no route')) noRoute.push(c.describe);
          if (res.status >= 500) {
            let code = '';
            try {
              code = (JSON.parse(text) as { error?: { code?: string } }).error?.code ?? '';
            } catch {
              // not JSON: a fault
            }
            if (!(res.status === 502 && UPSTREAM_CODES.has(code))) failures.push(`${res.status} ${text.slice(0, 200)} <- ${c.describe}`);
          }
        } catch (err) {
          failures.push(`connection: ${(err as Error).message} (${String((err as { cause?: unknown }).cause ?? '')}) <- ${c.describe}`);
        }
        if (++done % 250 === 0) {
          const health = await fetch(`${t.url}/api/health`, { signal: AbortSignal.timeout(1000) }).catch((err: Error) => err);
          if (health instanceof Error || health.status !== 200) failures.push(`health did not answer within 1 s after ${done} requests`);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    console.log(
      `      statuses: ${[...statuses]
        .sort(([a], [b]) => a - b)
        .map(([s, n]) => `${s}x${n}`)
        .join(' ')}; ${noRoute.length} answered "no route"`,
    );
    if (process.env.BERTH_FUZZ_VERBOSE) console.log(noRoute.slice(0, 20).join('\n'));

    expect(failures.length, `seed ${seed}, ${failures.length} failure(s):\n${failures.slice(0, 30).join('\n')}`).to.equal(0);
    const health = await fetch(`${t.url}/api/health`, { signal: AbortSignal.timeout(1000) });
    expect(health.status).to.equal(200);
    // nothing reached Object.prototype in the daemon (it runs in this process)
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    expect(({} as Record<string, unknown>).projects).to.equal(undefined);
    // the keys still mean what they meant
    await until('the scoped key to still be scoped', async () => (await fetch(`${t.url}/api/projects/${ids.projectB}`, { headers: { authorization: `Bearer ${scopedToken}` } })).status === 404, 5000);
  });
});
