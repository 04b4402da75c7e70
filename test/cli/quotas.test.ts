// berth quotas and berth server disk: a project's quotas and usage from the terminal, changed by a
// key over all projects only, and the server's free disk with exit 1 while new work is paused.
import { expect } from 'chai';
import { cliHome, type CliHome } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniq } from '../helpers/fixtures.js';

describe('berth quotas and berth server disk', function () {
  this.timeout(60_000);
  let t: TestDaemon;
  let cli: CliHome;
  let admin: Record<string, string>;
  let tenant: Record<string, string>;
  let slug: string;

  before(async () => {
    t = await startTestDaemon();
    const { project } = await t.admin.createProject({ name: uniq('cliq') });
    slug = project.slug;
    admin = { BERTH_SERVER: t.url, BERTH_TOKEN: (await t.admin.createKey({ name: 'cli', access: 'write', projects: 'all' })).token };
    tenant = { BERTH_SERVER: t.url, BERTH_TOKEN: (await t.admin.createKey({ name: 'tenant', access: 'write', projects: [project.id] })).token };
    cli = cliHome();
  });
  after(async () => {
    await t?.stop();
    cli?.remove();
  });

  it("shows a project's quotas; set changes them with an all-projects key and is refused (exit 3) for the project's own key", async () => {
    const shown = await cli.run(['quotas', slug], { env: tenant });
    expect(shown.code, shown.stderr).to.equal(0);
    expect(shown.stdout).to.match(/services\s+0\s+100\s+server default/);

    const refused = await cli.run(['quotas', 'set', slug, '--max-services', '1000'], { env: tenant });
    expect(refused.code).to.equal(3);
    expect(refused.stderr).to.match(/all projects/);

    const set = await cli.run(['--json', 'quotas', 'set', slug, '--max-services', '7', '--max-backup-mb', '10', '--max-images', 'default'], { env: admin });
    expect(set.code, set.stderr).to.equal(0);
    const [answer] = set.json<{ quotas: { maxServices: number; maxBackupBytes: number }; overrides: { maxImagesPerService: number | null } }>();
    expect(answer!.quotas.maxServices).to.equal(7);
    expect(answer!.quotas.maxBackupBytes).to.equal(10 * 1024 * 1024);
    expect(answer!.overrides.maxImagesPerService).to.equal(null);

    const usage = await cli.run(['quotas', 'set', slug, '--max-services', 'lots'], { env: admin });
    expect(usage.code).to.equal(2);
  });

  it('server disk prints the free space and the threshold, and exits 1 with the reason while disk is low', async () => {
    const ok = await cli.run(['server', 'disk'], { env: admin });
    expect(ok.code, ok.stderr).to.equal(0);
    expect(ok.stdout)
      .to.match(/disk ok/)
      .and.match(/threshold\s+2\.00 GiB free/)
      .and.match(/data\s+\S+: [\d.]+ GiB free of/);

    const low = await cli.run(['server', 'disk', '--min-free-mb', String(2 ** 30)], { env: admin });
    expect(low.code).to.equal(1);
    expect(low.stdout).to.match(/LOW DISK/);
    const seen = await cli.run(['server', 'disk'], { env: tenant });
    expect(seen.code).to.equal(1);
    expect(seen.stdout)
      .to.match(/LOW DISK: low disk/)
      .and.not.match(/^threshold/m)
      .and.not.include(t.dataDir);
    expect((await cli.run(['server', 'disk', '--min-free-mb', 'default'], { env: admin })).code).to.equal(0);
  });
});
