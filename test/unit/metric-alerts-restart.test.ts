// Metric alerts across a daemon restart (core/metric-alerts.ts): which alerts are firing is kept in
// the store, so a new daemon neither fires again an alert that still holds nor misses resolving one
// that cleared while it was down. A driven clock and a real store; a new MetricAlerts is the restart.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DaemonEvent } from '../../daemon/core/events.js';
import { MetricAlerts } from '../../daemon/core/metric-alerts.js';
import { type SeriesValues, zeroValues } from '../../daemon/core/metrics-tiers.js';
import type { Store } from '../../daemon/core/ports/store.js';
import { openDataDir } from '../../daemon/runtime.js';
import { serviceRecord } from '../helpers/service-record.js';

const T0 = Date.parse('2026-03-01T00:00:00.000Z');
const busy = (cpu: number): SeriesValues => ({ ...zeroValues(), cpu, mem: 1e8, memLimit: 1e9 });

describe('metric alerts across a restart', () => {
  let dir: string;
  let store: Store;
  let nowMs = T0;
  const events: DaemonEvent[] = [];
  const daemon = () => new MetricAlerts({ settings: store.settings, store, clock: { now: () => new Date(nowMs).toISOString() }, events: { publish: (e) => events.push(e) } });
  /** Rounds every 10 s for `minutes` with the service's CPU at `cpu`. */
  const rounds = async (alerts: MetricAlerts, minutes: number, cpu: number) => {
    for (const end = nowMs + minutes * 60_000; nowMs < end; nowMs += 10_000) await alerts.evaluate(nowMs, null, [{ serviceId: 'svc', values: busy(cpu) }]);
  };
  const states = () => events.map((e) => (e.data as { state: string }).state);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'berth-metric-alerts-'));
    store = await openDataDir(dir);
    await store.projects.insert({ id: 'p', name: 'p', slug: 'p', description: '', createdAt: '', updatedAt: '' });
    await store.services.insert(serviceRecord('svc'), []);
    events.length = 0;
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('an alert that still holds after a restart does not fire again, and resolves once when it clears', async () => {
    await rounds(daemon(), 6, 99); // above 90% for more than the default 5 minutes
    expect(states()).to.deep.equal(['firing']);
    const restarted = daemon();
    await rounds(restarted, 10, 99);
    expect(states()).to.deep.equal(['firing']);
    await rounds(restarted, 1, 5);
    expect(states()).to.deep.equal(['firing', 'resolved']);
    await rounds(daemon(), 6, 5); // and a later restart has nothing left to resolve
    expect(states()).to.deep.equal(['firing', 'resolved']);
  });

  it('an alert that cleared while the daemon was down resolves on the first round', async () => {
    await rounds(daemon(), 6, 99);
    await rounds(daemon(), 0.2, 5);
    expect(states()).to.deep.equal(['firing', 'resolved']);
  });
});
