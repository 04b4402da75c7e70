// `npm run bench:api`: throughput and p99 latency of GET /api/projects and GET
// /api/services/:id/overview with 100 projects x 10 services in the store, next to a bare Koa
// server answering the same bytes, measured in the same run; plus the daemon's idle RSS.
// The daemon and the baseline each run as their own child process (dist/daemon/main.js exactly as
// in production) so the load generator's CPU and heap never count against either of them.
// Then the scale sweep: 100, 1,000 and 10,000 services seeded straight into the store
// (seed-store.ts), each served by a fresh daemon routed through a real Caddy: start-up to healthy,
// idle RSS, list and overview p99, and one /load into Caddy of the configuration
// daemon/proxy/caddy-config.ts builds for that many domains (the target), and again with a host-port
// server for each web service as if all were live (informational); and how each grows.
// `--no-sweep` runs only the first part, `--sweep-only` only the sweep.
import autocannon, { type Result } from 'autocannon';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { BerthClient, type CreateServiceInput } from '../../shared/client.js';
import { caddyConfig, type HostPortRoute, type ProxyRoute } from '../../daemon/proxy/caddy-config.js';
import { TestCaddy } from '../helpers/caddy.js';
import { REPO_ROOT } from '../helpers/repo-root.js';
import { seedStore } from './seed-store.js';
import { PORT_RANGES } from '../helpers/port-ranges.js';

const PROJECTS = 100;
const ROUNDS = 3;
const SECONDS = 5;
const IDLE_SECONDS = 12;
const LOAD = { connections: 10, pipelining: 1 };
const TARGET = { ratio: 0.5, p99Ms: 20, rssMb: 80 };
const SWEEP = [100, 1_000, 10_000];
const SWEEP_SECONDS = 3;
/** What the sweep's clients send besides the key: they accept gzip, as browsers and fetch do. */
const SWEEP_HEADERS = { 'accept-encoding': 'gzip' };
const SWEEP_TARGET = { p99Ms: 20, rssMb: 150, startupMs: 1000, caddyLoadMs: 1000 };

const children: ChildProcess[] = [];
const tmp = mkdtempSync(join(tmpdir(), 'berth-bench-'));

/** Free loopback ports, held open together so that the OS cannot hand out the same one twice. */
async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<Server>((resolve, reject) => {
          const srv = createServer().once('error', reject);
          srv.listen(0, '127.0.0.1', () => resolve(srv));
        }),
    ),
  );
  const ports = servers.map((srv) => (srv.address() as AddressInfo).port);
  await Promise.all(servers.map((srv) => new Promise((resolve) => srv.close(resolve))));
  return ports;
}

/** Starts a command as a child process; its stderr is kept for the failure message. */
function startChild(command: string, args: string[], env: Record<string, string> = {}): { child: ChildProcess; stderr: () => string } {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, stderr: () => stderr };
}

const here = (relative: string): string => fileURLToPath(new URL(relative, import.meta.url));

async function waitForOk(url: string, started: { child: ChildProcess; stderr: () => string }, pollMs = 100): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (started.child.exitCode !== null) throw new Error(`${url}: the process exited (${started.child.exitCode}):\n${started.stderr()}`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, pollMs));
  }
  throw new Error(`${url} did not answer 200 within 20 s:\n${started.stderr()}`);
}

async function inBatches<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += limit) await Promise.all(items.slice(i, i + limit).map(fn));
}

function servicesFor(n: number): CreateServiceInput[] {
  const git = Array.from({ length: 6 }, (_, i) => ({
    name: `app-${i}`,
    repoFullName: `acme/app-${n}-${i}`,
    env: [
      { key: 'NODE_ENV', value: 'production' },
      { key: 'API_URL', value: `https://api-${n}.example.com` },
    ],
  }));
  const images = Array.from({ length: 2 }, (_, i) => ({ name: `web-${i}`, repoUrl: 'docker-image', dockerImage: 'nginx:1.27' }));
  const dbs = ['postgres', 'redis'].map((engine) => ({ name: engine, repoFullName: `database:${engine}`, repoUrl: 'database' }));
  return [...git, ...images, ...dbs];
}

/** Creates the projects and services; returns the id of one git service. */
async function seed(client: BerthClient): Promise<string> {
  const gitIds: string[] = [];
  await inBatches([...Array(PROJECTS).keys()], 8, async (n) => {
    const { project } = await client.createProject({ name: `Project ${n}` });
    for (const input of servicesFor(n)) {
      const { service } = await client.createService(project.id, input);
      if (input.repoFullName?.startsWith('acme/')) gitIds.push(service.id);
    }
  });
  return gitIds[0]!;
}

function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!kb) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(kb[1]) / 1024;
}

async function fetchBytes(url: string, token: string): Promise<{ contentType: string; body: Buffer }> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`GET ${url}: HTTP ${res.status}`);
  return { contentType: res.headers.get('content-type') ?? '', body: Buffer.from(await res.arrayBuffer()) };
}

async function load(url: string, seconds: number, headers: Record<string, string> = {}): Promise<Result> {
  const result = await autocannon({ url, duration: seconds, headers, ...LOAD });
  const broken = result.non2xx + result.errors + result.timeouts;
  if (broken > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
  return result;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface Side {
  rps: number;
  p99: number;
  /** Bytes of one answer as sent (compressed when the server compressed it); loop() only. */
  bytes?: number;
}

/**
 * Alternates daemon and bare runs after a warm-up; the median of the rounds for each side. No
 * Accept-Encoding here: both sides send the same plain bytes (the sweep's clients ask for gzip).
 */
async function compare(daemonUrl: string, bareUrl: string, auth: Record<string, string>): Promise<{ daemon: Side; bare: Side }> {
  await load(daemonUrl, 2, auth);
  await load(bareUrl, 2);
  const d: Result[] = [];
  const b: Result[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    d.push(await load(daemonUrl, SECONDS, auth));
    b.push(await load(bareUrl, SECONDS));
  }
  const side = (rs: Result[]): Side => ({ rps: median(rs.map((r) => r.requests.average)), p99: median(rs.map((r) => r.latency.p99)) });
  return { daemon: side(d), bare: side(b) };
}

const verdict = (ok: boolean): string => (ok ? 'PASS' : 'MISS');

/** The daemon as `npm start` runs it (the launcher execs node, so the child's pid is the daemon's). */
function startDaemonProcess(port: number, dataDir: string, key: string, env: Record<string, string>) {
  return startChild('bash', [join(REPO_ROOT, 'installers/run-daemon.sh')], {
    BERTH_HOST: '127.0.0.1',
    BERTH_PORT: String(port),
    BERTH_DATA_DIR: dataDir,
    BERTH_BOOTSTRAP_KEY: key,
    BERTH_PORT_RANGE: PORT_RANGES.apiBench,
    BERTH_CADDY_ADMIN: 'http://127.0.0.1:1',
    // a shared test machine: host-wide firewall rules are test/security/container-egress.test.ts's
    BERTH_FIREWALL: 'off',
    ...env,
  });
}

async function main(): Promise<void> {
  const [daemonPort, barePort] = await freePorts(2);
  const key = randomBytes(24).toString('hex');
  const daemonUrl = `http://127.0.0.1:${daemonPort}`;
  const dataDir = join(tmp, 'data');
  mkdirSync(dataDir);
  // Started exactly as `npm start` and the systemd unit start it.
  const daemon = startDaemonProcess(daemonPort!, dataDir, key, {});
  await waitForOk(`${daemonUrl}/api/health`, daemon);

  const seedStart = Date.now();
  const serviceId = await seed(new BerthClient(daemonUrl, key));
  console.log(`seeded ${PROJECTS} projects x 10 services in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`);
  // Idle means at rest: V8's memory reducer returns the heap left over from seeding a few seconds
  // after activity stops, so the reading is taken after IDLE_SECONDS without requests.
  await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
  const idleRss = rssMb(daemon.child.pid!);

  const paths = ['/api/projects', `/api/services/${serviceId}/overview`];
  const bodies = await Promise.all(paths.map((p) => fetchBytes(daemonUrl + p, key)));
  const spec = paths.map((path, i) => ({ path, contentType: bodies[i]!.contentType, bodyBase64: bodies[i]!.body.toString('base64') }));
  writeFileSync(join(tmp, 'bare.json'), JSON.stringify(spec));
  const bare = startChild(process.execPath, [here('./bare-koa.js'), String(barePort), join(tmp, 'bare.json')]);
  await waitForOk(`http://127.0.0.1:${barePort}${paths[0]}`, bare);

  console.log(`load: ${LOAD.connections} connections, pipelining ${LOAD.pipelining}, ${ROUNDS} alternating rounds of ${SECONDS} s per side; median of rounds\n`);
  const rows: string[][] = [['endpoint', 'bytes', 'daemon req/s', 'bare req/s', `ratio (target >= ${TARGET.ratio})`, `daemon p99 ms (target < ${TARGET.p99Ms})`]];
  for (const [i, path] of paths.entries()) {
    const { daemon: d, bare: b } = await compare(daemonUrl + path, `http://127.0.0.1:${barePort}${path}`, { authorization: `Bearer ${key}` });
    const ratio = d.rps / b.rps;
    const label = path.replace(serviceId, ':id');
    const ratioCell = `${ratio.toFixed(2)} ${verdict(ratio >= TARGET.ratio)}`;
    rows.push([label, String(bodies[i]!.body.length), d.rps.toFixed(0), b.rps.toFixed(0), ratioCell, `${d.p99.toFixed(1)} ${verdict(d.p99 < TARGET.p99Ms)}`]);
  }
  printTable(rows);
  console.log(`\ndaemon idle RSS (${IDLE_SECONDS} s after seeding): ${idleRss.toFixed(1)} MB (target < ${TARGET.rssMb}) ${verdict(idleRss < TARGET.rssMb)}`);
  await stopChild(bare.child);
  await stopChild(daemon.child);
}

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

async function sweepOne(n: number, caddy: TestCaddy): Promise<SweepRow> {
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
  const daemon = startDaemonProcess(port!, join(dir, 'data'), key, caddy.env);
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

function printTable(rows: string[][]): void {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  for (const r of rows) console.log(r.map((cell, c) => cell.padEnd(widths[c]!)).join('  '));
}

async function sweep(): Promise<void> {
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
    `  idle RSS ${last.idleRss.toFixed(1)} MB (target < ${SWEEP_TARGET.rssMb}) ${verdict(last.idleRss < SWEEP_TARGET.rssMb)}; after the load ${last.loadedRss.toFixed(1)} MB ${verdict(last.loadedRss < SWEEP_TARGET.rssMb)}`,
  );
  console.log(`  Caddy /load of ${last.services} domains ${last.caddyLoadMs.toFixed(0)} ms (target < ${SWEEP_TARGET.caddyLoadMs}) ${verdict(last.caddyLoadMs < SWEEP_TARGET.caddyLoadMs)}`);
  // No target: what every deploy on such a server costs in Caddy once its web services are all
  // live (one reverse proxy per host port, provisioned again on every load; see docs/benchmarks.md).
  if (last.caddyLoadWithPortsMs !== null) console.log(`  the same with a host-port server for each of ${last.hostPorts} web services: ${last.caddyLoadWithPortsMs.toFixed(0)} ms (informational)`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => (clearTimeout(force), resolve()));
    child.kill('SIGTERM');
  });
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const child of children) child.kill('SIGKILL');
    rmSync(tmp, { recursive: true, force: true });
    process.exit(130);
  });
}

try {
  if (!process.argv.includes('--sweep-only')) await main();
  if (!process.argv.includes('--no-sweep')) await sweep();
} catch (err) {
  console.error(`api-bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
} finally {
  await Promise.all(children.map(stopChild));
  rmSync(tmp, { recursive: true, force: true });
}
