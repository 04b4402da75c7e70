// A volume backup (issue 32: <= 1.10x `tar | gzip` of the same data, flat RSS): a project volume of
// an image service filled with VOLUME_MB of mixed files (half random, half text; large and small,
// in nested folders), then per round, in alternating order: (b) Berth's backup through the API
// (POST .../volumes/data/backups until its `backup` event says `succeeded` on /api/events); (a) the
// volume's `tar | gzip` by hand, Docker's documented way (a container mounting the volume and a
// host folder); and (c) a plain tar the same way: Berth's backup is an uncompressed tar (the
// Engine's archive API through a helper container, docker/volume-archive.ts, hashed and fsynced),
// so its ratio to (c) is printed beside the verdict. Median of the per-round ratios; the daemon's
// RSS (a child process, read every 50 ms from /proc) before and at its peak during Berth's
// backups. Then "flat RSS": the volume is doubled with as much again and Berth backs it up
// DOUBLED_ROUNDS times more; the median of the daemon's peak RSS over those backups against the median
// over the backups of the first size after the first (target: under TARGET_SIZE_GROWTH_MB more for
// twice the data). Medians, because one backup's peak moves by 10-17 MB with where the garbage
// collector happens to be (12 rounds of one size peaked at 125-143 MB); the largest peaks are printed
// too. The first backup's rise, the high-water mark reached once (buffers and code warmed, kept for
// reuse), is printed as well. Part of `npm run bench:backup`; alone: `node dist/test/bench/volume-backup-bench.js`.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectVolumeName } from '../../daemon/docker/volumes.js';
import { docker } from '../helpers/docker.js';
import { listenToEvents } from '../helpers/event-listener.js';
import { until } from '../helpers/wait.js';
import { type OpsDaemon, runAlone, verdict } from './ops-daemon.js';

const VOLUME_MB = 200;
const ROUNDS = Number(process.env.BENCH_VOLUME_ROUNDS ?? 8);
const DOUBLED_ROUNDS = 4;
const TARGET_RATIO = 1.1;
/** The median peak RSS with twice the data against the median peak with the first size: flat, up to the noise. */
const TARGET_SIZE_GROWTH_MB = 10;
const IMAGE = 'berth-test/httpd:latest';

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** VOLUME_MB of mixed files under /<folder>: half random (1 MiB and 64 KiB files), half text (a few MiB and 16 KiB files). */
function fill(volume: string, folder: string): void {
  const half = VOLUME_MB / 2;
  const script = [
    `set -e; mkdir -p /d/${folder}; cd /d/${folder}; mkdir -p bin/a bin/b text/a text/b`,
    `for i in $(seq 1 ${half / 2}); do head -c 1048576 /dev/urandom > bin/a/r$i; done`,
    `for i in $(seq 1 ${half * 8}); do head -c 65536 /dev/urandom > bin/b/s$i; done`,
    'i=0; while [ $i -lt 40000 ]; do echo "line $i of a log file, with some words repeated: deploy backup volume restore"; i=$((i+1)); done > text/seed',
    `n=$(( ${half / 2} * 1048576 / $(wc -c < text/seed) )); for i in $(seq 1 $n); do cp text/seed text/a/t$i; done`,
    `for i in $(seq 1 ${half * 32}); do head -c 16384 text/seed > text/b/t$i; done`,
    'du -sm /d',
  ].join('\n');
  docker('run', '--rm', '-v', `${volume}:/d`, IMAGE, 'sh', '-c', script);
}

/**
 * The volume's tar by hand, Docker's documented way (a container mounting the volume and a host
 * folder, `tar` writing into the folder), gzipped on the way when asked; its time in ms. (Through
 * the docker CLI's stdout instead, `docker run ... tar -cf - . > file` is about 3x slower than
 * either: the CLI's attach stream, not tar, is then the bottleneck.)
 */
async function byHand(volume: string, dir: string, gzip: boolean): Promise<number> {
  const file = gzip ? 'hand.tar.gz' : 'hand.tar';
  const command = gzip ? `tar -C /d -cf - . | gzip > /backup/${file}` : `tar -C /d -cf /backup/${file} .`;
  const t0 = performance.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn('docker', ['run', '--rm', '-v', `${volume}:/d:ro`, '-v', `${dir}:/backup`, IMAGE, 'sh', '-c', `set -e; ${command}`], { stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`the hand-made tar exited ${code}`))));
  });
  const ms = performance.now() - t0;
  if (statSync(join(dir, file)).size === 0) throw new Error('the hand-made tar is empty');
  rmSync(join(dir, file));
  return ms;
}

async function byBerth(d: OpsDaemon, serviceId: string): Promise<{ ms: number; beforeMb: number; peakMb: number; bytes: number }> {
  // the end is heard on the event stream (the `backup` event), so that no polling loads the daemon meanwhile
  const events = listenToEvents(d.client);
  await new Promise((r) => setTimeout(r, 200));
  const beforeMb = rssMb(d.pid);
  let peakMb = beforeMb;
  const sampler = setInterval(() => (peakMb = Math.max(peakMb, rssMb(d.pid))), 50);
  try {
    const t0 = performance.now();
    const { backup } = await d.client.createVolumeBackup(serviceId, 'data');
    const answered = performance.now() - t0;
    const end = await until('the backup to end', async () => events.heard().find((e) => e.event === 'backup' && e.json.backupId === backup.id && e.json.status !== 'running'), 600_000, 5);
    const ms = end.receivedAt - (performance.timeOrigin + t0);
    const b = (await d.client.listVolumeBackups(serviceId, 'data')).backups.find((x) => x.id === backup.id)!;
    if (b.status !== 'succeeded') throw new Error(`the volume backup failed: ${b.error}`);
    if (process.env.BENCH_VOLUME_LOG)
      console.log(
        `  Berth: POST answered in ${answered.toFixed(0)} ms; the record's startedAt to finishedAt ${Date.parse(b.finishedAt!) - Date.parse(b.startedAt)} ms; the succeeded event heard at ${ms.toFixed(0)} ms`,
      );
    await d.client.deleteVolumeBackup(serviceId, 'data', b.id);
    return { ms, beforeMb, peakMb, bytes: b.sizeBytes };
  } finally {
    clearInterval(sampler);
    events.stop();
  }
}

export async function benchVolumeBackup(d: OpsDaemon): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'berth-volume-bench-'));
  try {
    const { projectId, services } = await d.liveServices('volume-bench', 1, { volumes: [{ name: 'data', mountPath: '/www/data' }] });
    const serviceId = services[0]!.id;
    const volume = projectVolumeName(projectId, 'data');
    fill(volume, 'first');
    const ratios: number[] = [];
    const gzRatios: number[] = [];
    const berth: number[] = [];
    const plain: number[] = [];
    const gz: number[] = [];
    let firstRise = 0;
    let firstBefore = 0;
    let bytes = 0;
    let before = 0;
    const peaks: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const sides = ['berth', 'tar', 'gzip'];
      const times: Record<string, number> = {};
      for (const side of round % 2 === 0 ? sides : sides.reverse()) {
        if (side === 'berth') {
          const r = await byBerth(d, serviceId);
          times.berth = r.ms;
          bytes = r.bytes;
          before = r.beforeMb;
          // the peak once warm: the rounds after the first
          if (round > 0) peaks.push(r.peakMb);
          else [firstRise, firstBefore] = [r.peakMb - r.beforeMb, r.beforeMb];
        } else times[side] = await byHand(volume, dir, side === 'gzip');
      }
      berth.push(times.berth!);
      plain.push(times.tar!);
      gz.push(times.gzip!);
      ratios.push(times.berth! / times.tar!);
      gzRatios.push(times.berth! / times.gzip!);
      if (process.env.BENCH_VOLUME_LOG)
        console.log(
          `round ${round}: Berth ${times.berth!.toFixed(0)} ms, tar ${times.tar!.toFixed(0)} ms, tar | gzip ${times.gzip!.toFixed(0)} ms; daemon RSS ${before.toFixed(1)} MB before, peaks ${peaks.map((p) => p.toFixed(1)).join(', ')} MB so far`,
        );
    }
    fill(volume, 'second');
    const doubledPeaks: number[] = [];
    let doubledBytes = 0;
    for (let round = 0; round < DOUBLED_ROUNDS; round++) {
      const r = await byBerth(d, serviceId);
      doubledPeaks.push(r.peakMb);
      doubledBytes = r.bytes;
      if (process.env.BENCH_VOLUME_LOG) console.log(`twice the data, round ${round}: Berth ${r.ms.toFixed(0)} ms; daemon RSS ${r.beforeMb.toFixed(1)} MB before, peak ${r.peakMb.toFixed(1)} MB`);
    }
    const [peak, doubledPeak] = [median(peaks), median(doubledPeaks)];
    const sizeGrowth = doubledPeak - peak;
    const ratio = median(gzRatios);
    const s = (ms: number[]) => `${(median(ms) / 1000).toFixed(2)} s`;
    return (
      `volume backup (${(bytes / 1e6).toFixed(0)} MB tar, ${ROUNDS} rounds): Berth ${s(berth)}, tar | gzip by hand ${s(gz)}, median ratio ${ratio.toFixed(2)} ${verdict(ratio <= TARGET_RATIO)} (target <= ${TARGET_RATIO}); ` +
      `a plain tar by hand ${s(plain)} (ratio ${median(ratios).toFixed(2)}); daemon peak RSS (median) ${peak.toFixed(1)} MB at ${(bytes / 1e6).toFixed(0)} MB, ${doubledPeak.toFixed(1)} MB at ${(doubledBytes / 1e6).toFixed(0)} MB ` +
      `(largest ${Math.max(...peaks).toFixed(1)} and ${Math.max(...doubledPeaks).toFixed(1)} MB): ` +
      `${sizeGrowth >= 0 ? '+' : ''}${sizeGrowth.toFixed(1)} MB for twice the data ${verdict(sizeGrowth < TARGET_SIZE_GROWTH_MB)} (flat: target < ${TARGET_SIZE_GROWTH_MB} MB); ` +
      `the first backup's rise ${firstRise.toFixed(1)} MB from ${firstBefore.toFixed(0)} MB (buffers kept for reuse, not per byte)`
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('volume-backup-bench.js')) runAlone(benchVolumeBackup);
