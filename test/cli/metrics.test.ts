// `berth metrics` and `berth server footprint` against a real daemon (no Docker needed: a service's
// points are written to the store as the sampler would): the summary table with min, average, max,
// latest and a sparkline, --json, --range checked, the alerts read and changed, the host's history
// and the footprint refused to a key over some projects (exit 3).
import { expect } from 'chai';
import type { BerthFootprint, MetricAlertSettings, ServiceMetricsHistory } from '../../shared/types.js';
import { zeroValues } from '../../daemon/core/metrics-tiers.js';
import { openDataDir } from '../../daemon/runtime.js';
import { cliHome, type CliHome } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeProjectWorld, type ProjectWorld } from '../helpers/fixtures.js';

describe('berth metrics: metrics history from the terminal', function () {
  this.timeout(60_000);
  let t: TestDaemon;
  let cli: CliHome;
  let env: Record<string, string>;
  let w: ProjectWorld;

  before(async () => {
    t = await startTestDaemon({ BERTH_CADDY_ADMIN: 'http://127.0.0.1:1' });
    w = await makeProjectWorld(t.admin, 'cli-metrics');
    const store = await openDataDir(t.dataDir);
    try {
      const now = Date.now() - (Date.now() % 10_000);
      // ten minutes of 10 s points: CPU climbing from 10% to 69%, 100 MiB of a 512 MiB limit
      const points = Array.from({ length: 60 }, (_, i) => ({
        series: w.web.id,
        tierMs: 10_000,
        atMs: now - (59 - i) * 10_000,
        values: { ...zeroValues(), cpu: 10 + i, mem: 100 * 2 ** 20, memLimit: 512 * 2 ** 20, rx: 2048, blkWrite: 4096 },
      }));
      await store.metrics.insert(points);
    } finally {
      await store.close();
    }
    const { token } = await t.admin.createKey({ name: 'operator', access: 'write', projects: 'all' });
    env = { BERTH_SERVER: t.url, BERTH_TOKEN: token };
    cli = cliHome();
  });
  after(async () => {
    await t?.stop();
    cli?.remove();
  });

  it("prints a service's min, average, max and latest with a sparkline, and the API's answer with --json", async () => {
    const run = await cli.run(['metrics', w.web.id], { env });
    expect(run.code, run.stderr).to.equal(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).to.match(/^METRIC\s+MIN\s+AVG\s+MAX\s+LATEST/);
    expect(lines.find((l) => l.startsWith('cpu'))).to.match(/^cpu\s+10\.0%\s+39\.5%\s+69\.0%\s+69\.0%\s+[▁▂▃▄▅▆▇█]{24}$/);
    expect(lines.find((l) => l.startsWith('memory'))).to.match(/^memory\s+100\.0 MiB\s+100\.0 MiB/);
    expect(run.stdout).to.include('memory limit 512.0 MiB; 60 points of 10s');
    const json = (await cli.run(['metrics', w.web.id, '--json'], { env })).json<ServiceMetricsHistory>();
    expect(json[0]!.points).to.have.length(60);
    expect(json[0]).to.include({ serviceId: w.web.id, step: '10s' });
    const day = (await cli.run(['metrics', w.web.id, '--range', '24h', '--json'], { env })).json<ServiceMetricsHistory>();
    expect(day[0]!.step).to.equal('1m');
    expect((await cli.run(['metrics', w.web.id, '--range', '2d'], { env })).code).to.equal(2);
    expect((await cli.run(['metrics'], { env })).code).to.equal(2);
  });

  it('reads and changes the alerts, and shows the footprint', async () => {
    const shown = await cli.run(['metrics', 'alerts'], { env });
    expect(shown.stdout)
      .to.match(/cpu\s+90%/)
      .and.match(/for\s+5 min/);
    const changedRun = await cli.run(['metrics', 'alerts', '--cpu', '75', '--memory', 'off', '--for', '2', '--json'], { env });
    expect(changedRun.code, changedRun.stderr).to.equal(0);
    const changed = changedRun.json<MetricAlertSettings>();
    expect(changed[0]).to.deep.equal({ cpuPercent: 75, memoryPercent: null, forMinutes: 2, diskFullHours: 24 });
    expect((await cli.run(['metrics', 'alerts', '--cpu', 'lots'], { env })).code).to.equal(2);
    const footprint = await cli.run(['server', 'footprint'], { env });
    expect(footprint.code, footprint.stderr).to.equal(0);
    expect(footprint.stdout)
      .to.match(/^daemon\s+\d/m)
      .and.match(/^caddy\s+not found/m)
      .and.include('metrics rows');
    const json = (await cli.run(['server', 'footprint', '--json'], { env })).json<BerthFootprint>();
    expect(json[0]!.daemon.rssBytes).to.be.greaterThan(0);
    expect(json[0]!.metricsRows).to.be.at.least(60);
  });

  it('refuses the host and the footprint to a key over some projects (exit 3), not its services', async () => {
    const { token } = await t.admin.createKey({ name: 'some', access: 'read', projects: [w.project.id] });
    const some = { BERTH_SERVER: t.url, BERTH_TOKEN: token };
    expect((await cli.run(['metrics', '--host'], { env: some })).code).to.equal(3);
    expect((await cli.run(['server', 'footprint'], { env: some })).code).to.equal(3);
    expect((await cli.run(['metrics', w.web.id], { env: some })).code).to.equal(0);
    const host = await cli.run(['metrics', '--host', '--json'], { env });
    expect(host.code, host.stderr).to.equal(0);
  });
});
