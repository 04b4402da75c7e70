// `npm run bench:metrics`: the figures for metrics history, in one run.
// 1. Sampling cost: N small containers (busybox `sleep`, default 100: BERTH_BENCH_METRICS_CONTAINERS)
//    labelled as a Berth daemon's, each its own service, sampled by the daemon's own code (the
//    history source: one-shot Engine stats, at most 32 at once, plus the host; the points written to a
//    real store) in back-to-back rounds. The CPU this process spends per round, over the 10 s between
//    rounds, is the share of one core; with fewer than 100 containers the figure is scaled to 100
//    (linearly, which over-counts: the host's part does not grow). The resident size added by sampling is read the
//    same way. dockerd's CPU for answering the stats is printed beside it (the Engine's work, not
//    the daemon's).
// 2. The store after 30 simulated days (driven clock) for 10 services and the host: rows against
//    the stated bound (ROWS_PER_SERIES per series) and the file's size per series.
// Each figure prints its target and PASS or MISS.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { Access } from '../../daemon/core/access.js';
import { systemClock } from '../../daemon/core/clock.js';
import { MetricAlerts } from '../../daemon/core/metric-alerts.js';
import { MetricsHistory } from '../../daemon/core/metrics-history.js';
import { ROWS_PER_SERIES, zeroValues } from '../../daemon/core/metrics-tiers.js';
import type { HistorySource } from '../../daemon/core/ports/metrics-history.js';
import type { Store } from '../../daemon/core/ports/store.js';
import { connectDocker } from '../../daemon/docker/client.js';
import { Ownership } from '../../daemon/docker/labels.js';
import { historySource } from '../../daemon/metrics/history-source.js';
import { openDataDir } from '../../daemon/runtime.js';
import { DB_FILE } from '../../daemon/store/open.js';
import { serviceRecord } from '../helpers/service-record.js';

const run = promisify(execFile);
const CONTAINERS = Number(process.env.BERTH_BENCH_METRICS_CONTAINERS ?? 100);
const SCALE_TO = 100;
const ROUNDS = 8;
const CPU_TARGET_PERCENT = 2;
const RSS_TARGET_MB = 10;
const STORE_SERVICES = 10;
const DAY = 86_400_000;

const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
/** The resident size after a full collection (node --expose-gc; without it, as it is). */
const rssMb = () => {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage.rss() / 2 ** 20;
};

async function dockerdCpuMs(): Promise<number | null> {
  const pid = (await run('pidof', ['dockerd']).catch(() => ({ stdout: '' }))).stdout.trim().split(' ')[0];
  if (!pid) return null;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

function historyOver(store: Store, source: HistorySource, now: () => string): MetricsHistory {
  const clock = { now };
  const alerts = new MetricAlerts({ settings: store.settings, store, clock, events: { publish: () => undefined } });
  const footprint = { read: async () => ({ daemon: { rssBytes: 0, cpuPercent: null }, caddy: null, storeBytes: 0 }) };
  return new MetricsHistory({ repo: store.metrics, store, clock, source, footprint, alerts, log: () => undefined });
}

async function samplingCost(): Promise<void> {
  const own = new Ownership(`bench-metrics-${randomBytes(4).toString('hex')}`);
  const dir = mkdtempSync(join(tmpdir(), 'berth-metrics-bench-'));
  const store = await openDataDir(dir);
  try {
    await store.projects.insert({ id: 'p', name: 'p', slug: 'p', description: '', createdAt: '', updatedAt: '' });
    const ids = Array.from({ length: CONTAINERS }, (_, i) => `bench-svc-${i}`);
    for (const id of ids) await store.services.insert(serviceRecord(id), []);
    console.log(`starting ${CONTAINERS} containers (busybox sleep), each a service of its own`);
    for (let i = 0; i < ids.length; i += 5) {
      await Promise.all(
        ids.slice(i, i + 5).map((serviceId) => {
          const labels = Object.entries(own.labels({ projectId: 'p', serviceId, deploymentId: 'd' })).flatMap(([k, v]) => ['--label', `${k}=${v}`]);
          return run('docker', ['run', '-d', '--memory', '32m', ...labels, 'berth-test/busybox:latest', 'sleep', '3600']);
        }),
      );
    }
    const history = historyOver(store, historySource({ docker: connectDocker('/var/run/docker.sock'), own, store, dataDir: dir }), systemClock.now);
    const baseline = rssMb();
    // two rounds load systeminformation and seed each container's CPU counter
    await history.tick();
    await history.tick();
    const engine0 = await dockerdCpuMs();
    const cpu0 = process.cpuUsage();
    const wall0 = Date.now();
    for (let i = 0; i < ROUNDS; i++) await history.tick();
    const used = process.cpuUsage(cpu0);
    const wallMs = (Date.now() - wall0) / ROUNDS;
    const engineMs = engine0 === null ? null : ((await dockerdCpuMs())! - engine0) / ROUNDS;
    const perRoundMs = (used.user + used.system) / 1000 / ROUNDS;
    const percent = (perRoundMs / 10_000) * 100;
    const scaled = percent * (SCALE_TO / CONTAINERS);
    const after = rssMb();
    // RSS does not shrink reliably: a negative difference means sampling added nothing measurable
    const addedMb = Math.max(0, after - baseline);
    const scaledMb = addedMb * (SCALE_TO / CONTAINERS);
    const points = await history.service(new Access({ id: 'bench', name: 'bench', access: 'read', projects: 'all', createdAt: '', lastUsedAt: null }), ids[0]!, {});
    console.log(`one round of ${CONTAINERS} containers + host: ${perRoundMs.toFixed(1)} ms of daemon CPU, ${wallMs.toFixed(0)} ms wall; ${points.points.length} points kept for one service`);
    console.log(
      `sampling ${SCALE_TO} services every 10 s (scaled from ${CONTAINERS}): ${scaled.toFixed(2)}% of one core (target < ${CPU_TARGET_PERCENT}%: ${verdict(scaled < CPU_TARGET_PERCENT)})` +
        (engineMs === null ? '' : `; dockerd spends ${((engineMs / 10_000) * 100 * (SCALE_TO / CONTAINERS)).toFixed(2)}% of one core answering (the Engine's work)`),
    );
    console.log(
      `resident size ${baseline.toFixed(1)} MB before sampling, ${after.toFixed(1)} MB after ${ROUNDS + 2} rounds: ${addedMb.toFixed(1)} MB added for ${CONTAINERS}, ${scaledMb.toFixed(1)} MB scaled to ${SCALE_TO} (target < ${RSS_TARGET_MB} MB: ${verdict(scaledMb < RSS_TARGET_MB)})`,
    );
  } finally {
    const { stdout } = await run('docker', ['ps', '-aq', '--filter', `label=dev.berth.instance=${own.instanceId}`]);
    const containers = stdout.trim().split('\n').filter(Boolean);
    if (containers.length > 0) await run('docker', ['rm', '-f', ...containers]);
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function storeBound(): Promise<void> {
  const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'berth-metrics-bench-store-'));
  const store = await openDataDir(dir);
  try {
    await store.projects.insert({ id: 'p', name: 'p', slug: 'p', description: '', createdAt: '', updatedAt: '' });
    const ids = Array.from({ length: STORE_SERVICES }, (_, i) => `svc-${i}`);
    for (const id of ids) await store.services.insert(serviceRecord(id), []);
    let nowMs = Date.parse('2026-01-01T00:00:00.000Z');
    const values = () => ({ ...zeroValues(), cpu: Math.random() * 100, mem: Math.random() * 1e9, memLimit: 2e9, rx: Math.random() * 1e5 });
    const source: HistorySource = { sample: async () => ({ host: values(), services: ids.map((serviceId) => ({ serviceId, values: values() })), errors: [] }) };
    const history = historyOver(store, source, () => new Date(nowMs).toISOString());
    const end = nowMs + 30 * DAY;
    // every 10 min until the last 25 h, every minute until the last 70 min, then every 10 s: every tier filled to its span
    for (; nowMs < end - 25 * 3_600_000; nowMs += 600_000) await history.tick();
    for (; nowMs < end - 70 * 60_000; nowMs += 60_000) await history.tick();
    for (; nowMs <= end; nowMs += 10_000) await history.tick();
    const rows = await store.metrics.count();
    const series = STORE_SERVICES + 1;
    const bound = ROWS_PER_SERIES * series;
    const bytes = [DB_FILE, `${DB_FILE}-wal`].reduce((n, f) => n + (existsSync(join(dir, f)) ? statSync(join(dir, f)).size : 0), 0);
    console.log(
      `store after 30 simulated days, ${series} series: ${rows} rows (${(rows / series).toFixed(0)} per series), bound ${bound} (${ROWS_PER_SERIES} per series: ${verdict(rows <= bound)}); ` +
        `store file ${(bytes / 2 ** 20).toFixed(1)} MB, about ${(bytes / series / 2 ** 20).toFixed(2)} MB per series`,
    );
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await samplingCost();
await storeBound();
