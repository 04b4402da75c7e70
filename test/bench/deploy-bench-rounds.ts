// The deploy comparison of test/bench/deploy-bench.ts (`npm run bench:deploy`), also run by
// test/bench/runtime-bench.ts under each Node.js the release bundle could carry:
// (a) direct: `git clone --depth 1` + `docker build` (classic builder, as the daemon's API build) +
//     `docker run -p 127.0.0.1::8080` + polling until the app answers 200 with this round's text;
// (b) Berth: POST /api/services/:id/deployments, then polling its hostPort until the same answer.
// Both build the same webApp fixture from the same local git server; every round commits new text
// to each side's own repo, so neither reuses the other's or an earlier round's layer cache, and the
// order alternates. Prints per-round phases (Berth's from its deployment log) and the median b/a.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BerthClient } from '../../shared/client.js';
import type { Service } from '../../shared/types.js';
import { webApp } from '../helpers/apps.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { REPO_ROOT } from '../helpers/repo-root.js';
import { TestCaddy } from '../helpers/caddy.js';
import { PORT_RANGES } from '../helpers/port-ranges.js';
import { freePorts, startDaemonProcess, stopChild, tmp, verdict, waitForOk } from './api-bench-common.js';

const DEPLOY_TARGET = { ratio: 1.1 };
const POLL_MS = 10; // both sides poll for the first good answer equally often

const directNames = new Set<string>(); // (a)'s containers and images, removed after each round
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const wallMs = (): number => performance.timeOrigin + performance.now();
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

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

/** `work`'s result; when it fails, `undo` runs before the error goes on. */
async function orUndo<T>(work: Promise<T>, undo: () => Promise<void>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    await undo();
    throw err;
  }
}

/** Docker set up, a local git server and a Caddy (host ports answer through it, the data plane); `stop` removes them. */
export async function deployBenchSetup(): Promise<{ git: GitServer; caddy: TestCaddy; stop: () => Promise<void> }> {
  const setup = spawnSync('bash', [join(REPO_ROOT, 'test/setup/docker.sh')], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (setup.status !== 0) throw new Error('test/setup/docker.sh failed');
  const git = await startGitServer();
  const caddy = await orUndo(TestCaddy.create(), () => git.stop());
  const stop = async () => {
    await caddy.dispose();
    await git.stop();
  };
  await orUndo(caddy.start(), stop);
  return { git, caddy, stop };
}

/**
 * A daemon as `npm start` starts it, on a fresh data dir, with `env` added to its environment (a
 * PATH can choose its Node.js); `stop` ends it and removes the data dir.
 */
export async function startDeployDaemon(git: GitServer, caddy: TestCaddy, env: Record<string, string> = {}): Promise<{ client: BerthClient; stop: () => Promise<void> }> {
  const [port] = await freePorts(1);
  const key = randomBytes(24).toString('hex');
  const dataDir = mkdtempSync(join(tmp, 'deploy-data-'));
  const daemon = startDaemonProcess(port!, dataDir, key, { BERTH_GIT_BASE_URL: git.baseUrl, BERTH_PORT_RANGE: PORT_RANGES.deployBench, ...caddy.env, ...env });
  const stop = async () => {
    await stopChild(daemon.child);
    rmSync(dataDir, { recursive: true, force: true });
  };
  await orUndo(waitForOk(`http://127.0.0.1:${port}/api/health`, daemon), stop);
  return { client: new BerthClient(`http://127.0.0.1:${port}`, key), stop };
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

export async function removeDirectLeftovers(): Promise<void> {
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

/** `rounds` alternating rounds after a warm-up round; prints each and returns the median ratio b/a. */
export async function compareDeploys(client: BerthClient, git: GitServer, projectId: string, rounds: number): Promise<number> {
  const { service } = await client.createService(projectId, { name: 'web', repoFullName: 'bench/berth', internalPort: 8080 });
  const a: Phases[] = [];
  const b: Phases[] = [];
  for (let round = 0; round <= rounds; round++) {
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
  console.log(`\nmedian of ${rounds} rounds\n  a ms: ${fmt(med(a))}\n  b ms: ${fmt(med(b))}`);
  console.log(`deploy time ratio b/a (median of per-round ratios): ${ratio.toFixed(2)} (target <= ${DEPLOY_TARGET.ratio}) ${verdict(ratio <= DEPLOY_TARGET.ratio)}`);
  return ratio;
}
