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
// The first part is in api-bench-compare.ts and the sweep in api-bench-sweep.ts (runtime-bench.ts
// runs both under each Node.js the bundle could carry); what they share (settings, child processes,
// readings) in api-bench-common.ts.
import { IDLE_SECONDS, LOAD, printTable, runBench, verdict } from './api-bench-common.js';
import { benchBesideBareKoa, COMPARE_SETTINGS } from './api-bench-compare.js';
import { sweep } from './api-bench-sweep.js';
import { benchUptimeChecks } from './check-bench.js';

const ROUNDS = 3;
const TARGET = { ratio: 0.5, p99Ms: 20, rssMb: 80 };

async function main(): Promise<void> {
  const figures = await benchBesideBareKoa({}, ROUNDS);
  console.log(`seeded ${COMPARE_SETTINGS.projects} projects x 10 services in ${figures.seedS.toFixed(1)} s (daemon: ${figures.runtime})`);
  console.log(`load: ${LOAD.connections} connections, pipelining ${LOAD.pipelining}, ${ROUNDS} alternating rounds of ${COMPARE_SETTINGS.seconds} s per side; median of rounds\n`);
  const rows: string[][] = [['endpoint', 'bytes', 'daemon req/s', 'bare req/s', `ratio (target >= ${TARGET.ratio})`, `daemon p99 ms (target < ${TARGET.p99Ms})`, 'bare p99 ms']];
  for (const { label, bytes, daemon: d, bare: b } of figures.endpoints) {
    const ratio = d.rps / b.rps;
    rows.push([
      label,
      String(bytes),
      d.rps.toFixed(0),
      b.rps.toFixed(0),
      `${ratio.toFixed(2)} ${verdict(ratio >= TARGET.ratio)}`,
      `${d.p99.toFixed(1)} ${verdict(d.p99 < TARGET.p99Ms)}`,
      b.p99.toFixed(1),
    ]);
  }
  printTable(rows);
  for (const { label, ratios } of figures.endpoints) console.log(`${label}: ratio per round ${ratios.map((r) => r.toFixed(2)).join(', ')}`);
  const idleRss = figures.idleRss;
  console.log(`\ndaemon idle RSS (${IDLE_SECONDS} s after seeding): ${idleRss.toFixed(1)} MB (target < ${TARGET.rssMb}) ${verdict(idleRss < TARGET.rssMb)}`);
}

await runBench('api-bench', async () => {
  if (!process.argv.includes('--sweep-only')) await main();
  if (!process.argv.includes('--no-sweep')) await sweep();
  await benchUptimeChecks();
});
