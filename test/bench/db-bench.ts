// `npm run bench:db`: row pages of a 10M-row PostgreSQL table through the API, at the start and
// halfway down, by offset and by cursor (issue 17: a rows page stays < 50 ms at any depth).
// The daemon runs as a child process; the database is a Berth postgres service (the stand-in
// image) filled with one `INSERT ... SELECT generate_series` through psql in its container (not
// through the API). Times are the median of several requests after a warm-up, each a whole
// GET .../database/rows (the daemon opens a connection per request, as it does for every client).
// Prints each time with PASS/MISS against 50 ms; deletes the project (service, volume) at the end.
import { spawnSync } from 'node:child_process';
import type { DatabaseRowsPage } from '../../shared/types.js';
import { deployPostgres, startBenchDaemon, type BenchDaemon } from './bench-daemon.js';
import { PORT_RANGES } from '../helpers/port-ranges.js';

const ROWS = 10_000_000;
const DEPTH = 5_000_000;
const LIMIT = 50;
const TARGET_MS = 50;
const REPEAT = 7;
let daemon: BenchDaemon | null = null;

async function timed(what: string, read: () => Promise<DatabaseRowsPage>, firstId: number): Promise<string> {
  const page = await read(); // warm-up, and a check that the page is the one we mean
  if (page.rows[0]?.['id'] !== firstId || page.rows.length !== LIMIT)
    throw new Error(`${what}: expected ${LIMIT} rows from id ${firstId}, got ${page.rows.length} from ${JSON.stringify(page.rows[0]?.['id'])}`);
  const times: number[] = [];
  for (let i = 0; i < REPEAT; i++) {
    const t0 = performance.now();
    await read();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  const line = `${what}: median ${median.toFixed(1)} ms (min ${times[0]!.toFixed(1)}, max ${times.at(-1)!.toFixed(1)}) ${median < TARGET_MS ? 'PASS' : 'MISS'} (target < ${TARGET_MS} ms)`;
  console.log(line);
  return line;
}

async function main(): Promise<void> {
  daemon = await startBenchDaemon('db-bench', PORT_RANGES.dbBench);
  const { client } = daemon;
  const { project, service, container } = await deployPostgres(client, 'db-bench');
  try {
    console.log(`filling a ${ROWS}-row table through psql in ${container}...`);
    const t0 = performance.now();
    const sql = `CREATE TABLE big (id bigint PRIMARY KEY, name text NOT NULL, n integer NOT NULL);
      INSERT INTO big SELECT g, 'row ' || g, g % 1000 FROM generate_series(1, ${ROWS}) g;
      ANALYZE big;`;
    const fill = spawnSync('docker', ['exec', '-i', container, 'psql', '-v', 'ON_ERROR_STOP=1', '-q', '-U', 'app', '-d', 'app'], { input: sql, encoding: 'utf8' });
    if (fill.status !== 0) throw new Error(`psql failed: ${fill.stderr}`);
    console.log(`filled in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const table = 'public.big';
    const lines: string[] = [];
    lines.push(await timed('first page', () => client.databaseRows(service.id, { table, limit: LIMIT }), 1));
    lines.push(await timed(`offset=${DEPTH}`, () => client.databaseRows(service.id, { table, limit: LIMIT, offset: DEPTH }), DEPTH + 1));
    // the cursor at the same depth: the nextCursor of the page that ends at row DEPTH
    const before = await client.databaseRows(service.id, { table, limit: LIMIT, offset: DEPTH - LIMIT });
    const after = before.nextCursor;
    if (!after) throw new Error('no nextCursor at that depth');
    lines.push(await timed(`after=<cursor at row ${DEPTH}>`, () => client.databaseRows(service.id, { table, limit: LIMIT, after }), DEPTH + 1));
    const total = await client.databaseRows(service.id, { table, limit: 1 });
    console.log(`total ${total.total} (${total.totalEstimated ? "the planner's estimate" : 'counted'})`);
    console.log(`\n${lines.join('\n')}`);
  } finally {
    await client.deleteProject(project.id).catch((err: Error) => console.error(`cleanup: ${err.message}`));
  }
}

main()
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => daemon?.stop());
