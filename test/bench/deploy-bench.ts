// `npm run bench:deploy`: what deploying through Berth costs next to doing it by hand, in one run
// (deploy-bench-rounds.ts: clone + build + run by hand against a deployment through the API, the
// median ratio b/a), then the log lag: a worker container stamps each line with its own clock
// (adjtimex, in µs) every 50 ms; lag = arrival on an SSE client of /runtime-logs/stream - that
// stamp; p50/p95/p99.
import { rmSync } from 'node:fs';
import type { BerthClient } from '../../shared/client.js';
import type { Deployment } from '../../shared/types.js';
import type { GitServer } from '../helpers/git-server.js';
import { children, stopChild, tmp, verdict } from './api-bench-common.js';
import { compareDeploys, deployBenchSetup, removeDirectLeftovers, sleep, startDeployDaemon, wallMs } from './deploy-bench-rounds.js';

const ROUNDS = 5; // plus one warm-up round that is not counted
const LAG_LINES = 200;
const TARGET = { p99Ms: 100 };
const pct = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil((p / 100) * xs.length) - 1)]!;

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
  const { git, caddy, stop } = await deployBenchSetup();
  cleanups.push(stop);
  const daemon = await startDeployDaemon(git, caddy);
  cleanups.push(daemon.stop);
  const client = daemon.client;
  const { project } = await client.createProject({ name: 'deploy bench' });
  cleanups.push(async () => void (await client.deleteProject(project.id))); // Berth removes its containers and images
  console.log(`fixture: webApp (busybox httpd); ${ROUNDS} rounds after a warm-up, order alternating; ms per phase\n`);
  await compareDeploys(client, git, project.id, ROUNDS);
  await measureLag(client, git, project.id);
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
