// Metrics history against a real store on a driven clock: 30 simulated days (sparse, then the last
// 70 minutes every 10 s) leave each series within its stated bound with every tier filled to its
// span; the 10 min averages read back through the use case equal the averages of what was sampled;
// a deleted service's series go at the next prune; a slow round makes the next tick skip.
import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Access } from '../../daemon/core/access.js';
import { MetricAlerts } from '../../daemon/core/metric-alerts.js';
import { MetricsHistory } from '../../daemon/core/metrics-history.js';
import { averageOf, ROWS_PER_SERIES, type SeriesValues, zeroValues } from '../../daemon/core/metrics-tiers.js';
import type { HistorySample } from '../../daemon/core/ports/metrics-history.js';
import type { Store } from '../../daemon/core/ports/store.js';
import type { DaemonEvent } from '../../daemon/core/events.js';
import { openDataDir } from '../../daemon/runtime.js';
import { serviceRecord } from '../helpers/service-record.js';

const T0 = Date.parse('2026-02-01T00:00:00.000Z');
const DAY = 86_400_000;
const ALL = new Access({ id: 'k', name: 'k', access: 'read', projects: 'all', createdAt: '', lastUsedAt: null });

function valuesAt(ms: number, salt: number): SeriesValues {
  const i = Math.floor(ms / 10_000);
  return { ...zeroValues(), cpu: ((i * 31 + salt) % 97) + 0.5, mem: 5e8 + ((i * 7 + salt) % 1000) * 1e5, memLimit: 2e9, rx: (i * 13) % 500, tx: salt, diskUsed: 1e10, diskTotal: 1e11 };
}

describe('metrics history in the store on a driven clock', function () {
  this.timeout(120_000);
  let dir: string;
  let store: Store;
  let nowMs = T0;
  let fed: { atMs: number; host: SeriesValues }[] = [];
  let services = ['svc-a', 'svc-b'];
  let slow: Promise<void> | null = null;
  const events: DaemonEvent[] = [];
  let history: MetricsHistory;

  before(async () => {
    // on tmpfs when there is one: 6,000 rounds of one transaction each, not 6,000 fsyncs
    dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'berth-metrics-history-'));
    store = await openDataDir(dir);
    await store.projects.insert({ id: 'p', name: 'p', slug: 'p', description: '', createdAt: '', updatedAt: '' });
    for (const id of services) await store.services.insert(serviceRecord(id), []);
    const clock = { now: () => new Date(nowMs).toISOString() };
    const source = {
      async sample(): Promise<HistorySample> {
        if (slow) await slow;
        const host = valuesAt(nowMs, 0);
        fed.push({ atMs: nowMs, host });
        return { host, services: services.map((serviceId, n) => ({ serviceId, values: valuesAt(nowMs, n + 1) })), errors: [] };
      },
    };
    const alerts = new MetricAlerts({ settings: store.settings, store, clock, events: { publish: (e) => events.push(e) } });
    const footprint = { read: async () => ({ daemon: { rssBytes: 1, cpuPercent: null }, caddy: null, storeBytes: 0 }) };
    history = new MetricsHistory({ repo: store.metrics, store, clock, source, footprint, alerts, log: () => undefined });
  });

  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('after 30 simulated days every series is under its bound and each tier holds its span', async () => {
    const end = T0 + 30 * DAY;
    // every 10 minutes until the last 25 hours, every minute until the last 70 minutes, then every 10 s:
    // each tier's span is filled (fewer raw points per bucket than production, the same rows)
    for (nowMs = T0; nowMs < end - 25 * 3_600_000; nowMs += 600_000) await history.tick();
    for (; nowMs < end - 70 * 60_000; nowMs += 60_000) await history.tick();
    fed = [];
    for (; nowMs <= end; nowMs += 10_000) await history.tick();
    nowMs -= 10_000;
    const rows = await store.metrics.count();
    expect(rows).to.be.at.most(ROWS_PER_SERIES * 3);
    for (const [tierMs, span] of [
      [10_000, 360],
      [60_000, 1440],
      [600_000, 4320],
    ] as const) {
      const kept = await store.metrics.range('host', tierMs, 0, end);
      expect(kept.length, `tier ${tierMs}`).to.be.within(span - 2, span + 1);
    }
  });

  it('answers the 10 min averages of what was sampled, and refuses a range past 30 days', async () => {
    const from = new Date(nowMs - 60 * 60_000).toISOString();
    const to = new Date(nowMs - 600_000).toISOString();
    const answer = await history.host(ALL, { from, to, step: '10m' });
    expect(answer.step).to.equal('10m');
    expect(answer.points).to.have.length(6);
    for (const p of answer.points) {
      const at = Date.parse(p.at);
      const bucket = fed.filter((f) => f.atMs >= at && f.atMs < at + 600_000).map((f) => f.host);
      expect(bucket).to.have.length(60);
      const avg = averageOf(bucket);
      expect(p.cpuPercent).to.be.closeTo(avg.cpu, 0.006);
      expect(p.memoryUsedBytes).to.be.closeTo(avg.mem, 0.5);
      expect(p.networkRxBytesPerSec).to.be.closeTo(avg.rx, 0.5);
      expect(p.diskTotalBytes).to.equal(1e11);
    }
    const svc = await history.service(ALL, 'svc-a', {});
    expect(svc.step).to.equal('10s');
    expect(svc.points.length).to.be.within(359, 361);
    const err = await history.host(ALL, { from: new Date(nowMs - 31 * DAY).toISOString() }).catch((e: unknown) => e);
    expect(err).to.have.property('status', 400);
  });

  it("removes a deleted service's series at the next prune", async () => {
    await store.services.deleteCascade('svc-b');
    services = ['svc-a'];
    for (let i = 0; i < 7; i++) {
      nowMs += 10_000;
      await history.tick();
    }
    for (const tierMs of [10_000, 60_000, 600_000]) expect(await store.metrics.range('svc-b', tierMs, 0, nowMs + DAY)).to.deep.equal([]);
    expect((await store.metrics.range('svc-a', 10_000, 0, nowMs + DAY)).length).to.be.greaterThan(300);
  });

  it('skips a tick while the previous round still runs (a slow Engine does not pile samples up)', async () => {
    let release!: () => void;
    slow = new Promise<void>((r) => (release = r));
    const first = history.tick();
    expect(await history.tick()).to.equal('skipped');
    release();
    slow = null;
    expect(await first).to.equal('sampled');
  });
});
