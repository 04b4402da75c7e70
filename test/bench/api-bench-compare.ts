// The first part of test/bench/api-bench.ts, also run by test/bench/runtime-bench.ts under each
// Node.js the release bundle could carry: a daemon (started as `npm start` starts it) seeded with 100
// projects x 10 services through the API, its idle RSS, then GET /api/projects and GET
// /api/services/:id/overview loaded beside a bare Koa server (on the Node.js running the bench)
// answering the same bytes, alternating, in the same run.
import autocannon, { type Result } from 'autocannon';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BerthClient, type CreateServiceInput } from '../../shared/client.js';
import { fetchBytes, freePorts, IDLE_SECONDS, LOAD, rssMb, type Side, startChild, startDaemonProcess, stopChild, tmp, waitForOk } from './api-bench-common.js';

const PROJECTS = 100;
const SECONDS = 5;

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
async function compare(daemonUrl: string, bareUrl: string, auth: Record<string, string>, rounds: number): Promise<{ daemon: Side; bare: Side; ratios: number[] }> {
  await load(daemonUrl, 2, auth);
  await load(bareUrl, 2);
  const d: Result[] = [];
  const b: Result[] = [];
  for (let round = 0; round < rounds; round++) {
    d.push(await load(daemonUrl, SECONDS, auth));
    b.push(await load(bareUrl, SECONDS));
  }
  const side = (rs: Result[]): Side => ({ rps: median(rs.map((r) => r.requests.average)), p99: median(rs.map((r) => r.latency.p99)) });
  return { daemon: side(d), bare: side(b), ratios: d.map((r, i) => r.requests.average / b[i]!.requests.average) };
}

interface EndpointFigures {
  /** The path, with the service id as `:id`. */
  label: string;
  bytes: number;
  daemon: Side;
  bare: Side;
  /** Each round's daemon req/s over the bare server's in the round after it: how much they vary within one run. */
  ratios: number[];
}

interface BesideBareKoa {
  seedS: number;
  idleRss: number;
  /** The executable the daemon ran as (/proc/<pid>/exe): which Node.js was measured. */
  runtime: string;
  endpoints: EndpointFigures[];
}

export const COMPARE_SETTINGS = { projects: PROJECTS, seconds: SECONDS };

/**
 * A fresh daemon (`env` added to its environment: a PATH can choose its Node.js) and a bare Koa
 * server; `rounds` alternating rounds per endpoint, the median of them per side. Both are stopped
 * and the data dir removed before it resolves.
 */
export async function benchBesideBareKoa(env: Record<string, string>, rounds: number): Promise<BesideBareKoa> {
  const [daemonPort, barePort] = await freePorts(2);
  const key = randomBytes(24).toString('hex');
  const daemonUrl = `http://127.0.0.1:${daemonPort}`;
  const dir = mkdtempSync(join(tmp, 'compare-'));
  const daemon = startDaemonProcess(daemonPort!, join(dir, 'data'), key, env);
  let bare: ReturnType<typeof startChild> | undefined;
  try {
    await waitForOk(`${daemonUrl}/api/health`, daemon);
    const runtime = readlinkSync(`/proc/${daemon.child.pid}/exe`);
    const seedStart = Date.now();
    const serviceId = await seed(new BerthClient(daemonUrl, key));
    const seedS = (Date.now() - seedStart) / 1000;
    // Idle means at rest: V8's memory reducer returns the heap left over from seeding a few seconds
    // after activity stops, so the reading is taken after IDLE_SECONDS without requests.
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
    const idleRss = rssMb(daemon.child.pid!);

    const paths = ['/api/projects', `/api/services/${serviceId}/overview`];
    const bodies = await Promise.all(paths.map((p) => fetchBytes(daemonUrl + p, key)));
    const spec = paths.map((path, i) => ({ path, contentType: bodies[i]!.contentType, bodyBase64: bodies[i]!.body.toString('base64') }));
    writeFileSync(join(dir, 'bare.json'), JSON.stringify(spec));
    bare = startChild(process.execPath, [here('./bare-koa.js'), String(barePort), join(dir, 'bare.json')]);
    await waitForOk(`http://127.0.0.1:${barePort}${paths[0]}`, bare);
    const endpoints: EndpointFigures[] = [];
    for (const [i, path] of paths.entries()) {
      const sides = await compare(daemonUrl + path, `http://127.0.0.1:${barePort}${path}`, { authorization: `Bearer ${key}` }, rounds);
      endpoints.push({ label: path.replace(serviceId, ':id'), bytes: bodies[i]!.body.length, ...sides });
    }
    return { seedS, idleRss, runtime, endpoints };
  } finally {
    if (bare) await stopChild(bare.child);
    await stopChild(daemon.child);
    rmSync(dir, { recursive: true, force: true });
  }
}
