// The bad-input cases of uptime checks (POST/PATCH/DELETE /api/services/:serviceId/checks...): each a
// clear 400 naming the field (or 404), and nothing stored. There is no URL field: a target is one of
// the service's own domains or its host port.
import type { Case, Fixtures } from './bad-input-cases.js';

const C = '/api/services/{web}/checks';
const domain = { kind: 'domain', domainId: '{webDomain}' };
const create = (name: string, body: unknown, status = 400): Case => ({ name: `check create: ${name}`, method: 'POST', path: C, body: (f: Fixtures) => fill(body, f.webDomain), status });

function fill(body: unknown, webDomain: string): unknown {
  return JSON.parse(JSON.stringify(body).replaceAll('{webDomain}', webDomain));
}

export const checkCases: Case[] = [
  create('a free-form URL', { url: 'http://169.254.169.254/' }),
  create('a target with a URL', { target: { kind: 'url', url: 'http://127.0.0.1:2019/' } }),
  create('a domain of another service', { target: { kind: 'domain', domainId: '00000000-0000-4000-8000-000000000000' } }),
  create('interval under the floor', { target: domain, intervalSeconds: 1, timeoutSeconds: 1 }),
  create('interval over an hour', { target: domain, intervalSeconds: 3601 }),
  create('timeout not under the interval', { target: domain, intervalSeconds: 10, timeoutSeconds: 10 }),
  create('timeout over 60', { target: domain, intervalSeconds: 120, timeoutSeconds: 61 }),
  create('expectedStatus 99', { target: domain, expectedStatus: 99 }),
  create('expectedStatus 600', { target: domain, expectedStatus: 600 }),
  create('expectedStatus a string', { target: domain, expectedStatus: '200' }),
  create('failuresBeforeIncident 0', { target: domain, failuresBeforeIncident: 0 }),
  create('failuresBeforeIncident 21', { target: domain, failuresBeforeIncident: 21 }),
  create('a path without a slash', { target: domain, path: 'health' }),
  create('a path with a space', { target: domain, path: '/a b' }),
  create('an empty keyword', { target: domain, keyword: '' }),
  { name: 'check create: a port target on a worker (no host port)', method: 'POST', path: '/api/services/{worker}/checks', body: { target: { kind: 'port' } }, status: 400 },
  { name: 'check create: a worker with neither domain nor host port', method: 'POST', path: '/api/services/{worker}/checks', body: {}, status: 400 },
  create('an unknown field', { target: domain, followRedirects: true }),
  { name: 'check create: a database service', method: 'POST', path: '/api/services/{db}/checks', body: {}, status: 400 },
  { name: 'check create: unknown service', method: 'POST', path: '/api/services/{missing}/checks', body: {}, status: 404 },
  { name: 'check patch: unknown check', method: 'PATCH', path: `${C}/{missing}`, body: { enabled: false }, status: 404 },
  { name: 'check delete: unknown check', method: 'DELETE', path: `${C}/{missing}`, status: 404 },
  { name: 'check run: unknown check', method: 'POST', path: `${C}/{missing}/run`, status: 404 },
];
