// `npm run bench:dataplane`: what Caddy as the data plane costs next to talking to the container
// directly, in one run. Two apps are deployed through Berth (daemon started through
// installers/run-daemon.sh, a real Caddy run with --resume): a Node server that does nothing per
// request (the proxy's worst case) and the deploy tests' busybox httpd fixture. For each,
// autocannon (10 connections, keep-alive) loads (a) the container's own published port and (b) the
// service's host port (Caddy), alternating over rounds; prints requests/s and p99 of both and the
// ratio b/a (target >= 0.9). Then how long Caddy takes to load the whole configuration with many services (one
// /load), next to a PATCH of one upstream by path.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { BerthClient } from '../../shared/client.js';
import { caddyConfig } from '../../daemon/proxy/caddy-config.js';
import { TestCaddy, freePort } from '../helpers/caddy.js';
import { startGitServer } from '../helpers/git-server.js';
import { REPO_ROOT } from '../helpers/repo-root.js';
import { webApp } from '../helpers/apps.js';

const ROUNDS = 3;
const SECONDS = 8;
const CONNECTIONS = 10;
const TARGET_RATIO = 0.9;
const LOAD_SIZES = [100, 500];

const tmp = mkdtempSync(join(tmpdir(), 'berth-dataplane-bench-'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const cleanups: (() => Promise<void>)[] = [];

const APP = {
  Dockerfile: 'FROM berth-test/node:latest\nWORKDIR /app\nCOPY server.js .\nCMD ["node", "server.js"]\n',
  'server.js': "require('http').createServer((q, s) => s.end('ok\\n')).listen(Number(process.env.PORT), '0.0.0.0');\n",
};

function docker(...args: string[]): string {
  const res = spawnSync('docker', args, { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`docker ${args.join(' ')}: ${res.stderr}`);
  return res.stdout.trim();
}

async function startDaemon(env: Record<string, string>): Promise<{ client: BerthClient; child: ChildProcess }> {
  const port = await freePort();
  const key = randomBytes(24).toString('hex');
  const child = spawn('bash', [join(REPO_ROOT, 'installers/run-daemon.sh')], {
    env: { ...process.env, BERTH_HOST: '127.0.0.1', BERTH_PORT: String(port), BERTH_DATA_DIR: join(tmp, 'data'), BERTH_BOOTSTRAP_KEY: key, BERTH_PORT_RANGE: '44500-44599', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  const client = new BerthClient(`http://127.0.0.1:${port}`, key);
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; await sleep(100)) {
    if (child.exitCode !== null) throw new Error(`the daemon exited (${child.exitCode}):\n${stderr}`);
    if (await client.health().then(() => true, () => false)) return { client, child };
  }
  throw new Error(`the daemon did not answer within 20 s:\n${stderr}`);
}

async function load(port: number, seconds: number): Promise<{ rps: number; p99: number }> {
  const r = await autocannon({ url: `http://127.0.0.1:${port}/`, connections: CONNECTIONS, duration: seconds });
  if (r.errors || r.timeouts || r.non2xx) throw new Error(`port ${port}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`);
  return { rps: r.requests.average, p99: r.latency.p99 };
}

/** Waits until the service's deployment runs; returns its container's own published port. */
async function deployed(client: BerthClient, serviceId: string): Promise<number> {
  for (let status = ''; status !== 'running'; await sleep(500)) {
    status = (await client.listDeployments(serviceId)).deployments[0]?.status ?? '';
    if (status === 'failed') throw new Error('the bench app failed to deploy');
  }
  const id = docker('ps', '-q', '--filter', `label=dev.berth.service=${serviceId}`);
  return Number(/:(\d+)\s*$/m.exec(docker('port', id, '8080/tcp'))![1]);
}

/** The same load on the container's own port (a) and the host port through Caddy (b), alternating. */
async function compare(label: string, direct: number, hostPort: number): Promise<void> {
  console.log(`${label}: container port ${direct}, host port ${hostPort}`);
  await load(direct, 2);
  await load(hostPort, 2);
  const a: { rps: number; p99: number }[] = [];
  const b: { rps: number; p99: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const);
    for (const side of order) {
      const r = await load(side === 'a' ? direct : hostPort, SECONDS);
      (side === 'a' ? a : b).push(r);
      console.log(`  round ${round + 1} ${side === 'a' ? 'direct   ' : 'host port'}: ${r.rps.toFixed(0)} req/s, p99 ${r.p99} ms`);
    }
  }
  const [ra, rb] = [median(a.map((x) => x.rps)), median(b.map((x) => x.rps))];
  const [pa, pb] = [median(a.map((x) => x.p99)), median(b.map((x) => x.p99))];
  const ratio = rb / ra;
  console.log(`  direct to the container: ${ra.toFixed(0)} req/s, p99 ${pa} ms`);
  console.log(`  through the host port (Caddy): ${rb.toFixed(0)} req/s, p99 ${pb} ms`);
  console.log(`  ratio host port / direct: ${ratio.toFixed(2)} (target >= ${TARGET_RATIO}) ${ratio >= TARGET_RATIO ? 'PASS' : 'MISS'}\n`);
}

async function timeMs(fn: () => Promise<Response>): Promise<number> {
  const t0 = performance.now();
  const res = await fn();
  const text = await res.text();
  if (!res.ok) throw new Error(`Caddy answered ${res.status}: ${text}`);
  return performance.now() - t0;
}

/** One /load of a config with n host-port servers and n hostnames (all to the live container), and a PATCH of one upstream. */
async function measureLoads(caddy: TestCaddy, upstream: string): Promise<void> {
  const saved = JSON.stringify(await caddy.config());
  for (const n of LOAD_SIZES) {
    // free ports the OS hands out (another program's port would make Caddy refuse the load)
    const ports = new Set<number>();
    while (ports.size < n) ports.add(await freePort());
    const hostPorts = [...ports].map((hostPort) => ({ hostPort, bindHost: '127.0.0.1', upstream }));
    const routes = Array.from({ length: n }, (_, i) => ({ hostname: `svc${i}.bench.test`, upstream }));
    const config = caddyConfig({ routes, hostPorts, httpsMode: 'http', acmeEmail: null, httpAddr: `127.0.0.1:${caddy.httpPort}`, httpsAddr: `127.0.0.1:${caddy.httpsPort}`, adminListen: `127.0.0.1:${caddy.adminPort}` });
    const post = () => fetch(`${caddy.adminUrl}/load`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(config) });
    const loads: number[] = [];
    for (let i = 0; i < 3; i++) loads.push(await timeMs(post));
    const patches: number[] = [];
    for (let i = 0; i < 3; i++) {
      patches.push(
        await timeMs(() =>
          fetch(`${caddy.adminUrl}/config/apps/http/servers/berth_port_${hostPorts[i]!.hostPort}/routes/0/handle/0/upstreams/0/dial`, { method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(upstream) }),
        ),
      );
    }
    console.log(`Caddy with ${n} services (${n} host-port servers + ${n} hostnames): /load ${median(loads).toFixed(0)} ms (median of 3; first ${loads[0]!.toFixed(0)} ms), PATCH of one upstream ${median(patches).toFixed(0)} ms`);
  }
  await fetch(`${caddy.adminUrl}/load`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: saved });
}

async function main(): Promise<void> {
  const setup = spawnSync('bash', [join(REPO_ROOT, 'test/setup/docker.sh')], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (setup.status !== 0) throw new Error('test/setup/docker.sh failed');
  const git = await startGitServer();
  cleanups.push(() => git.stop());
  const caddy = await TestCaddy.create();
  await caddy.start();
  cleanups.push(() => caddy.dispose());
  const { client, child } = await startDaemon({ ...caddy.env, BERTH_GIT_BASE_URL: git.baseUrl });
  cleanups.push(() => new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : (child.once('exit', () => resolve()), child.kill('SIGTERM')))));
  await git.commit('bench/dataplane', APP);
  const { project } = await client.createProject({ name: 'dataplane bench' });
  cleanups.push(async () => void (await client.deleteProject(project.id)));
  const { service } = await client.createService(project.id, { name: 'echo', repoFullName: 'bench/dataplane', internalPort: 8080 });
  await client.deploy(service.id);
  const echo = await deployed(client, service.id);
  // the deploy tests' fixture: busybox httpd, a process per connection (an app with real per-request cost)
  await git.commit('bench/httpd', webApp('httpd ok'));
  const { service: httpd } = await client.createService(project.id, { name: 'httpd', repoFullName: 'bench/httpd', internalPort: 8080 });
  await client.deploy(httpd.id);
  await deployed(client, httpd.id);
  console.log(`${CONNECTIONS} connections (keep-alive), ${ROUNDS} rounds x ${SECONDS} s per side, order alternating\n`);
  await compare('node http server answering "ok" (no work per request: the proxy\'s worst case)', echo, service.hostPort!);
  await compare('busybox httpd serving a file (the deploy tests\' webApp fixture)', await deployed(client, httpd.id), httpd.hostPort!);
  await measureLoads(caddy, `127.0.0.1:${echo}`);
}

try {
  await main();
} catch (err) {
  console.error(`dataplane-bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
} finally {
  for (const fn of cleanups.splice(0).reverse()) await fn().catch((err: unknown) => console.error(`cleanup: ${String(err)}`));
  rmSync(tmp, { recursive: true, force: true });
}
