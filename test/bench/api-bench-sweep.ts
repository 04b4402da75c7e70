// The scale sweep of test/bench/api-bench.ts: 100, 1,000 and 10,000 services seeded straight into
// the store (seed-store.ts), each served by a fresh daemon routed through a real Caddy: start-up to
// healthy, idle RSS, list and overview p99, one /load into Caddy of the configuration for that many
// domains (and again with a host-port server for each web service), and how each grows.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { caddyConfig, type HostPortRoute, type ProxyRoute } from '../../daemon/proxy/caddy-config.js';
import { TestCaddy } from '../helpers/caddy.js';
import { seedStore } from './seed-store.js';
import { fetchBytes, freePorts, IDLE_SECONDS, LOAD, printTable, rssMb, type Side, startDaemonProcess, stopChild, tmp, verdict, waitForOk } from './api-bench-common.js';

const SWEEP = [100, 1_000, 10_000];
const SWEEP_SECONDS = 3;
/** What the sweep's clients send besides the key: they accept gzip, as browsers and fetch do. */
const SWEEP_HEADERS = { 'accept-encoding': 'gzip' };
/** Issue 32: idle RSS <= 110 MB at 10,000 services once the start-up's garbage is returned; after the load rounds the earlier 150 MB. */
const SWEEP_TARGET = { p99Ms: 20, idleRssMb: 110, rssMb: 150, startupMs: 1000, caddyLoadMs: 1000 };

interface SweepRow {
  services: number;
  domains: number;
  seedS: number;
  startupMs: number;
  idleRss: number;
  listBytes: number;
  list: Side;
  overview: Side;
  loadedRss: number;
  caddyBuildMs: number;
  caddyLoadMs: number;
  /** The same /load with a host-port server for every web service (8 of each 10). */
  caddyLoadWithPortsMs: number | null;
  hostPorts: number;
}

/**
 * `connections` keep-alive clients requesting `url` back to back for `seconds`; every answer read
 * to its end. (autocannon stalls on answers of several megabytes, as the list is at 10,000
 * services: its parser copies the body as it grows.) Like real clients (browsers, fetch, curl
 * --compressed), they send `Accept-Encoding: gzip` (see SWEEP_HEADERS); answers are read as sent.
 */
async function loop(url: string, headers: Record<string, string>, seconds: number, connections = LOAD.connections): Promise<Side> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const latencies: number[] = [];
  let bytes = 0;
  const until = performance.now() + seconds * 1000;
  const once = () =>
    new Promise<void>((resolve, reject) => {
      const t0 = performance.now();
      const req = request(url, { agent, headers }, (res) => {
        if (res.statusCode !== 200) reject(new Error(`GET ${url}: HTTP ${res.statusCode}`));
        let n = 0;
        res.on('data', (chunk: Buffer) => (n += chunk.length));
        res.on('end', () => (latencies.push(performance.now() - t0), (bytes = n), resolve()));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
  const start = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) await once();
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / elapsed, p99: latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))]!, bytes };
}

/** A short warm-up, then one measured run; req/s and p99 of that run. */
async function measure(url: string, auth: Record<string, string>): Promise<Side> {
  await loop(url, auth, 1);
  return loop(url, auth, SWEEP_SECONDS);
}

/**
 * One /load into Caddy of the configuration caddy-config.ts builds for `domains` hostnames, each
 * to its own upstream; the build (config and JSON) and the load are timed apart.
 */
async function caddyLoad(caddy: TestCaddy, domains: number, hostPortCount = 0): Promise<{ buildMs: number; loadMs: number }> {
  const t0 = performance.now();
  const routes: ProxyRoute[] = Array.from({ length: domains }, (_, i) => ({ hostname: `svc-${i}.load.example.com`, upstream: `127.0.0.1:${30000 + (i % 20000)}`, serviceId: `s${i}` }));
  // host ports from BERTH_PORT_RANGE's default (20000-29999), below the kernel's ephemeral range
  const hostPorts: HostPortRoute[] = Array.from({ length: hostPortCount }, (_, i) => ({ hostPort: 20000 + i, bindHost: '127.0.0.1', upstream: `127.0.0.1:${30000 + i}` }));
  const config = caddyConfig({
    routes,
    hostPorts,
    httpsMode: 'http',
    acmeEmail: null,
    httpAddr: `127.0.0.1:${caddy.httpPort}`,
    httpsAddr: `127.0.0.1:${caddy.httpsPort}`,
    adminListen: `127.0.0.1:${caddy.adminPort}`,
  });
  const body = JSON.stringify(config);
  const t1 = performance.now();
  const res = await fetch(`${caddy.adminUrl}/load`, { method: 'POST', headers: { 'content-type': 'application/json', connection: 'close' }, body });
  const text = await res.text();
  const t2 = performance.now();
  if (!res.ok) throw new Error(`Caddy refused the ${domains}-domain configuration (${res.status}): ${text.slice(0, 500)}`);
  return { buildMs: t1 - t0, loadMs: t2 - t1 };
}

/** One size of the sweep: a fresh daemon (`env` added to its environment) over `n` seeded services. */
export async function sweepOne(n: number, caddy: TestCaddy, env: Record<string, string> = {}): Promise<SweepRow> {
  const dir = join(tmp, `sweep-${n}`);
  const key = randomBytes(24).toString('hex');
  const seedStart = performance.now();
  const seeded = await seedStore(join(dir, 'data'), n);
  const seedS = (performance.now() - seedStart) / 1000;
  // an empty Caddy each time, so the daemon's start-up sync loads its routes as on a new server
  await caddy.stop();
  await caddy.start({ resume: false });
  const [port] = await freePorts(1);
  const url = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  const daemon = startDaemonProcess(port!, join(dir, 'data'), key, { ...caddy.env, ...env });
  await waitForOk(`${url}/api/health`, daemon, 10);
  const startupMs = performance.now() - t0;
  const auth = { authorization: `Bearer ${key}`, ...SWEEP_HEADERS };
  const list = await fetchBytes(`${url}/api/projects`, key);
  await fetchBytes(`${url}/api/services/${seeded.serviceId}/overview`, key);
  await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
  const idleRss = rssMb(daemon.child.pid!);
  const listSide = await measure(`${url}/api/projects`, auth);
  const overview = await measure(`${url}/api/services/${seeded.serviceId}/overview`, auth);
  const loadedRss = rssMb(daemon.child.pid!);
  await stopChild(daemon.child);
  const { buildMs, loadMs } = await caddyLoad(caddy, n);
  const hostPorts = Math.round(n * 0.8);
  const withPorts = await caddyLoad(caddy, n, hostPorts).then(
    (r) => r.loadMs,
    (err: Error) => (console.log(`  (the load with ${hostPorts} host ports failed: ${err.message.slice(0, 200)})`), null),
  );
  rmSync(dir, { recursive: true, force: true });
  return {
    services: n,
    domains: seeded.domains,
    seedS,
    startupMs,
    idleRss,
    listBytes: list.body.length,
    list: listSide,
    overview,
    loadedRss,
    caddyBuildMs: buildMs,
    caddyLoadMs: loadMs,
    caddyLoadWithPortsMs: withPorts,
    hostPorts,
  };
}

export async function sweep(): Promise<void> {
  console.log(
    `\nscale sweep: ${SWEEP.join(', ')} services (10 per project) seeded into the store; a fresh daemon and Caddy for each; ${SWEEP_SECONDS} s of load per endpoint; clients send Accept-Encoding: gzip\n`,
  );
  const caddy = await TestCaddy.create();
  const results: SweepRow[] = [];
  try {
    for (const n of SWEEP) results.push(await sweepOne(n, caddy));
  } finally {
    await caddy.dispose();
  }
  const rows = [
    [
      'services',
      'seed s',
      'start-up ms',
      'idle RSS MB',
      'list bytes',
      'list bytes sent',
      'list req/s',
      'list p99 ms',
      'overview req/s',
      'overview p99 ms',
      'RSS after load MB',
      'Caddy config ms',
      'Caddy /load ms',
      '+ host ports /load ms',
    ],
  ];
  for (const r of results) {
    rows.push([
      String(r.services),
      r.seedS.toFixed(1),
      r.startupMs.toFixed(0),
      r.idleRss.toFixed(1),
      String(r.listBytes),
      String(r.list.bytes ?? ''),
      r.list.rps.toFixed(0),
      r.list.p99.toFixed(1),
      r.overview.rps.toFixed(0),
      r.overview.p99.toFixed(1),
      r.loadedRss.toFixed(1),
      r.caddyBuildMs.toFixed(0),
      r.caddyLoadMs.toFixed(0),
      r.caddyLoadWithPortsMs === null ? 'failed' : `${r.caddyLoadWithPortsMs.toFixed(0)} (${r.hostPorts})`,
    ]);
  }
  printTable(rows);
  const first = results[0]!;
  const last = results.at(-1)!;
  const times = (a: number, b: number) => `x${(b / Math.max(a, 0.001)).toFixed(1)}`;
  console.log(
    `\ngrowth from ${first.services} to ${last.services} services (x${last.services / first.services}): start-up ${times(first.startupMs, last.startupMs)}, ` +
      `idle RSS +${(last.idleRss - first.idleRss).toFixed(1)} MB, list bytes ${times(first.listBytes, last.listBytes)}, list p99 ${times(first.list.p99, last.list.p99)}, ` +
      `overview p99 ${times(first.overview.p99, last.overview.p99)}, Caddy /load ${times(first.caddyLoadMs, last.caddyLoadMs)}`,
  );
  console.log(`at ${last.services} services:`);
  console.log(`  start-up to healthy ${last.startupMs.toFixed(0)} ms (target < ${SWEEP_TARGET.startupMs}) ${verdict(last.startupMs < SWEEP_TARGET.startupMs)}`);
  console.log(`  overview p99 ${last.overview.p99.toFixed(1)} ms (target < ${SWEEP_TARGET.p99Ms}) ${verdict(last.overview.p99 < SWEEP_TARGET.p99Ms)}`);
  console.log(
    `  list p99 ${last.list.p99.toFixed(1)} ms for ${(last.listBytes / 1048576).toFixed(1)} MB per answer, ${((last.list.bytes ?? 0) / 1048576).toFixed(2)} MB sent gzipped (target < ${SWEEP_TARGET.p99Ms}) ${verdict(last.list.p99 < SWEEP_TARGET.p99Ms)}`,
  );
  console.log(
    `  idle RSS ${last.idleRss.toFixed(1)} MB (target <= ${SWEEP_TARGET.idleRssMb}) ${verdict(last.idleRss <= SWEEP_TARGET.idleRssMb)}; after the load ${last.loadedRss.toFixed(1)} MB (target < ${SWEEP_TARGET.rssMb}) ${verdict(last.loadedRss < SWEEP_TARGET.rssMb)}`,
  );
  console.log(`  Caddy /load of ${last.services} domains ${last.caddyLoadMs.toFixed(0)} ms (target < ${SWEEP_TARGET.caddyLoadMs}) ${verdict(last.caddyLoadMs < SWEEP_TARGET.caddyLoadMs)}`);
  // No target: what every deploy on such a server costs in Caddy once its web services are all
  // live (one reverse proxy per host port, provisioned again on every load; see docs/benchmarks.md).
  if (last.caddyLoadWithPortsMs !== null) console.log(`  the same with a host-port server for each of ${last.hostPorts} web services: ${last.caddyLoadWithPortsMs.toFixed(0)} ms (informational)`);
}
