// `npm run bench:backup`: Berth's backup of a PostgreSQL database next to a plain `pg_dump -Fc` of
// the same database, in one run, and the daemon's memory while it backs up.
// The daemon runs as a child process (its RSS read from /proc every 100 ms). The database is a
// Berth postgres service (the stand-in image) grown in steps (about 0.5 GB, then at least 1 GB);
// at each size: (a) `docker exec <container> pg_dump -Fc` into a file on the host, the way a user
// would by hand; (b) POST /database/backups and poll until it has succeeded. Order alternates.
// Prints each time, the ratio b/a (target <= 1.10), and the peak RSS during each backup (target:
// no growth with the database's size). Then a volume's backup beside `tar` and `tar | gzip` by hand
// (volume-backup-bench.ts). Exits 1 when a line MISSes.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BerthClient } from '../../shared/client.js';
import { deployPostgres, sleep, startBenchDaemon, type BenchDaemon } from './bench-daemon.js';
import { PORT_RANGES } from '../helpers/port-ranges.js';
import { startOpsDaemon } from './ops-daemon.js';
import { benchVolumeBackup } from './volume-backup-bench.js';

const TARGET_RATIO = 1.1;
const STEPS_ROWS = [2_500_000, 5_000_000]; // ~0.5 GB and ~1.05 GB of table data (about 200 bytes a row)
/** Where the plain pg_dump writes its file. */
const tmp = mkdtempSync(join(tmpdir(), 'berth-backup-bench-'));
let daemon: BenchDaemon | null = null;
let client: BerthClient;

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

async function timeBerth(serviceId: string): Promise<{ ms: number; peakMb: number; bytes: number }> {
  const pid = daemon!.pid;
  let peak = rssMb(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 100);
  const t0 = performance.now();
  const { backup } = await client.createBackup(serviceId, 'disk');
  for (;;) {
    const b = (await client.listBackups(serviceId)).backups.find((x) => x.id === backup.id)!;
    if (b.status === 'failed') throw new Error(`backup failed: ${b.error}`);
    if (b.status === 'succeeded') {
      const ms = performance.now() - t0;
      clearInterval(sampler);
      await client.deleteBackup(serviceId, b.id);
      return { ms, peakMb: peak, bytes: b.sizeBytes };
    }
    await sleep(50);
  }
}

function timePlain(container: string): Promise<{ ms: number; bytes: number }> {
  const file = join(tmp, 'plain.dump');
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn('docker', ['exec', container, 'pg_dump', '-Fc', '-U', 'app', '-d', 'app'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const out = createWriteStream(file);
    child.stdout.pipe(out);
    child.on('error', reject);
    child.on('close', (code) => {
      out.close(() => {
        if (code !== 0) return reject(new Error(`pg_dump exited ${code}`));
        const bytes = statSync(file).size;
        rmSync(file);
        resolve({ ms: performance.now() - t0, bytes });
      });
    });
  });
}

async function main(): Promise<void> {
  daemon = await startBenchDaemon('backup-bench', PORT_RANGES.backupBench);
  client = daemon.client;
  const { project, service, container } = await deployPostgres(client, 'backup-bench');
  const idleMb = rssMb(daemon.pid);
  console.log(`daemon idle RSS ${idleMb.toFixed(0)} MB`);
  let rows = 0;
  const results: string[] = [];
  for (const target of STEPS_ROWS) {
    console.log(`growing the database to ${target} rows...`);
    await client.databaseQuery(service.id, `INSERT INTO big SELECT g, md5(g::text) || repeat(md5((g * 7)::text), 5) FROM generate_series(${rows + 1}, ${target}) g`).catch(async (err: Error) => {
      if (!/does not exist/.test(err.message)) throw err;
      await client.databaseQuery(service.id, `CREATE TABLE big AS SELECT g, md5(g::text) || repeat(md5((g * 7)::text), 5) AS pad FROM generate_series(1, ${target}) g`);
    });
    rows = target;
    const size = (await client.databaseQuery(service.id, "SELECT pg_database_size('app') AS bytes")).rows[0]!.bytes as number;
    const plain: number[] = [];
    const berth: number[] = [];
    let peak = 0;
    for (let round = 0; round < 2; round++) {
      const order = round % 2 === 0 ? ['plain', 'berth'] : ['berth', 'plain'];
      for (const side of order) {
        if (side === 'plain') plain.push((await timePlain(container)).ms);
        else {
          const r = await timeBerth(service.id);
          berth.push(r.ms);
          peak = Math.max(peak, r.peakMb);
        }
      }
    }
    const a = Math.min(...plain);
    const b = Math.min(...berth);
    const line = `database ${(size / 1e9).toFixed(2)} GB: pg_dump -Fc ${(a / 1000).toFixed(1)} s, Berth ${(b / 1000).toFixed(1)} s, ratio ${(b / a).toFixed(2)} (target <= ${TARGET_RATIO}: ${b / a <= TARGET_RATIO ? 'PASS' : 'MISS'}), daemon peak RSS ${peak.toFixed(0)} MB (idle ${idleMb.toFixed(0)} MB)`;
    console.log(line);
    results.push(line);
  }
  const peaks = results.map((l) => Number(/peak RSS (\d+)/.exec(l)![1]));
  console.log(`peak RSS by size: ${peaks.join(' MB, ')} MB; growth ${(peaks.at(-1)! - peaks[0]!).toFixed(0)} MB (target: none beyond noise)`);
  await client.deleteProject(project.id);
  await daemon.stop();
  daemon = null;
  const volumes = await startOpsDaemon();
  try {
    const line = await benchVolumeBackup(volumes);
    console.log(line);
    results.push(line);
  } finally {
    await volumes.stop();
  }
  if (results.some((l) => /\bMISS\b/.test(l))) process.exitCode = 1;
}

main()
  .catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(async () => {
    await daemon?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });
