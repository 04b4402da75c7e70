// The metrics collector's promises: one collection per cache window shared by concurrent callers,
// failed or hung parts reported as null with an error line, per-key filtering; and the
// `docker stats` arithmetic for CPU and memory.
import { expect } from 'chai';
import { cpuPercent, memoryInUse } from '../../daemon/metrics/containers.js';
import { MetricsCollector, viewFor } from '../../daemon/core/metrics.js';
import type { MetricsSources } from '../../daemon/core/ports/metrics-sources.js';
import type { ServiceContainerMetrics } from '../../shared/types.js';

function fakeClock(startMs = Date.parse('2030-01-01T00:00:00.000Z')) {
  let ms = startMs;
  return { now: () => new Date(ms).toISOString(), advance: (by: number) => (ms += by) };
}

function service(projectId: string, serviceId: string): ServiceContainerMetrics {
  return { serviceId, projectId, deploymentId: `d-${serviceId}`, containerName: `c-${serviceId}`, cpuPercent: 1, memoryBytes: 10, memoryLimitBytes: 100 };
}

function sources(overrides: Partial<MetricsSources> = {}): MetricsSources & { calls: number } {
  const s = {
    calls: 0,
    async cpu() {
      s.calls++;
      await new Promise((r) => setTimeout(r, 20));
      return { cores: 2, loadPercent: 12.5 };
    },
    memory: async () => ({ totalBytes: 100, usedBytes: 40 }),
    disks: async () => [{ mount: '/', totalBytes: 100, usedBytes: 50 }],
    network: async () => [{ iface: 'eth0', rxBytesPerSecond: 1, txBytesPerSecond: 2 }],
    services: async () => ({ services: [service('p1', 's1'), service('p2', 's2')], errors: [{ projectId: 'p2', message: 'container c-s3: boom' }] }),
    ...overrides,
  };
  return s;
}

describe('metrics collector', () => {
  it('concurrent callers share one collection', async () => {
    const src = sources();
    const collector = new MetricsCollector(src, fakeClock());
    const results = await Promise.all([collector.snapshot(), collector.snapshot(), collector.snapshot()]);
    expect(src.calls).to.equal(1);
    expect(results[1]).to.equal(results[0]);
    expect(results[2]).to.equal(results[0]);
  });

  it('serves the cached snapshot within the window and collects again after it', async () => {
    const src = sources();
    const clock = fakeClock();
    const collector = new MetricsCollector(src, clock, { cacheMs: 2_000 });
    const first = await collector.snapshot();
    clock.advance(1_999);
    expect(await collector.snapshot()).to.equal(first);
    expect(src.calls).to.equal(1);
    clock.advance(1);
    const second = await collector.snapshot();
    expect(src.calls).to.equal(2);
    expect(second.collectedAt > first.collectedAt).to.equal(true);
  });

  it('reports a failed part as null with an error line and keeps the rest', async () => {
    const collector = new MetricsCollector(
      sources({ memory: async () => Promise.reject(new Error('no /proc/meminfo')), services: async () => Promise.reject(new Error('connect ENOENT /var/run/docker.sock')) }),
      fakeClock(),
    );
    const snap = await collector.snapshot();
    expect(snap.host.memory).to.equal(null);
    expect(snap.services).to.equal(null);
    expect(snap.host.cpu).to.deep.equal({ cores: 2, loadPercent: 12.5 });
    expect(snap.errors.map((e) => e.message)).to.deep.equal(['host memory: no /proc/meminfo', 'services: connect ENOENT /var/run/docker.sock']);
  });

  it('reports a part that never answers once its time is up', async () => {
    const collector = new MetricsCollector(sources({ disks: () => new Promise(() => undefined) }), fakeClock(), { partTimeoutMs: 50 });
    const snap = await collector.snapshot();
    expect(snap.host.disks).to.equal(null);
    expect(snap.host.network).to.have.length(1);
    expect(snap.errors.map((e) => e.message)).to.deep.equal(['host disks: no answer within 0.05 s', 'container c-s3: boom']);
  });

  it('a key sees the host, and services and errors of its own projects only', async () => {
    const snap = await new MetricsCollector(sources(), fakeClock()).snapshot();
    const onlyP1 = viewFor(snap, { canSee: (p) => p === 'p1' });
    expect(onlyP1.services!.map((s) => s.serviceId)).to.deep.equal(['s1']);
    expect(onlyP1.errors).to.deep.equal([]);
    expect(onlyP1.host).to.deep.equal(snap.host);
    const onlyP2 = viewFor(snap, { canSee: (p) => p === 'p2' });
    expect(onlyP2.services!.map((s) => s.serviceId)).to.deep.equal(['s2']);
    expect(onlyP2.errors).to.deep.equal(['container c-s3: boom']);
  });
});

describe('container stats arithmetic', () => {
  it('CPU percent is the container share of host CPU time times the online CPUs', () => {
    expect(cpuPercent(undefined, { total: 5, system: 10 }, 2)).to.equal(null);
    // 1 s of container CPU over 2 s of host CPU (two cores for one second): one core busy
    expect(cpuPercent({ total: 0, system: 0 }, { total: 1e9, system: 2e9 }, 2)).to.equal(100);
    expect(cpuPercent({ total: 0, system: 0 }, { total: 0.25e9, system: 2e9 }, 2)).to.equal(25);
  });

  it('CPU percent is unknown after a restart reset the counters or when no time passed', () => {
    expect(cpuPercent({ total: 9e9, system: 1e9 }, { total: 1e9, system: 2e9 }, 2)).to.equal(null);
    expect(cpuPercent({ total: 1e9, system: 2e9 }, { total: 1e9, system: 2e9 }, 2)).to.equal(null);
  });

  it('memory in use leaves out the inactive page cache (cgroup v1 and v2)', () => {
    expect(memoryInUse({ usage: 1000, stats: { total_inactive_file: 300, inactive_file: 250 } })).to.equal(700);
    expect(memoryInUse({ usage: 1000, stats: { inactive_file: 250 } })).to.equal(750);
    expect(memoryInUse({ usage: 1000 })).to.equal(1000);
    expect(memoryInUse({ usage: 100, stats: { inactive_file: 400 } })).to.equal(100);
  });
});
