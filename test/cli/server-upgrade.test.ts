// `berth server version` and `berth server upgrade --from` against a daemon whose upgrader is a
// fake of the installer's (test/helpers/fake-upgrader.ts; BERTH_UPGRADER=spawn): the upgrade says
// what happens and asks first, then follows the run, printing the upgrader's log lines, through the
// daemon's restart (the API away for a few seconds), to `upgraded from X to Y` (exit 0) or
// `rolled back to X: why` (exit 1); --json prints one object per line.
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerUpgrade, UpgradeRun } from '../../shared/types.js';
import { VERSION } from '../../daemon/version.js';
import { cliHome, type CliHome } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { fakeInstall, type FakeInstall } from '../helpers/fake-upgrader.js';
import { until } from '../helpers/wait.js';

describe('berth server version / upgrade', function () {
  this.timeout(120_000);
  let t: TestDaemon;
  let install: FakeInstall;
  let cli: CliHome;
  let env: Record<string, string>;

  before(async () => {
    install = fakeInstall();
    t = await startTestDaemon({ BERTH_CADDY_ADMIN: 'http://127.0.0.1:1', ...install.env });
    const { token } = await t.admin.createKey({ name: 'cli', access: 'write', projects: 'all' });
    env = { BERTH_SERVER: t.url, BERTH_TOKEN: token };
    cli = cliHome();
  });
  after(async () => {
    install?.release();
    cli?.remove();
    await t?.stop();
    install?.remove();
  });

  it('server version prints the version and that upgrades are available (also as JSON)', async () => {
    const r = await cli.run(['server', 'version'], { env });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(new RegExp(`^version {3}${VERSION.replace(/\./g, '\\.')}$`, 'm'));
    expect(r.stdout).to.include('upgrades  available');
    expect(r.stdout).to.match(/^from {6}https:\/\/releases\.example\.com\/ \/srv\/$/m);
    const [j] = (await cli.run(['server', 'version', '--json'], { env })).json<ServerUpgrade>();
    expect(j).to.include({ currentVersion: VERSION, available: true, latest: null });
    expect(j.sources).to.deep.equal(['https://releases.example.com/', '/srv/']);
  });

  it('server upgrade without --yes and without a terminal says what would happen and changes nothing', async () => {
    const r = await cli.run(['server', 'upgrade', '--from', 'https://releases.example.com/berth-3.4.5.tar.gz'], { env });
    expect(r.code).to.equal(2);
    expect(r.stderr).to.include(`runs Berth ${VERSION}`).and.include('backed up first').and.include('switches back').and.include('Apps keep serving').and.include('pass --yes');
    expect(existsSync(join(t.dataDir, 'upgrade', 'request'))).to.equal(false);
    expect((await t.admin.serverUpgrade()).upgrade.run).to.equal(null);
  });

  it('server upgrade --yes follows the run through the daemon restarting to "upgraded from X to Y"', async () => {
    install.hold();
    const running = cli.run(['server', 'upgrade', '--from', 'https://releases.example.com/berth-3.4.5.tar.gz', '--yes'], { env });
    await until('the upgrader reports', async () => (await t.admin.serverUpgrade()).upgrade.run?.step?.startsWith('download') ?? false, 20_000);
    // the CLI reads the run under way (every second), then the upgrade restarts the daemon: the API is away for a few seconds
    await new Promise((r) => setTimeout(r, 2500));
    await t.restart(4000);
    install.release();
    const r = await running;
    expect(r.code, r.stderr).to.equal(0);
    const out = r.stdout.trimEnd().split('\n');
    expect(out[0]).to.equal('berth: ==> download https://releases.example.com/berth-3.4.5.tar.gz');
    expect(out).to.include("berth: ==> back up Berth's state").and.include('berth: ==> wait for the daemon');
    expect(out.at(-1)).to.equal(`upgraded from ${VERSION} to 3.4.5`);
    // each log line once, though the log was read every second
    expect(new Set(out).size).to.equal(out.length);
    // the steps seen at each read (the fake moves through the rest within a second)
    expect(r.stderr, r.stderr).to.include('step: download https://releases.example.com/berth-3.4.5.tar.gz');
  });

  it('an unhealthy bundle ends "rolled back to X: why" with exit code 1', async () => {
    const r = await cli.run(['server', 'upgrade', '--from', '/srv/releases/unhealthy/berth-5.0.0.tar.gz', '--yes'], { env });
    expect(r.code).to.equal(1);
    expect(r.stdout).to.include(`berth: ==> roll back to ${VERSION}`);
    expect(r.stderr).to.include(`berth: rolled back to ${VERSION}: the new daemon did not answer /api/health within 60 s`);
  });

  it('--json prints the start, each log line and step, and the result, one object per line', async () => {
    const r = await cli.run(['server', 'upgrade', '--from', 'https://releases.example.com/missing/berth-6.0.0.tar.gz', '--yes', '--json'], { env });
    expect(r.code).to.equal(1);
    const lines = r.json<{ type: string; line?: string; run?: UpgradeRun }>();
    expect(lines[0]!.type).to.equal('started');
    expect(lines.filter((l) => l.type === 'log').map((l) => l.line)).to.include('berth: ==> download https://releases.example.com/missing/berth-6.0.0.tar.gz');
    expect(lines.at(-1)).to.deep.include({ type: 'result' });
    expect(lines.at(-1)!.run).to.include({ state: 'failed', message: 'the bundle could not be downloaded: 404 Not Found' });
    expect(r.stderr).to.include('berth: failed: the bundle could not be downloaded');
  });
});
