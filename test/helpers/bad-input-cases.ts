// The cases of test/api/bad-input.test.ts: for every mutating endpoint, the requests that must be
// refused (malformed JSON, wrong types, missing fields, unknown enum values, invalid env keys and
// references, unsafe sources, invalid hostnames, absurdly long strings, bodies over the limit,
// unknown ids) with the status and code each must get, and the world they act on.
import type { BerthClient, CreateServiceInput } from '../../shared/client.js';
import { INVALID_ENV_KEYS, long, postgres } from './bad-input-cases-builders.js';
import { serviceCreateCases } from './bad-input-cases-service-create.js';
import { checkCases } from './bad-input-cases-checks.js';

/** Ids of the world every case acts on; a case's path names them as `{web}`, `{projectA}`... */
export interface Fixtures {
  projectA: string;
  projectB: string;
  /** Git service in A, env PLAIN, domains web.example.com and www.example.com. */
  web: string;
  /** Postgres service in A. */
  db: string;
  /** Worker in A, env Y. */
  worker: string;
  /** A git service named "web" in B (so moving A's web there clashes). */
  webB: string;
  webEnv: string;
  workerEnv: string;
  webDomain: string;
  wwwDomain: string;
  /** Well-formed ids that name nothing. */
  missing: string;
}

type Method = 'POST' | 'PATCH' | 'DELETE';
export type Body = unknown | ((f: Fixtures) => unknown);

export interface Case {
  name: string;
  method: Method;
  /** Path template: `{key}` is replaced by that fixture id. */
  path: string;
  body?: Body;
  /** Sent as-is instead of `body` (Content-Type application/json unless `headers` say otherwise). */
  rawBody?: string;
  headers?: Record<string, string>;
  /** The status, or the statuses that are each an acceptable answer. */
  status: number | number[];
  /** The error code, when the contract names one. */
  code?: string;
  /** A write that must succeed first; its effect is part of the "before" snapshot. */
  setup?: (admin: BerthClient, f: Fixtures) => Promise<unknown>;
}

// ---------------------------------------------------------------------------------------------
// Small builders (the ones the service-create cases share too: bad-input-cases-builders.ts)

const OVER_LIMIT = 1024 * 1024 + 1024; // just over koa-body's 1 MB JSON limit

const INVALID_HOSTNAMES: [label: string, hostname: string][] = [
  ['with spaces', 'not a host'],
  ['a wildcard', '*.example.com'],
  ['an IPv4 address', '192.168.1.1'],
  ['an IPv6 address', '[::1]'],
  ['a single label', 'localhost'],
  ['300 characters', `${long(60, 'a')}.${long(60, 'b')}.${long(60, 'c')}.${long(60, 'd')}.${long(55, 'e')}.com`],
  ['a URL', 'http://example.com'],
  ['a port', 'example.com:8080'],
  ['a path', 'example.com/admin'],
  ['a 64-character label', `${long(64, 'a')}.example.com`],
  ['a leading hyphen label', '-bad.example.com'],
  ['empty', ''],
  ['a numeric top-level label', 'example.123'],
];

/** Every endpoint that reads a JSON body; `required` when an empty object is not a valid body. */
const BODY_ENDPOINTS: { method: Method; path: string; required: boolean }[] = [
  { method: 'POST', path: '/api/keys', required: true },
  { method: 'POST', path: '/api/projects', required: true },
  { method: 'PATCH', path: '/api/projects/{projectA}', required: true },
  { method: 'POST', path: '/api/projects/{projectA}/services', required: true },
  { method: 'PATCH', path: '/api/services/{web}', required: false },
  { method: 'POST', path: '/api/services/{web}/transfer', required: true },
  { method: 'POST', path: '/api/services/{web}/env', required: true },
  { method: 'POST', path: '/api/services/{web}/domains', required: true },
  { method: 'PATCH', path: '/api/services/{web}/domains/{webDomain}', required: true },
  { method: 'POST', path: '/api/services/{web}/checks', required: false },
  { method: 'PATCH', path: '/api/system/metrics/alerts', required: false },
];

/** The same broken bodies sent to every JSON endpoint. */
function bodyShapeCases(): Case[] {
  const out: Case[] = [];
  for (const { method, path, required } of BODY_ENDPOINTS) {
    const at = `${method} ${path}`;
    out.push(
      { name: `${at}: truncated JSON`, method, path, rawBody: '{"name":', status: 400 },
      { name: `${at}: JSON with a trailing comma`, method, path, rawBody: '{"name": "x",}', status: 400 },
      { name: `${at}: a JSON array`, method, path, rawBody: '[{"name": "x"}]', status: 400 },
      { name: `${at}: a JSON string`, method, path, rawBody: '"name"', status: 400 },
      { name: `${at}: JSON null`, method, path, rawBody: 'null', status: 400 },
      { name: `${at}: a JSON number`, method, path, rawBody: '42', status: 400 },
      { name: `${at}: a __proto__ key`, method, path, rawBody: '{"name": "x", "__proto__": {"access": "write"}}', status: 400 },
      { name: `${at}: a body over the 1 MB limit`, method, path, body: { name: long(OVER_LIMIT) }, status: 413 },
      // A body the daemon does not read as JSON must not be taken as an empty object.
      { name: `${at}: Content-Type text/plain`, method, path, rawBody: '{"name": "x"}', headers: { 'content-type': 'text/plain' }, status: [400, 415] },
      { name: `${at}: Content-Encoding gzip over plain bytes`, method, path, rawBody: '{"name": "x"}', headers: { 'content-encoding': 'gzip' }, status: [400, 415] },
      { name: `${at}: an unsupported Content-Encoding`, method, path, rawBody: '{"name": "x"}', headers: { 'content-encoding': 'compress' }, status: 415 },
    );
    if (required) out.push({ name: `${at}: an empty body`, method, path, rawBody: '', status: 400 }, { name: `${at}: {}`, method, path, body: {}, status: 400 });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The cases, grouped by endpoint

export const cases: Case[] = [
  ...checkCases,
  ...bodyShapeCases(),

  // POST /api/keys
  { name: 'keys: access "admin"', method: 'POST', path: '/api/keys', body: { access: 'admin', projects: 'all' }, status: 400 },
  { name: 'keys: access "superuser"', method: 'POST', path: '/api/keys', body: { access: 'superuser', projects: 'all' }, status: 400 },
  { name: 'keys: access missing', method: 'POST', path: '/api/keys', body: { projects: 'all' }, status: 400 },
  { name: 'keys: access as a boolean', method: 'POST', path: '/api/keys', body: { access: true, projects: 'all' }, status: 400 },
  { name: 'keys: projects as 5', method: 'POST', path: '/api/keys', body: { access: 'read', projects: 5 }, status: 400 },
  { name: 'keys: projects missing', method: 'POST', path: '/api/keys', body: { access: 'read' }, status: 400 },
  { name: 'keys: projects "some"', method: 'POST', path: '/api/keys', body: { access: 'read', projects: 'some' }, status: 400 },
  { name: 'keys: projects as an empty list', method: 'POST', path: '/api/keys', body: { access: 'read', projects: [] }, status: 400 },
  { name: 'keys: projects holding a number', method: 'POST', path: '/api/keys', body: { access: 'read', projects: [5] }, status: 400 },
  { name: 'keys: projects naming an unknown project', method: 'POST', path: '/api/keys', body: (f: Fixtures) => ({ access: 'read', projects: [f.projectA, f.missing] }), status: 400 },
  { name: 'keys: name as a number', method: 'POST', path: '/api/keys', body: { name: 5, access: 'read', projects: 'all' }, status: 400 },
  { name: 'keys: name of 10,000 characters', method: 'POST', path: '/api/keys', body: { name: long(10_000), access: 'read', projects: 'all' }, status: 400 },

  // DELETE /api/keys/:keyId
  { name: 'keys: revoke an unknown key', method: 'DELETE', path: '/api/keys/{missing}', status: 404 },
  { name: 'keys: revoke with a malformed JSON body', method: 'DELETE', path: '/api/keys/{missing}', rawBody: '{"x":', status: 400 },

  // POST /api/projects
  { name: 'projects: name as a number', method: 'POST', path: '/api/projects', body: { name: 5 }, status: 400 },
  { name: 'projects: name null', method: 'POST', path: '/api/projects', body: { name: null }, status: 400 },
  { name: 'projects: name as a list', method: 'POST', path: '/api/projects', body: { name: ['a'] }, status: 400 },
  { name: 'projects: name missing', method: 'POST', path: '/api/projects', body: { description: 'no name' }, status: 400 },
  { name: 'projects: name only spaces', method: 'POST', path: '/api/projects', body: { name: '   ' }, status: 400 },
  { name: 'projects: name only tabs and newlines', method: 'POST', path: '/api/projects', body: { name: '\t\n \u3000' }, status: 400 },
  { name: 'projects: description as a number', method: 'POST', path: '/api/projects', body: { name: 'p', description: 5 }, status: 400 },
  { name: 'projects: name of 10,000 characters', method: 'POST', path: '/api/projects', body: { name: long(10_000) }, status: 400 },
  { name: 'projects: description of 100,000 characters', method: 'POST', path: '/api/projects', body: { name: 'p', description: long(100_000) }, status: 400 },
  { name: 'projects: name nested 50,000 arrays deep', method: 'POST', path: '/api/projects', rawBody: `{"name": ${long(50_000, '[')}${long(50_000, ']')}}`, status: 400 },

  // PATCH /api/projects/:projectId
  { name: 'project patch: name as a number', method: 'PATCH', path: '/api/projects/{projectA}', body: { name: 5 }, status: 400 },
  { name: 'project patch: name only spaces', method: 'PATCH', path: '/api/projects/{projectA}', body: { name: '   ' }, status: 400 },
  { name: 'project patch: description null', method: 'PATCH', path: '/api/projects/{projectA}', body: { description: null }, status: 400 },
  { name: 'project patch: name of 10,000 characters', method: 'PATCH', path: '/api/projects/{projectA}', body: { name: long(10_000) }, status: 400 },
  { name: 'project patch: description of 100,000 characters', method: 'PATCH', path: '/api/projects/{projectA}', body: { description: long(100_000) }, status: 400 },
  { name: 'project patch: unknown project', method: 'PATCH', path: '/api/projects/{missing}', body: { name: 'renamed' }, status: 404 },
  { name: 'project patch: an undecodable id', method: 'PATCH', path: '/api/projects/%E0%A4%A', body: { name: 'renamed' }, status: [400, 404] },

  // DELETE /api/projects/:projectId
  { name: 'project delete: unknown project', method: 'DELETE', path: '/api/projects/{missing}', status: 404 },
  { name: 'project delete: malformed JSON body', method: 'DELETE', path: '/api/projects/{projectB}', rawBody: '{"x":', status: 400 },

  ...serviceCreateCases,

  // PATCH /api/services/:serviceId
  { name: 'service patch: unknown service', method: 'PATCH', path: '/api/services/{missing}', body: { branch: 'dev' }, status: 404 },
  { name: 'service patch: name as a number', method: 'PATCH', path: '/api/services/{web}', body: { name: 5 }, status: 400 },
  { name: 'service patch: name only spaces', method: 'PATCH', path: '/api/services/{web}', body: { name: '   ' }, status: 400 },
  { name: 'service patch: name of 10,000 characters', method: 'PATCH', path: '/api/services/{web}', body: { name: long(10_000) }, status: 400 },
  { name: 'service patch: name taken in the project', method: 'PATCH', path: '/api/services/{web}', body: { name: 'db' }, status: 409 },
  { name: 'service patch: internalPort as a string', method: 'PATCH', path: '/api/services/{web}', body: { internalPort: '3000' }, status: 400 },
  { name: 'service patch: internalPort as a float', method: 'PATCH', path: '/api/services/{web}', body: { internalPort: 3000.5 }, status: 400 },
  { name: 'service patch: internalPort 0', method: 'PATCH', path: '/api/services/{web}', body: { internalPort: 0 }, status: 400 },
  { name: 'service patch: internalPort 70000', method: 'PATCH', path: '/api/services/{web}', body: { internalPort: 70000 }, status: 400 },
  { name: 'service patch: buildMethod "magic"', method: 'PATCH', path: '/api/services/{web}', body: { buildMethod: 'magic' }, status: 400 },
  { name: 'service patch: runtimeMode "server"', method: 'PATCH', path: '/api/services/{web}', body: { runtimeMode: 'server' }, status: 400 },
  { name: 'service patch: worker while domains are attached', method: 'PATCH', path: '/api/services/{web}', body: { runtimeMode: 'worker' }, status: 409 },
  { name: 'service patch: branch "-x"', method: 'PATCH', path: '/api/services/{web}', body: { branch: '-x' }, status: 400 },
  { name: 'service patch: branch "a..b"', method: 'PATCH', path: '/api/services/{web}', body: { branch: 'a..b' }, status: 400 },
  { name: 'service patch: rootDir "../../etc"', method: 'PATCH', path: '/api/services/{web}', body: { rootDir: '../../etc' }, status: 400 },
  { name: 'service patch: dockerfilePath "/etc/passwd"', method: 'PATCH', path: '/api/services/{web}', body: { dockerfilePath: '/etc/passwd' }, status: 400 },
  { name: 'service patch: a valid field beside an invalid one', method: 'PATCH', path: '/api/services/{web}', body: { buildCommand: 'npm run build', rootDir: '../..' }, status: 400 },
  { name: 'service patch: postgres on internalPort 5433', method: 'PATCH', path: '/api/services/{db}', body: { internalPort: 5433 }, status: 400 },
  { name: 'service patch: database as a worker', method: 'PATCH', path: '/api/services/{db}', body: { runtimeMode: 'worker' }, status: 400 },
  { name: 'service patch: rootDir on a database', method: 'PATCH', path: '/api/services/{db}', body: { rootDir: 'src' }, status: 400 },

  // POST /api/services/:serviceId/transfer
  { name: 'transfer: targetProjectId missing', method: 'POST', path: '/api/services/{web}/transfer', body: {}, status: 400 },
  { name: 'transfer: targetProjectId as a number', method: 'POST', path: '/api/services/{web}/transfer', body: { targetProjectId: 5 }, status: 400 },
  { name: 'transfer: targetProjectId empty', method: 'POST', path: '/api/services/{web}/transfer', body: { targetProjectId: '' }, status: 400 },
  { name: 'transfer: targetProjectId of 10,000 characters', method: 'POST', path: '/api/services/{web}/transfer', body: { targetProjectId: long(10_000) }, status: 400 },
  { name: 'transfer: unknown target project', method: 'POST', path: '/api/services/{web}/transfer', body: (f: Fixtures) => ({ targetProjectId: f.missing }), status: 404 },
  { name: 'transfer: unknown service', method: 'POST', path: '/api/services/{missing}/transfer', body: (f: Fixtures) => ({ targetProjectId: f.projectB }), status: 404 },
  { name: 'transfer: into the project it is in', method: 'POST', path: '/api/services/{web}/transfer', body: (f: Fixtures) => ({ targetProjectId: f.projectA }), status: 400 },
  { name: 'transfer: into the project it is in, named by slug', method: 'POST', path: '/api/services/{web}/transfer', body: { targetProjectId: 'bad-input-a' }, status: 400 },
  { name: 'transfer: the target has a service of that name', method: 'POST', path: '/api/services/{web}/transfer', body: (f: Fixtures) => ({ targetProjectId: f.projectB }), status: 409 },
  {
    name: 'transfer: another service references it',
    method: 'POST',
    path: '/api/services/{db}/transfer',
    body: (f: Fixtures) => ({ targetProjectId: f.projectB }),
    setup: (admin, f) => admin.setEnv(f.web, 'DB_URL', '${db.DATABASE_URL}'),
    status: 409,
  },

  // DELETE /api/services/:serviceId
  { name: 'service delete: unknown service', method: 'DELETE', path: '/api/services/{missing}', status: 404 },
  { name: 'service delete: an undecodable id', method: 'DELETE', path: '/api/services/%ZZ', status: [400, 404] },
  { name: 'service delete: malformed JSON body', method: 'DELETE', path: '/api/services/{worker}', rawBody: '{"x":', status: 400 },

  // POST /api/services/:serviceId/env
  { name: 'env: unknown service', method: 'POST', path: '/api/services/{missing}/env', body: { key: 'A', value: '1' }, status: 404 },
  { name: 'env: key missing', method: 'POST', path: '/api/services/{web}/env', body: { value: '1' }, status: 400 },
  { name: 'env: value missing', method: 'POST', path: '/api/services/{web}/env', body: { key: 'A' }, status: 400 },
  { name: 'env: key as a number', method: 'POST', path: '/api/services/{web}/env', body: { key: 5, value: '1' }, status: 400 },
  { name: 'env: value as a number', method: 'POST', path: '/api/services/{web}/env', body: { key: 'A', value: 1 }, status: 400 },
  { name: 'env: value null', method: 'POST', path: '/api/services/{web}/env', body: { key: 'A', value: null }, status: 400 },
  ...INVALID_ENV_KEYS.map((key): Case => ({ name: `env: key ${JSON.stringify(key)}`, method: 'POST', path: '/api/services/{web}/env', body: { key, value: '1' }, status: 400 })),
  { name: 'env: key of 10,000 characters', method: 'POST', path: '/api/services/{web}/env', body: { key: long(10_000, 'A'), value: '1' }, status: 400 },
  { name: 'env: value of 200 KB', method: 'POST', path: '/api/services/{web}/env', body: { key: 'BIG', value: long(200 * 1024) }, status: [400, 413] },
  { name: 'env: reference to an unknown service', method: 'POST', path: '/api/services/{web}/env', body: { key: 'REF', value: '${nosuch.X}' }, status: 400, code: 'invalid_reference' },
  { name: 'env: reference to an unknown variable', method: 'POST', path: '/api/services/{web}/env', body: { key: 'REF', value: '${db.NOPE}' }, status: 400, code: 'invalid_reference' },
  { name: 'env: reference to itself', method: 'POST', path: '/api/services/{web}/env', body: { key: 'SELF', value: 'a-${web.SELF}' }, status: 400, code: 'invalid_reference' },
  { name: 'env: overwriting a variable with a bad reference', method: 'POST', path: '/api/services/{web}/env', body: { key: 'PLAIN', value: '${nosuch.X}' }, status: 400, code: 'invalid_reference' },
  {
    name: 'env: a cycle through two services',
    method: 'POST',
    path: '/api/services/{worker}/env',
    body: { key: 'Y', value: '${web.X}' },
    setup: (admin, f) => admin.setEnv(f.web, 'X', '${worker.Y}'),
    status: 400,
    code: 'invalid_reference',
  },

  // DELETE /api/services/:serviceId/env/:envId
  { name: 'env delete: unknown variable', method: 'DELETE', path: '/api/services/{web}/env/{missing}', status: 404 },
  { name: "env delete: another service's variable", method: 'DELETE', path: '/api/services/{web}/env/{workerEnv}', status: 404 },
  { name: 'env delete: unknown service', method: 'DELETE', path: '/api/services/{missing}/env/{webEnv}', status: 404 },

  // POST /api/services/:serviceId/domains
  { name: 'domain add: unknown service', method: 'POST', path: '/api/services/{missing}/domains', body: { hostname: 'new.example.com' }, status: 404 },
  { name: 'domain add: hostname missing', method: 'POST', path: '/api/services/{web}/domains', body: { host: 'new.example.com' }, status: 400 },
  { name: 'domain add: hostname as a number', method: 'POST', path: '/api/services/{web}/domains', body: { hostname: 5 }, status: 400 },
  { name: 'domain add: hostname of 10,000 characters', method: 'POST', path: '/api/services/{web}/domains', body: { hostname: `${long(10_000, 'a')}.com` }, status: 400 },
  ...INVALID_HOSTNAMES.map(([label, hostname]): Case => ({ name: `domain add: hostname ${label}`, method: 'POST', path: '/api/services/{web}/domains', body: { hostname }, status: 400 })),
  { name: 'domain add: on a worker', method: 'POST', path: '/api/services/{worker}/domains', body: { hostname: 'worker.example.com' }, status: 400, code: 'worker_no_domains' },
  { name: 'domain add: hostname used by another service', method: 'POST', path: '/api/services/{db}/domains', body: { hostname: 'web.example.com' }, status: 409, code: 'hostname_taken' },
  {
    name: 'domain add: hostname used, in other case with a trailing dot',
    method: 'POST',
    path: '/api/services/{db}/domains',
    body: { hostname: 'WEB.Example.COM.' },
    status: 409,
    code: 'hostname_taken',
  },
  { name: 'domain add: hostname the service already has', method: 'POST', path: '/api/services/{web}/domains', body: { hostname: 'www.example.com' }, status: 409, code: 'hostname_taken' },

  // PATCH /api/services/:serviceId/domains/:domainId
  { name: "domain patch: another domain's hostname", method: 'PATCH', path: '/api/services/{web}/domains/{webDomain}', body: { hostname: 'www.example.com' }, status: 409, code: 'hostname_taken' },
  ...INVALID_HOSTNAMES.map(
    ([label, hostname]): Case => ({ name: `domain patch: hostname ${label}`, method: 'PATCH', path: '/api/services/{web}/domains/{webDomain}', body: { hostname }, status: 400 }),
  ),
  { name: 'domain patch: unknown domain', method: 'PATCH', path: '/api/services/{web}/domains/{missing}', body: { hostname: 'new.example.com' }, status: 404 },
  { name: 'domain patch: the domain addressed through another service', method: 'PATCH', path: '/api/services/{db}/domains/{webDomain}', body: { hostname: 'new.example.com' }, status: 404 },
  { name: 'domain patch: unknown service', method: 'PATCH', path: '/api/services/{missing}/domains/{webDomain}', body: { hostname: 'new.example.com' }, status: 404 },

  // DELETE /api/services/:serviceId/domains/:domainId
  { name: 'domain delete: unknown domain', method: 'DELETE', path: '/api/services/{web}/domains/{missing}', status: 404 },
  { name: 'domain delete: the domain addressed through another service', method: 'DELETE', path: '/api/services/{db}/domains/{webDomain}', status: 404 },
  { name: 'domain delete: unknown service', method: 'DELETE', path: '/api/services/{missing}/domains/{webDomain}', status: 404 },
  { name: 'rollback: unknown deployment', method: 'POST', path: '/api/deployments/{missing}/rollback', status: 404 },
  { name: 'webhook create: a database service (no branch to deploy on push)', method: 'POST', path: '/api/services/{db}/webhook', status: 400 },
  { name: 'webhook create: unknown service', method: 'POST', path: '/api/services/{missing}/webhook', status: 404 },
  { name: 'webhook delete: unknown service', method: 'DELETE', path: '/api/services/{missing}/webhook', status: 404 },

  // PATCH /api/system/metrics/alerts (the history's GET refusals: test/api/metrics-history-input.test.ts)
  { name: 'metric alerts: cpuPercent -5', method: 'PATCH', path: '/api/system/metrics/alerts', body: { cpuPercent: -5 }, status: 400 },
  { name: 'metric alerts: memoryPercent 150', method: 'PATCH', path: '/api/system/metrics/alerts', body: { memoryPercent: 150 }, status: 400 },
  { name: 'metric alerts: forMinutes 1.5', method: 'PATCH', path: '/api/system/metrics/alerts', body: { forMinutes: 1.5 }, status: 400 },
  { name: 'metric alerts: forMinutes null', method: 'PATCH', path: '/api/system/metrics/alerts', body: { forMinutes: null }, status: 400 },
  { name: 'metric alerts: diskFullHours "soon"', method: 'PATCH', path: '/api/system/metrics/alerts', body: { diskFullHours: 'soon' }, status: 400 },
  { name: 'metric alerts: an unknown field', method: 'PATCH', path: '/api/system/metrics/alerts', body: { cpu: 80 }, status: 400 },
];

// ---------------------------------------------------------------------------------------------
// Helpers

// ---------------------------------------------------------------------------------------------
// The world every case acts on

export async function createFixtures(admin: BerthClient): Promise<Fixtures> {
  const { project: a } = await admin.createProject({ name: 'Bad input A', description: 'fixture' });
  const { project: b } = await admin.createProject({ name: 'Bad input B', description: 'fixture' });
  const { service: web } = await admin.createService(a.id, {
    name: 'web',
    repoFullName: 'acme/web',
    branch: 'main',
    internalPort: 3000,
    env: [{ key: 'PLAIN', value: '1' }],
  });
  const { service: db } = await admin.createService(a.id, postgres({ name: 'db' }) as CreateServiceInput);
  const { service: worker } = await admin.createService(a.id, {
    name: 'worker',
    repoFullName: 'acme/worker',
    runtimeMode: 'worker',
    env: [{ key: 'Y', value: 'plain' }],
  });
  const { service: webB } = await admin.createService(b.id, { name: 'web', repoFullName: 'acme/web-b' });
  const { domain: webDomain } = await admin.addDomain(web.id, 'web.example.com');
  const { domain: wwwDomain } = await admin.addDomain(web.id, 'www.example.com');
  const webEnv = (await admin.overview(web.id)).env.find((e) => e.key === 'PLAIN')!;
  const workerEnv = (await admin.overview(worker.id)).env.find((e) => e.key === 'Y')!;
  return {
    projectA: a.id,
    projectB: b.id,
    web: web.id,
    db: db.id,
    worker: worker.id,
    webB: webB.id,
    webEnv: webEnv.id,
    workerEnv: workerEnv.id,
    webDomain: webDomain.id,
    wwwDomain: wwwDomain.id,
    missing: '00000000-0000-4000-8000-000000000000',
  };
}
