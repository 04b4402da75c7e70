// Metrics history's reads refuse bad ranges with a 400 (never a 500), an unknown or out-of-scope
// service answers 404, and the host's history, the footprint and the alerts stay with keys over all
// projects; the defaults of the alerts, and a PATCH that changes only what it names.
import { expect } from 'chai';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeProjectWorld, type ProjectWorld } from '../helpers/fixtures.js';

describe('metrics history: input and access', function () {
  this.timeout(60_000);
  let t: TestDaemon;
  let w: ProjectWorld;
  let other: ProjectWorld;

  before(async () => {
    t = await startTestDaemon({ BERTH_CADDY_ADMIN: 'http://127.0.0.1:1' });
    w = await makeProjectWorld(t.admin, 'metrics-input');
    other = await makeProjectWorld(t.admin, 'metrics-other');
  });
  after(async () => {
    await t?.stop();
  });

  it('refuses bad ranges and steps with 400 and says why', async () => {
    const bad = [
      'from=yesterday',
      'step=5m',
      'from=2026-02-02T00:00:00Z&to=2026-02-01T00:00:00Z',
      'from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z',
      'range=1h',
      'from=2026-02-01T00:00:00Z&from=2026-02-02T00:00:00Z',
      `to=${'9'.repeat(50)}`,
    ];
    for (const q of bad) {
      const res = await t.admin.request('GET', `/api/services/${w.web.id}/metrics?${q}`);
      expect(res.status, `${q}: ${JSON.stringify(res.body)}`).to.equal(400);
      expect(res.body).to.have.nested.property('error.code', 'invalid_input');
    }
    expect((await t.admin.request('GET', '/api/system/metrics/history?step=1h')).status).to.equal(400);
    const ok = await t.admin.request('GET', `/api/services/${w.web.id}/metrics?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z`);
    expect(ok.status).to.equal(200);
    expect(ok.body).to.deep.equal({ serviceId: w.web.id, step: '10m', points: [] });
  });

  it("answers 404 for an unknown service and for one outside the key's projects", async () => {
    const scoped = await t.clientWith('read', [w.project.id]);
    expect((await scoped.request('GET', `/api/services/${other.web.id}/metrics`)).status).to.equal(404);
    expect((await scoped.request('GET', '/api/services/00000000-0000-4000-8000-000000000000/metrics')).status).to.equal(404);
    expect((await scoped.request('GET', `/api/services/${w.web.id}/metrics`)).status).to.equal(200);
    for (const path of ['/api/system/metrics/history', '/api/system/footprint', '/api/system/metrics/alerts']) expect((await scoped.request('GET', path)).status, path).to.equal(403);
    const reader = await t.clientWith('read', 'all');
    expect((await reader.request('PATCH', '/api/system/metrics/alerts', { cpuPercent: 50 })).status).to.equal(403);
  });

  it('has the documented defaults, and a PATCH changes only the fields it names', async () => {
    expect(await t.admin.metricAlerts()).to.deep.equal({ cpuPercent: 90, memoryPercent: 90, forMinutes: 5, diskFullHours: 24 });
    expect(await t.admin.patchMetricAlerts({ diskFullHours: null })).to.deep.equal({ cpuPercent: 90, memoryPercent: 90, forMinutes: 5, diskFullHours: null });
    expect((await t.admin.request('PATCH', '/api/system/metrics/alerts', { forMinutes: 1.5 })).status).to.equal(400);
    expect(await t.admin.metricAlerts()).to.deep.equal({ cpuPercent: 90, memoryPercent: 90, forMinutes: 5, diskFullHours: null });
  });
});
