// The endpoints test/security/fuzz.test.ts sends hostile requests to: for each, how to make its
// path (mostly ids of the suite's world, sometimes bogus ones), a body that is right or nearly so,
// which fields must only ever point at loopback, and how many requests a run may send it.
import { uniq } from './fixtures.js';
import { LOCAL_URLS, pick, randomString, randomValue, type Rng, type Strings } from './fuzz-bodies.js';

export interface Ids {
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

export interface Endpoint {
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

export function endpoints(ids: Ids, s: Strings): Endpoint[] {
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
    {
      method: 'PUT',
      path: (rng) => `/api/projects/${project(rng)}/status-page`,
      template: (rng) => ({ hostname: `${uniq('st')}.fuzz.test`, title: str(rng), services: [{ serviceId: real(rng, [ids.gitA, ids.imageA, ids.gitB]), label: str(rng) }], enabled: rng() < 0.5 }),
    },
    { method: 'DELETE', path: (rng) => `/api/projects/${project(rng)}/status-page`, template: () => null },
    { method: 'DELETE', path: (rng) => `/api/projects/${bogus(rng)}`, template: () => null },
    { method: 'POST', path: (rng) => `/api/projects/${project(rng)}/services`, template: serviceFields },
    {
      // compose imports as dry runs only (an import would deploy what the fuzz wrote)
      method: 'POST',
      path: (rng) => `/api/projects/${project(rng)}/compose`,
      template: (rng) => ({
        compose: `services:\n  ${pick(rng, ['web', '__proto__', 'a.b'])}:\n    image: berth-test/busybox:latest\n    environment: { K: ${JSON.stringify(str(rng))} }\n`,
        env: `K=${str(rng)}`,
        dryRun: true,
      }),
      pin: (_rng, body) => {
        body.dryRun = true;
        delete body.repository;
      },
    },
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
    // uptime checks: a target is a domain of the service or its port, never a URL (a `url` field is refused)
    {
      method: 'POST',
      path: (rng) => `/api/services/${service(rng)}/checks`,
      template: (rng) => ({ path: pick(rng, ['/', '/health', '/a?b=1']), intervalSeconds: pick(rng, [10, 60, 3600]), timeoutSeconds: pick(rng, [1, 5]), keyword: str(rng), enabled: false }),
      cap: 20,
    },
    { method: 'PATCH', path: (rng) => `/api/services/${service(rng)}/checks/${bogus(rng)}`, template: (rng) => ({ enabled: rng() < 0.5, path: str(rng) }) },
    { method: 'POST', path: (rng) => `/api/services/${service(rng)}/checks/${bogus(rng)}/run`, template: () => null },
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
      method: 'PATCH',
      path: () => '/api/system/metrics/alerts',
      template: (rng) => ({ cpuPercent: pick(rng, [50, 90, null]), memoryPercent: pick(rng, [80, null]), forMinutes: pick(rng, [0, 5, 60]), diskFullHours: pick(rng, [24, null]) }),
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
