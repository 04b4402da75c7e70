// `npm run bench:dataplane`: what Caddy as the data plane costs next to talking to the container
// directly, in one run. Two apps are deployed through Berth (daemon started through
// installers/run-daemon.sh, a real Caddy run with --resume): a Node server that does nothing per
// request (the proxy's worst case) and the deploy tests' busybox httpd fixture. For each,
// autocannon (10 connections, keep-alive) loads (a) the container's own published port and (b) the
// service's host port (Caddy), rotating the order over rounds; prints requests/s and p99 of both and
// the ratio b/a (target >= 0.9), and the CPU time each hop's process spends per request. For the
// Node app two reference paths run in the same rounds: a second Caddy with nothing but a minimal
// `reverse_proxy` to the same port (what Berth's route shape costs beyond Caddy itself), and, where
// `iptables` works (root), a kernel DNAT from a loopback port to the container's port (what a
// layer-4 forward outside any process would give; a chain of its own, removed at the end). Then
// how long Caddy takes to load the whole configuration with many services (one /load), next to a
// PATCH of one upstream by path.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { BerthClient } from '../../shared/client.js';
import { caddyConfig } from '../../daemon/proxy/caddy-config.js';
import { TestCaddy, freePort } from '../helpers/caddy.js';
import { startGitServer } from '../helpers/git-server.js';
import { REPO_ROOT } from '../helpers/repo-root.js';
import { webApp } from '../helpers/apps.js';
import { PORT_RANGES } from '../helpers/port-ranges.js';

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
    env: {
      ...process.env,
      BERTH_HOST: '127.0.0.1',
      BERTH_PORT: String(port),
      BERTH_DATA_DIR: join(tmp, 'data'),
      BERTH_BOOTSTRAP_KEY: key,
      BERTH_PORT_RANGE: PORT_RANGES.dataplaneBench,
      BERTH_FIREWALL: 'off',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  const client = new BerthClient(`http://127.0.0.1:${port}`, key);
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; await sleep(100)) {
    if (child.exitCode !== null) throw new Error(`the daemon exited (${child.exitCode}):\n${stderr}`);
    if (
      await client.health().then(
        () => true,
        () => false,
      )
    )
      return { client, child };
  }
  throw new Error(`the daemon did not answer within 20 s:\n${stderr}`);
}

interface Run {
  rps: number;
  p99: number;
  /** CPU milliseconds each watched process spent during the run, per 1,000 requests = µs per request. */
  cpuUsPerRequest: Record<string, number>;
}

/** One path under test: a loopback port, and the processes on it whose CPU time is measured. */
interface Side {
  label: string;
  port: number;
  watch: Record<string, number>;
}

/** utime + stime of a process, in ms (USER_HZ is 100 on Linux). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The pid of the process listening on 127.0.0.1:<port> (ss -p), or null. */
function listenerPid(port: number): number | null {
  const res = spawnSync('ss', ['-Hltnp', `sport = :${port}`], { encoding: 'utf8' });
  const m = /pid=(\d+)/.exec(res.stdout ?? '');
  return m ? Number(m[1]) : null;
}

async function load(side: Side, seconds: number): Promise<Run> {
  const before = Object.fromEntries(Object.entries(side.watch).map(([name, pid]) => [name, cpuMs(pid)]));
  const r = await autocannon({ url: `http://127.0.0.1:${side.port}/`, connections: CONNECTIONS, duration: seconds });
  if (r.errors || r.timeouts || r.non2xx) throw new Error(`${side.label} (port ${side.port}): ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`);
  const total = (r.requests as { total?: number }).total ?? r.requests.average * seconds;
  const cpuUsPerRequest = Object.fromEntries(Object.entries(side.watch).map(([name, pid]) => [name, ((cpuMs(pid) - before[name]!) * 1000) / Math.max(1, total)]));
  return { rps: r.requests.average, p99: r.latency.p99, cpuUsPerRequest };
}

const cpuText = (cpu: Record<string, number>): string => {
  const parts = Object.entries(cpu).map(([name, us]) => `${name} ${us.toFixed(0)} µs`);
  return parts.length ? `; CPU per request: ${parts.join(', ')}` : '';
};

/**
 * The same load on every side, the order rotating over rounds. sides[0] is the container's own
 * published port, sides[1] the service's host port (the target); any further side is a reference.
 */
async function compare(label: string, sides: Side[]): Promise<void> {
  console.log(`${label}:\n  ${sides.map((s) => `${s.label} ${s.port}`).join(', ')}`);
  for (const side of sides) await load(side, 2);
  const runs = sides.map(() => [] as Run[]);
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < sides.length; k++) {
      const i = (k + round) % sides.length;
      const r = await load(sides[i]!, SECONDS);
      runs[i]!.push(r);
      console.log(`  round ${round + 1} ${sides[i]!.label.padEnd(28)} ${r.rps.toFixed(0)} req/s, p99 ${r.p99} ms${cpuText(r.cpuUsPerRequest)}`);
    }
  }
  const summary = runs.map((rs) => ({
    rps: median(rs.map((x) => x.rps)),
    p99: median(rs.map((x) => x.p99)),
    cpu: Object.fromEntries(Object.keys(rs[0]!.cpuUsPerRequest).map((name) => [name, median(rs.map((x) => x.cpuUsPerRequest[name]!))])),
  }));
  for (let i = 0; i < sides.length; i++) {
    const ratio = summary[i]!.rps / summary[0]!.rps;
    const verdict = i === 1 ? ` (target >= ${TARGET_RATIO}) ${ratio >= TARGET_RATIO ? 'PASS' : 'MISS'}` : '';
    console.log(
      `  ${sides[i]!.label.padEnd(28)} ${summary[i]!.rps.toFixed(0)} req/s, p99 ${summary[i]!.p99} ms${cpuText(summary[i]!.cpu)}${i > 0 ? `; ratio to direct ${ratio.toFixed(2)}${verdict}` : ''}`,
    );
  }
  console.log('');
}

/** A second Caddy whose whole config is one server with a bare `reverse_proxy` to `upstream`. */
async function minimalCaddy(upstream: string): Promise<{ port: number; pid: number }> {
  const caddy = await TestCaddy.create();
  await caddy.start({ resume: false });
  cleanups.push(() => caddy.dispose());
  const port = await freePort();
  const config = {
    admin: { listen: `127.0.0.1:${caddy.adminPort}` },
    apps: {
      http: { servers: { minimal: { listen: [`127.0.0.1:${port}`], routes: [{ handle: [{ handler: 'reverse_proxy', upstreams: [{ dial: upstream }] }] }], automatic_https: { disable: true } } } },
    },
  };
  const res = await fetch(`${caddy.adminUrl}/load`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(config) });
  if (!res.ok) throw new Error(`the minimal Caddy refused its config: ${await res.text()}`);
  return { port, pid: listenerPid(port)! };
}

function iptables(args: string[]): { ok: boolean; err: string } {
  const res = spawnSync('iptables', ['-w', '-t', 'nat', ...args], { encoding: 'utf8' });
  return { ok: res.status === 0, err: (res.stderr ?? String(res.error ?? '')).trim() };
}

/**
 * A loopback port forwarded by the kernel (nat OUTPUT DNAT) to 127.0.0.1:<upstream>: what a
 * layer-4 host port would cost. Null (with the reason printed) where iptables cannot be used.
 */
async function kernelForward(upstream: number): Promise<number | null> {
  const chain = `BERTH-BENCH-${process.pid}`;
  const port = await freePort();
  const created = iptables(['-N', chain]);
  if (!created.ok) {
    console.log(`(no kernel NAT reference: iptables -N ${chain}: ${created.err || 'failed'})\n`);
    return null;
  }
  const jump = ['OUTPUT', '-d', '127.0.0.1/32', '-p', 'tcp', '-m', 'comment', '--comment', 'berth dataplane bench', '-j', chain];
  cleanups.push(async () => {
    iptables(['-D', ...jump]);
    iptables(['-F', chain]);
    iptables(['-X', chain]);
  });
  const rule = iptables(['-A', chain, '-d', '127.0.0.1/32', '-p', 'tcp', '--dport', String(port), '-j', 'DNAT', '--to-destination', `127.0.0.1:${upstream}`]);
  const hooked = rule.ok ? iptables(['-I', ...jump]) : rule;
  if (!hooked.ok) {
    console.log(`(no kernel NAT reference: ${hooked.err || 'iptables failed'})\n`);
    return null;
  }
  return port;
}

/** The docker-proxy process that publishes 127.0.0.1:<port> (dockerd's userland proxy), or null. */
function dockerProxyPid(port: number): number | null {
  const pid = listenerPid(port);
  if (pid === null) return null;
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]!.endsWith('docker-proxy') ? pid : null;
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
    const config = caddyConfig({
      routes,
      hostPorts,
      httpsMode: 'http',
      acmeEmail: null,
      httpAddr: `127.0.0.1:${caddy.httpPort}`,
      httpsAddr: `127.0.0.1:${caddy.httpsPort}`,
      adminListen: `127.0.0.1:${caddy.adminPort}`,
    });
    const post = () => fetch(`${caddy.adminUrl}/load`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(config) });
    const loads: number[] = [];
    for (let i = 0; i < 3; i++) loads.push(await timeMs(post));
    const patches: number[] = [];
    for (let i = 0; i < 3; i++) {
      patches.push(
        await timeMs(() =>
          fetch(`${caddy.adminUrl}/config/apps/http/servers/berth_port_${hostPorts[i]!.hostPort}/routes/0/handle/0/upstreams/0/dial`, {
            method: 'PATCH',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify(upstream),
          }),
        ),
      );
    }
    console.log(
      `Caddy with ${n} services (${n} host-port servers + ${n} hostnames): /load ${median(loads).toFixed(0)} ms (median of 3; first ${loads[0]!.toFixed(0)} ms), PATCH of one upstream ${median(patches).toFixed(0)} ms`,
    );
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
  const caddyPid = listenerPid(service.hostPort!);
  if (caddyPid === null) throw new Error(`nothing listens on the host port ${service.hostPort}`);
  const httpdPort = await deployed(client, httpd.id);
  const proxyPid = dockerProxyPid(echo);
  console.log(
    proxyPid !== null
      ? `"direct" crosses dockerd's userland proxy: docker-proxy (pid ${proxyPid}) listens on the container's published port 127.0.0.1:${echo} and copies each connection to the container's address; Caddy's upstream is that same port.`
      : `"direct" reaches the container through the Engine's own NAT (no docker-proxy listens on 127.0.0.1:${echo}).`,
  );
  console.log(`${CONNECTIONS} connections (keep-alive), ${ROUNDS} rounds x ${SECONDS} s per side, order rotating\n`);
  const withProxy = (watch: Record<string, number>, port: number): Record<string, number> => {
    const pid = dockerProxyPid(port);
    return pid === null ? watch : { ...watch, 'docker-proxy': pid };
  };
  const minimal = await minimalCaddy(`127.0.0.1:${echo}`);
  const kernel = await kernelForward(echo);
  await compare('node http server answering "ok" (no work per request: the proxy\'s worst case)', [
    { label: 'direct to the container', port: echo, watch: withProxy({}, echo) },
    { label: "host port (Berth's Caddy)", port: service.hostPort!, watch: withProxy({ caddy: caddyPid }, echo) },
    { label: 'minimal Caddy reverse_proxy', port: minimal.port, watch: withProxy({ caddy: minimal.pid }, echo) },
    ...(kernel === null ? [] : [{ label: 'kernel DNAT (iptables)', port: kernel, watch: withProxy({}, echo) }]),
  ]);
  await compare("busybox httpd serving a file (the deploy tests' webApp fixture)", [
    { label: 'direct to the container', port: httpdPort, watch: withProxy({}, httpdPort) },
    { label: "host port (Berth's Caddy)", port: httpd.hostPort!, watch: withProxy({ caddy: caddyPid }, httpdPort) },
  ]);
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
