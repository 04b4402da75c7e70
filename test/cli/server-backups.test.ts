// `berth server backups` (plural: Berth's own backup through the API, from any machine) against a
// test daemon whose /etc/berth and Caddy home are temporary folders: the listing, a run followed to
// its end, the schedule with a stored passphrase, a download checked against the run's SHA-256,
// a deletion that asks first; and `--help` telling it apart from `berth server backup` (singular).
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerBackupRun, ServerBackupSettings, ServerBackups } from '../../shared/types.js';
import { cliHome, type CliHome } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

describe('berth server backups', function () {
  this.timeout(120_000);
  let t: TestDaemon;
  let cli: CliHome;
  let env: Record<string, string>;
  let root: string;
  const saved = { etc: process.env.BERTH_ETC_DIR, caddy: process.env.BERTH_CADDY_HOME };

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'berth-cli-server-backups-'));
    process.env.BERTH_ETC_DIR = join(root, 'etc');
    process.env.BERTH_CADDY_HOME = join(root, 'caddy');
    mkdirSync(join(root, 'etc'));
    writeFileSync(join(root, 'etc/berth.env'), 'BERTH_PORT=4311\n');
    writeFileSync(join(root, 'passphrase'), 'the passphrase of the CLI test\n');
    writeFileSync(join(root, 'short'), 'short\n');
    t = await startTestDaemon({ BERTH_CADDY_ADMIN: 'http://127.0.0.1:1' });
    const { token } = await t.admin.createKey({ name: 'cli', access: 'write', projects: 'all' });
    env = { BERTH_SERVER: t.url, BERTH_TOKEN: token };
    cli = cliHome();
  });
  after(async () => {
    cli?.remove();
    await t?.daemon.core.serverBackups.settled();
    await t?.stop();
    if (saved.etc === undefined) delete process.env.BERTH_ETC_DIR;
    else process.env.BERTH_ETC_DIR = saved.etc;
    if (saved.caddy === undefined) delete process.env.BERTH_CADDY_HOME;
    else process.env.BERTH_CADDY_HOME = saved.caddy;
    rmSync(root, { recursive: true, force: true });
  });

  it('--help tells the plural (through the API) from the singular (on the server, as root)', async () => {
    const r = await cli.run(['server', 'backups', '--help'], { env });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout.replace(/\s+/g, ' ')).to.include('from any machine').and.include("Not 'berth server backup' (singular), which runs on the server itself as root");
  });

  it('lists the settings and no runs; a run without a passphrase is refused (exit 1) and a short one is a usage error (exit 2)', async () => {
    const r = await cli.run(['server', 'backups'], { env });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout)
      .to.match(/^schedule {4}off$/m)
      .and.match(/^passphrase {2}not set/m)
      .and.include('no backups of Berth yet');
    const none = await cli.run(['server', 'backups', 'run'], { env });
    expect(none.code).to.equal(1);
    expect(none.stderr).to.include('no passphrase is stored');
    const short = await cli.run(['server', 'backups', 'run', '--passphrase-file', join(root, 'short')], { env });
    expect(short.code).to.equal(2);
  });

  it('run --wait follows the run to its end and says how to restore', async () => {
    const r = await cli.run(['server', 'backups', 'run', '--passphrase-file', join(root, 'passphrase'), '--wait'], { env });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr)
      .to.match(/backup \S+ succeeded: berth-server-.*\.tar\.gz\.enc/)
      .and.include('install.sh --from <bundle> --restore <archive> --passphrase-file <file>');
    const [j] = (await cli.run(['server', 'backups', '--json'], { env })).json<ServerBackups>();
    expect(j!.runs).to.have.length(1);
    expect(j!.runs[0]).to.include({ status: 'succeeded', trigger: 'manual' });
  });

  it('schedule stores the passphrase and the schedule (--json), and off turns it off', async () => {
    const on = await cli.run(['server', 'backups', 'schedule', '0 3 * * *', '--keep', '3', '--passphrase-file', join(root, 'passphrase'), '--json'], { env });
    expect(on.code, on.stderr).to.equal(0);
    const [s] = on.json<ServerBackupSettings>();
    expect(s).to.include({ schedule: '0 3 * * *', keep: 3, passphraseSet: true, storageId: null });
    const bad = await cli.run(['server', 'backups', 'schedule', 'daily'], { env });
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.include('cron');
    const off = await cli.run(['server', 'backups', 'schedule', 'off'], { env });
    expect(off.code, off.stderr).to.equal(0);
    expect(off.stdout)
      .to.match(/^schedule {4}off$/m)
      .and.match(/^passphrase {2}set$/m);
    // the stored passphrase serves a run with none given
    const r = await cli.run(['server', 'backups', 'run', '--wait', '--json'], { env });
    expect(r.code, r.stderr).to.equal(0);
  });

  it('download writes the archive checked against its SHA-256; delete asks, then removes it', async () => {
    const run = (await t.admin.serverBackups()).runs[0] as ServerBackupRun;
    const out = join(root, 'copy.tar.gz.enc');
    const d = await cli.run(['server', 'backups', 'download', run.id, '-o', out], { env });
    expect(d.code, d.stderr).to.equal(0);
    expect(createHash('sha256').update(readFileSync(out)).digest('hex')).to.equal(run.sha256);
    expect(d.stderr).to.include(`--restore ${out}`);
    const asked = await cli.run(['server', 'backups', 'delete', run.id], { env });
    expect(asked.code).to.equal(2);
    expect(asked.stderr).to.include('pass --yes');
    const gone = await cli.run(['server', 'backups', 'delete', run.id, '--yes'], { env });
    expect(gone.code, gone.stderr).to.equal(0);
    expect(existsSync(join(t.dataDir, 'server-backups', run.fileName!))).to.equal(false);
    expect((await cli.run(['server', 'backups', 'download', run.id, '-o', join(root, 'again')], { env })).code).to.equal(1);
  });
});
