// `npm run bench:deploy`: what deploying through Berth costs next to doing it by hand, in one run.
// (a) direct: `git clone --depth 1` + `docker build` (classic builder, as the daemon's API build) +
//     `docker run -p 127.0.0.1::8080` + polling until the app answers 200 with this round's text;
// (b) Berth: POST /api/services/:id/deployments, then polling its hostPort until the same answer.
// Both build the same webApp fixture from the same local git server; every round commits new text
// to each side's own repo, so neither reuses the other's or an earlier round's layer cache, and the
// order alternates. Prints per-round phases (Berth's from its deployment log) and the median b/a.
// Then the log lag: a worker container stamps each line with its own clock (adjtimex, in µs) every
// 50 ms; lag = arrival on an SSE client of /runtime-logs/stream - that stamp; p50/p95/p99.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BerthClient } from '../../shared/client.js';
import type { Deployment, Service } from '../../shared/types.js';
import { webApp } from '../helpers/apps.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { REPO_ROOT } from '../helpers/repo-root.js';
import { TestCaddy } from '../helpers/caddy.js';
import { PORT_RANGES } from '../helpers/port-ranges.js';

const ROUNDS = 5; // plus one warm-up round that is not counted
const LAG_LINES = 200;
const TARGET = { ratio: 1.1, p99Ms: 100 };
const POLL_MS = 10; // both sides poll for the first good answer equally often

const tmp = mkdtempSync(join(tmpdir(), 'berth-deploy-bench-'));
const children: ChildProcess[] = [];
const directNames = new Set<string>(); // (a)'s containers and images, removed after each round
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const wallMs = (): number => performance.timeOrigin + performance.now();
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil((p / 100) * xs.length) - 1)]!;
const verdict = (ok: boolean): string => (ok ? 'PASS' : 'MISS');

/** Runs a command from an argv array; resolves with its trimmed stdout, rejects with its stderr. */
function run(cmd: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`${cmd} ${args.join(' ')} failed (${code}): ${err}`))));
  });
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as AddressInfo;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

/** One GET on a fresh connection (as the daemon's own health probe): the body on 200, else null. */
function probe(port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/', agent: false, timeout: 2000 }, (res) => {
      let body = '';
      res.on('data', (b: Buffer) => (body += b.toString()));
      res.on('end', () => resolve(res.statusCode === 200 ? body : null));
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(null));
    req.end();
  });
}

async function waitForText(port: number, text: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await probe(port)) !== `${text}\n`) {
    if (Date.now() > deadline) throw new Error(`port ${port} never answered "${text}"`);
    await sleep(POLL_MS);
  }
}

async function startDaemon(git: GitServer, caddy: TestCaddy): Promise<BerthClient> {
  const port = await freePort();
  const key = randomBytes(24).toString('hex');
  const child = spawn('bash', [join(REPO_ROOT, 'installers/run-daemon.sh')], {
    env: {
      ...process.env,
      BERTH_HOST: '127.0.0.1',
      BERTH_PORT: String(port),
      BERTH_DATA_DIR: join(tmp, 'data'),
      BERTH_BOOTSTRAP_KEY: key,
      BERTH_GIT_BASE_URL: git.baseUrl,
      BERTH_FIREWALL: 'off',
      BERTH_PORT_RANGE: PORT_RANGES.deployBench,
      ...caddy.env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const client = new BerthClient(`http://127.0.0.1:${port}`, key);
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; await sleep(100)) {
    if (child.exitCode !== null) throw new Error(`the daemon exited (${child.exitCode}):\n${stderr}`);
    if (
      await client.health().then(
        () => true,
        () => false,
      )
    )
      return client;
  }
  throw new Error(`the daemon did not answer /api/health within 20 s:\n${stderr}`);
}

type Phases = Record<string, number>;

/** (a) by hand; phases in ms. */
async function direct(git: GitServer, round: number, text: string): Promise<Phases> {
  const dir = mkdtempSync(join(tmp, `direct-${round}-`));
  const name = `berth-bench-direct-${round}-${randomBytes(3).toString('hex')}`;
  const t0 = wallMs();
  await run('git', ['clone', '--quiet', '--depth', '1', '--single-branch', '--branch', 'main', '--', git.urlOf('bench/direct'), dir]);
  const t1 = wallMs();
  directNames.add(name);
  await run('docker', ['build', '-q', '--rm', '--force-rm', '-t', `${name}:latest`, dir], { DOCKER_BUILDKIT: '0' });
  const t2 = wallMs();
  await run('docker', ['run', '-d', '--name', name, '-p', '127.0.0.1::8080', '-e', 'PORT=8080', `${name}:latest`]);
  const port = Number(/:(\d+)\s*$/m.exec(await run('docker', ['port', name, '8080/tcp']))![1]);
  const t3 = wallMs();
  await waitForText(port, text);
  const t4 = wallMs();
  rmSync(dir, { recursive: true, force: true });
  return { clone: t1 - t0, build: t2 - t1, run: t3 - t2, answer: t4 - t3, total: t4 - t0 };
}

const MARKS = [
  ['queue', /^Cloning /],
  ['clone', /^Checked out /],
  ['build', /^Built image /],
  ['run', /^Waiting for the app /],
  ['health', /^Deployment is live/],
] as const;

/** (b) through the API; phases in ms, from the deployment log's timestamps. */
async function viaBerth(client: BerthClient, service: Service, text: string): Promise<Phases> {
  const t0 = wallMs();
  const { deployment } = await client.deploy(service.id);
  await waitForText(service.hostPort!, text).catch(async (err: unknown) => {
    const { logs } = await client.deploymentLogs(deployment.id);
    throw new Error(`${(err as Error).message}; the deployment's log:\n${logs.map((l) => `  ${l.line}`).join('\n')}`);
  });
  const t1 = wallMs();
  const { logs } = await client.deploymentLogs(deployment.id);
  if (process.env.BENCH_DEPLOY_LOG) for (const l of logs) console.log(`    +${(Date.parse(l.createdAt) - t0).toFixed(0).padStart(5)} ${l.line.slice(0, 110)}`);
  const phases: Phases = {};
  let prev = t0;
  for (const [phase, re] of MARKS) {
    const at = Date.parse(logs.find((l) => re.test(l.line))?.createdAt ?? '');
    phases[phase] = at - prev;
    prev = at;
  }
  return { ...phases, answer: t1 - prev, total: t1 - t0 };
}

/** Waits until superseded deployments' containers are gone, so their shutdown does not overlap the next round. */
async function settle(client: BerthClient, serviceId: string): Promise<void> {
  const old = (await client.listDeployments(serviceId)).deployments.filter((d) => d.status === 'superseded' && d.containerName);
  for (const d of old) {
    for (let i = 0; i < 150 && (await run('docker', ['ps', '-aq', '--filter', `name=^/${d.containerName}$`])) !== ''; i++) await sleep(200);
  }
}

async function removeDirectLeftovers(): Promise<void> {
  for (const name of directNames) {
    await run('docker', ['rm', '-f', name]).catch(() => undefined);
    await run('docker', ['rmi', '-f', `${name}:latest`]).catch(() => undefined);
    directNames.delete(name);
  }
}

const fmt = (p: Phases): string =>
  Object.entries(p)
    .map(([k, v]) => `${k} ${v.toFixed(0)}`)
    .join(', ');

async function compareDeploys(client: BerthClient, git: GitServer, projectId: string): Promise<void> {
  const { service } = await client.createService(projectId, { name: 'web', repoFullName: 'bench/berth', internalPort: 8080 });
  const a: Phases[] = [];
  const b: Phases[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const [textA, textB] = [`direct round ${round} ${randomBytes(4).toString('hex')}`, `berth round ${round} ${randomBytes(4).toString('hex')}`];
    await git.commit('bench/direct', webApp(textA));
    await git.commit('bench/berth', webApp(textB));
    const sides = [async () => a.push(await direct(git, round, textA)), async () => b.push(await viaBerth(client, service, textB))];
    for (const side of round % 2 === 0 ? sides : sides.reverse()) await side();
    await removeDirectLeftovers();
    await settle(client, service.id);
    const label = round === 0 ? 'warm-up' : `round ${round}`;
    console.log(`${label} (${round % 2 === 0 ? 'a first' : 'b first'}): ratio ${(b.at(-1)!.total / a.at(-1)!.total).toFixed(2)}\n  a ms: ${fmt(a.at(-1)!)}\n  b ms: ${fmt(b.at(-1)!)}`);
    if (round === 0) [a, b].forEach((side) => side.pop());
  }
  const med = (xs: Phases[]): Phases => Object.fromEntries(Object.keys(xs[0]!).map((k) => [k, median(xs.map((p) => p[k]!))]));
  const ratio = median(a.map((p, i) => b[i]!.total / p.total));
  console.log(`\nmedian of ${ROUNDS} rounds\n  a ms: ${fmt(med(a))}\n  b ms: ${fmt(med(b))}`);
  console.log(`deploy time ratio b/a (median of per-round ratios): ${ratio.toFixed(2)} (target <= ${TARGET.ratio}) ${verdict(ratio <= TARGET.ratio)}`);
}

const PROBE_SH = `#!/bin/sh
i=0
while true; do
  i=$((i+1))
  adjtimex | awk -v i=$i '/tv_sec/{s=$2} /tv_usec/{u=$2} END{printf "probe %d %s%06d\\n", i, s, u}'
  usleep 50000
done
`;

async function deployWorker(client: BerthClient, git: GitServer, projectId: string): Promise<string> {
  await git.commit('bench/probe', { Dockerfile: 'FROM berth-test/busybox:latest\nCOPY probe.sh /probe.sh\nCMD ["/probe.sh"]\n', 'probe.sh#x': PROBE_SH });
  const { service } = await client.createService(projectId, { name: 'probe', repoFullName: 'bench/probe', runtimeMode: 'worker' });
  const { deployment } = await client.deploy(service.id);
  for (let i = 0; i < 300; i++, await sleep(200)) {
    const dep: Deployment | undefined = (await client.listDeployments(service.id)).deployments.find((d) => d.id === deployment.id);
    if (dep?.status === 'running') return service.id;
    if (dep?.status === 'failed') throw new Error(`the probe worker failed: ${(await client.deploymentLogs(deployment.id)).logs.map((l) => l.line).join('\n')}`);
  }
  throw new Error('the probe worker did not start within 60 s');
}

/** Lags (ms) of lines written after the stream said it is live; reopens while Berth is not yet following. */
async function collectLags(client: BerthClient, serviceId: string): Promise<{ lags: number[]; gaps: number }> {
  for (let attempt = 0; attempt < 50; attempt++, await sleep(200)) {
    let liveSince: number | null = null;
    const lags: number[] = [];
    const seqs: number[] = [];
    for await (const ev of client.stream(`/api/services/${serviceId}/runtime-logs/stream`)) {
      const arrived = wallMs();
      if (ev.event === 'status') {
        if (!(JSON.parse(ev.data) as { ok: boolean }).ok) break;
        liveSince = arrived;
      }
      const m = ev.event === 'log' ? /^probe (\d+) (\d+)$/.exec((JSON.parse(ev.data) as { line: string }).line) : null;
      if (!m || liveSince === null || Number(m[2]) / 1000 < liveSince) continue;
      lags.push(arrived - Number(m[2]) / 1000);
      seqs.push(Number(m[1]));
      if (lags.length >= LAG_LINES) return { lags, gaps: seqs.at(-1)! - seqs[0]! + 1 - seqs.length };
    }
  }
  throw new Error('the runtime log stream never went live');
}

async function measureLag(client: BerthClient, git: GitServer, projectId: string): Promise<void> {
  const serviceId = await deployWorker(client, git, projectId);
  const { lags, gaps } = await collectLags(client, serviceId);
  const [p50, p95, p99] = [50, 95, 99].map((p) => pct(lags, p));
  console.log(
    `\nlog lag, container write -> SSE client (${lags.length} lines, ${gaps} missing): p50 ${p50!.toFixed(1)} ms, p95 ${p95!.toFixed(1)} ms, p99 ${p99!.toFixed(1)} ms, max ${Math.max(...lags).toFixed(1)} ms (target p99 < ${TARGET.p99Ms}) ${verdict(p99! < TARGET.p99Ms)}`,
  );
}

const cleanups: (() => Promise<void>)[] = []; // run newest first, while the daemon still runs

async function main(): Promise<void> {
  const setup = spawnSync('bash', [join(REPO_ROOT, 'test/setup/docker.sh')], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (setup.status !== 0) throw new Error('test/setup/docker.sh failed');
  const git = await startGitServer();
  cleanups.push(() => git.stop());
  // host ports answer through Caddy, the data plane
  const caddy = await TestCaddy.create();
  await caddy.start();
  cleanups.push(() => caddy.dispose());
  const client = await startDaemon(git, caddy);
  const { project } = await client.createProject({ name: 'deploy bench' });
  cleanups.push(async () => void (await client.deleteProject(project.id))); // Berth removes its containers and images
  console.log(`fixture: webApp (busybox httpd); ${ROUNDS} rounds after a warm-up, order alternating; ms per phase\n`);
  await compareDeploys(client, git, project.id);
  await measureLag(client, git, project.id);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => (clearTimeout(force), resolve()));
    child.kill('SIGTERM');
  });
}

async function shutdown(): Promise<void> {
  for (const fn of cleanups.splice(0).reverse()) await fn().catch((err: unknown) => console.error(`cleanup: ${String(err)}`));
  await removeDirectLeftovers();
  await Promise.all(children.map(stopChild));
  rmSync(tmp, { recursive: true, force: true });
}

process.once('SIGINT', () => void shutdown().finally(() => process.exit(130)));
try {
  await main();
} catch (err) {
  console.error(`deploy-bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
} finally {
  await shutdown();
}
