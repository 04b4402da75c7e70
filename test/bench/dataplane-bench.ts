// `npm run bench:dataplane`: what Caddy as the data plane costs, and how Caddy should reach an app's
// container, measured side by side in one run. Two apps are deployed through Berth (daemon started
// through installers/run-daemon.sh, a real Caddy run with --resume): a Node server that does nothing
// per request (the proxy's worst case) and the deploy tests' busybox httpd fixture.
//
// For the Node app, autocannon (10 connections, keep-alive) loads every path below in rounds, the
// order rotating, and prints requests/s, p99 and the CPU time each process on the path spends per
// request:
//   - Berth's host port and a domain, each with Caddy's upstream reached three ways: through a
//     docker-proxy process (dockerd's userland proxy, how Berth ran before: the "before" figure),
//     through the kernel's NAT for the published loopback port (the Engine without its userland
//     proxy: what Berth runs now), and the container's own bridge address (option (a) of issue 32);
//     the host port "now" is the daemon's own Caddy, the other paths a second Caddy loaded with the
//     same production config generator;
//   - references: the container's address directly, a bare Caddy `reverse_proxy` and nginx
//     `proxy_pass` (keep-alive upstreams) to the container's address.
// It prints now/before for the host port and the domain (target >= 1.5) and the address path
// against the kernel path (what choosing option (a) would add). Then how long Caddy takes to load
// the whole configuration with many services (one /load), next to a PATCH of one upstream by path.
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
import { berthShapedCaddy, dockerProxyPid, handDockerProxy, listenerPid, minimalCaddy, nginxProxy } from './dataplane-paths.js';
import { PORT_RANGES } from '../helpers/port-ranges.js';

const ROUNDS = 3;
const SECONDS = 6;
const CONNECTIONS = 10;
const TARGET_GAIN = 1.5;
const WIDTH = 40;
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
  /** Where the load goes: 127.0.0.1 unless given. */
  addr?: string;
  port: number;
  /** The Host header (a domain route on Caddy's HTTP port); none for a port of its own. */
  host?: string;
  /** Processes whose CPU time is measured, by name; a name may stand for several (nginx's master and workers). */
  watch: Record<string, number | number[]>;
}

/** utime + stime of a process, in ms (USER_HZ is 100 on Linux). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function load(side: Side, seconds: number): Promise<Run> {
  const cpu = (pids: number | number[]): number => [pids].flat().reduce((sum, pid) => sum + cpuMs(pid), 0);
  const before = Object.fromEntries(Object.entries(side.watch).map(([name, pids]) => [name, cpu(pids)]));
  const headers = side.host === undefined ? undefined : { host: side.host };
  const r = await autocannon({ url: `http://${side.addr ?? '127.0.0.1'}:${side.port}/`, connections: CONNECTIONS, duration: seconds, headers });
  if (r.errors || r.timeouts || r.non2xx) throw new Error(`${side.label} (port ${side.port}): ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`);
  const total = (r.requests as { total?: number }).total ?? r.requests.average * seconds;
  const cpuUsPerRequest = Object.fromEntries(Object.entries(side.watch).map(([name, pids]) => [name, ((cpu(pids) - before[name]!) * 1000) / Math.max(1, total)]));
  return { rps: r.requests.average, p99: r.latency.p99, cpuUsPerRequest };
}

const cpuText = (cpu: Record<string, number>): string => {
  const parts = Object.entries(cpu).map(([name, us]) => `${name} ${us.toFixed(0)} µs`);
  return parts.length ? `; CPU per request: ${parts.join(', ')}` : '';
};

/** A ratio to print after a comparison: side `num` over side `den`, with a target or as information. */
interface Ratio {
  label: string;
  num: number;
  den: number;
  target?: number;
}

/** The same load on every side, the order rotating over rounds; then each side's medians and the ratios. */
async function compare(label: string, sides: Side[], ratios: Ratio[]): Promise<void> {
  console.log(`${label}:\n  ${sides.map((s) => `${s.label} ${s.port}`).join(', ')}`);
  for (const side of sides) await load(side, 2);
  const runs = sides.map(() => [] as Run[]);
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < sides.length; k++) {
      const i = (k + round) % sides.length;
      const r = await load(sides[i]!, SECONDS);
      runs[i]!.push(r);
      console.log(`  round ${round + 1} ${sides[i]!.label.padEnd(WIDTH)} ${r.rps.toFixed(0)} req/s, p99 ${r.p99} ms${cpuText(r.cpuUsPerRequest)}`);
    }
  }
  const summary = runs.map((rs) => ({
    rps: median(rs.map((x) => x.rps)),
    p99: median(rs.map((x) => x.p99)),
    cpu: Object.fromEntries(Object.keys(rs[0]!.cpuUsPerRequest).map((name) => [name, median(rs.map((x) => x.cpuUsPerRequest[name]!))])),
  }));
  for (let i = 0; i < sides.length; i++) {
    console.log(`  ${sides[i]!.label.padEnd(WIDTH)} ${summary[i]!.rps.toFixed(0)} req/s, p99 ${summary[i]!.p99} ms${cpuText(summary[i]!.cpu)}`);
  }
  for (const r of ratios) {
    const ratio = summary[r.num]!.rps / summary[r.den]!.rps;
    const verdict = r.target === undefined ? '' : ` (target >= ${r.target}) ${ratio >= r.target ? 'PASS' : 'MISS'}`;
    console.log(`  ${r.label}: ${ratio.toFixed(2)}${verdict}`);
  }
  console.log('');
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
  const kernelPath = dockerProxyPid(echo) === null;
  console.log(
    kernelPath
      ? `The Engine runs without its userland proxy: the container's published port 127.0.0.1:${echo} is the kernel's NAT (no docker-proxy listens on it).`
      : `The Engine runs with its userland proxy: docker-proxy (pid ${dockerProxyPid(echo)}) listens on the container's published port 127.0.0.1:${echo}, so "now" below is what Berth ran before. Start dockerd with --userland-proxy=false (installers/ensure-docker.sh does when it starts it) to measure the kernel path.`,
  );
  console.log(`${CONNECTIONS} connections (keep-alive), ${ROUNDS} rounds x ${SECONDS} s per side, order rotating\n`);
  const withProxy = (watch: Record<string, number | number[]>, port: number): Record<string, number | number[]> => {
    const pid = dockerProxyPid(port);
    return pid === null ? watch : { ...watch, 'docker-proxy': pid };
  };
  const ip = docker('inspect', '-f', '{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}', docker('ps', '-q', '--filter', `label=dev.berth.service=${service.id}`)).split(' ')[0]!;
  const address = `${ip}:8080`;
  const dp = await handDockerProxy(cleanups, ip, 8080);
  const shaped = await berthShapedCaddy(cleanups, { kernel: `127.0.0.1:${echo}`, address, ...(dp ? { proxy: `127.0.0.1:${dp.port}` } : {}) });
  const minimal = await minimalCaddy(cleanups, address);
  const nginx = await nginxProxy(cleanups, tmp, address);
  const sides: Side[] = [
    { label: 'host port, kernel NAT (now)', port: service.hostPort!, watch: withProxy({ caddy: caddyPid }, echo) },
    { label: 'domain, kernel NAT (now)', port: shaped.httpPort, host: 'kernel.bench.test', watch: withProxy({ caddy: shaped.pid }, echo) },
    { label: 'host port, container address (a)', port: shaped.hostPorts.address!, watch: { caddy: shaped.pid } },
    { label: 'domain, container address (a)', port: shaped.httpPort, host: 'address.bench.test', watch: { caddy: shaped.pid } },
    { label: 'direct to the container address', addr: ip, port: 8080, watch: {} },
    { label: 'bare Caddy reverse_proxy -> container', port: minimal.port, watch: { caddy: minimal.pid } },
    ...(nginx ? [{ label: 'nginx proxy_pass -> container', port: nginx.port, watch: { nginx: nginx.pids } }] : []),
  ];
  const ratios: Ratio[] = [
    { label: 'container address (a) / kernel NAT (b), host port', num: 2, den: 0 },
    { label: 'container address (a) / kernel NAT (b), domain', num: 3, den: 1 },
  ];
  if (dp) {
    const before = sides.length;
    sides.push(
      { label: 'host port, docker-proxy (before)', port: shaped.hostPorts.proxy!, watch: { caddy: shaped.pid, 'docker-proxy': dp.pid } },
      { label: 'domain, docker-proxy (before)', port: shaped.httpPort, host: 'proxy.bench.test', watch: { caddy: shaped.pid, 'docker-proxy': dp.pid } },
    );
    ratios.unshift({ label: 'host port: now / before', num: 0, den: before, target: TARGET_GAIN }, { label: 'domain: now / before', num: 1, den: before + 1, target: TARGET_GAIN });
  }
  await compare('node http server answering "ok" (no work per request: the proxy\'s worst case)', sides, ratios);
  await compare(
    "busybox httpd serving a file (the deploy tests' webApp fixture)",
    [
      { label: 'direct to the container', port: httpdPort, watch: withProxy({}, httpdPort) },
      { label: "host port (Berth's Caddy)", port: httpd.hostPort!, watch: withProxy({ caddy: caddyPid }, httpdPort) },
    ],
    [{ label: 'host port / direct', num: 1, den: 0 }],
  );
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
