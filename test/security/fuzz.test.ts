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
import { deepNesting, INVALID_JSON, mutate, pick, PROTOTYPE_KEYS, randomObject, randomValue, seededRng, withOddNumber, WRONG_CONTENT_TYPES, type Rng, type Strings } from '../helpers/fuzz-bodies.js';
import { endpoints, type Endpoint, type Ids } from '../helpers/fuzz-endpoints.js';
import { until, waitForDeployment } from '../helpers/wait.js';

const TOTAL = Number(process.env.BERTH_FUZZ_COUNT ?? 3000);
const CONCURRENCY = 4;
/** Upstream failures that are answers, not faults: the provider or the git server is down. */
const UPSTREAM_CODES = new Set(['provider_error', 'source_unavailable']);

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
