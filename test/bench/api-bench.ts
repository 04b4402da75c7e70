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
// The sweep is in api-bench-sweep.ts; what both parts share (settings, child processes, readings)
// in api-bench-common.ts.
import autocannon, { type Result } from 'autocannon';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BerthClient, type CreateServiceInput } from '../../shared/client.js';
import { children, fetchBytes, freePorts, IDLE_SECONDS, LOAD, printTable, rssMb, type Side, startChild, startDaemonProcess, stopChild, tmp, verdict, waitForOk } from './api-bench-common.js';
import { sweep } from './api-bench-sweep.js';
import { benchUptimeChecks } from './check-bench.js';

const PROJECTS = 100;
const ROUNDS = 3;
const SECONDS = 5;
const TARGET = { ratio: 0.5, p99Ms: 20, rssMb: 80 };

const here = (relative: string): string => fileURLToPath(new URL(relative, import.meta.url));

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

async function load(url: string, seconds: number, headers: Record<string, string> = {}): Promise<Result> {
  const result = await autocannon({ url, duration: seconds, headers, ...LOAD });
  const broken = result.non2xx + result.errors + result.timeouts;
  if (broken > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
  return result;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

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
  await benchUptimeChecks();
} catch (err) {
  console.error(`api-bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
} finally {
  await Promise.all(children.map(stopChild));
  rmSync(tmp, { recursive: true, force: true });
}
