// berth services create: a service made from the terminal, from a git repository or an image, in
// --project; `berth services` still lists; a usage error changes nothing (--node is for databases only).
import { expect } from 'chai';
import { cliHome, type CliHome } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniq } from '../helpers/fixtures.js';

describe('berth services create', function () {
  this.timeout(60_000);
  let t: TestDaemon;
  let cli: CliHome;
  let env: Record<string, string>;
  let project: { id: string; slug: string };

  before(async () => {
    t = await startTestDaemon();
    project = (await t.admin.createProject({ name: uniq('clis') })).project;
    env = { BERTH_SERVER: t.url, BERTH_TOKEN: (await t.admin.createKey({ name: 'cli', access: 'write', projects: [project.id] })).token };
    cli = cliHome();
  });
  after(async () => {
    await t?.stop();
    cli?.remove();
  });

  it('creates a git service and an image service in --project, and berth services lists them', async () => {
    const git = await cli.run(['--json', '--project', project.slug, 'services', 'create', 'api', '--repo', 'acme/api', '--branch', 'trunk', '--port', '8080'], { env });
    expect(git.code, git.stderr).to.equal(0);
    const [made] = git.json<{ id: string; name: string }>();
    const image = await cli.run(['--project', project.slug, 'services', 'create', 'cache', '--image', 'redis:7'], { env });
    expect(image.code, image.stderr).to.equal(0);
    expect(image.stdout).to.match(/^created cache \(\S+\) in /);
    const { project: seen } = await t.admin.getProject(project.id);
    const api = seen.services.find((s) => s.name === 'api')!;
    expect(api.id).to.equal(made!.id);
    expect(api).to.include({ repoFullName: 'acme/api', branch: 'trunk', internalPort: 8080 });
    expect(seen.services.find((s) => s.name === 'cache')).to.include({ dockerImage: 'redis:7' });
    const listed = await cli.run(['--project', project.slug, 'services'], { env });
    expect(listed.stdout)
      .to.match(/\bapi\b/)
      .and.to.match(/\bcache\b/);
  });

  it('berth projects create makes a project with a key over all projects, and a selected-projects key exits 3 creating nothing', async () => {
    const adminEnv = { BERTH_SERVER: t.url, BERTH_TOKEN: (await t.admin.createKey({ name: 'cli-admin', access: 'write', projects: 'all' })).token };
    const made = await cli.run(['--json', 'projects', 'create', 'Shop Front', '--description', 'the shop'], { env: adminEnv });
    expect(made.code, made.stderr).to.equal(0);
    const [project] = made.json<{ id: string; name: string; slug: string; description: string }>();
    expect(project).to.include({ name: 'Shop Front', description: 'the shop' });
    expect((await t.admin.getProject(project!.id)).project.slug).to.equal(project!.slug);
    const count = (await t.admin.listProjects()).projects.length;
    const refused = await cli.run(['projects', 'create', 'Nope'], { env });
    expect(refused.code, refused.stderr).to.equal(3);
    expect((await t.admin.listProjects()).projects.length).to.equal(count);
  });

  it('exits 2 with neither or both of --repo and --image, or without a project, and creates nothing', async () => {
    const before = (await t.admin.getProject(project.id)).project.serviceCount;
    for (const args of [
      ['--project', project.slug, 'services', 'create', 'x'],
      ['--project', project.slug, 'services', 'create', 'x', '--repo', 'acme/x', '--image', 'redis:7'],
      ['services', 'create', 'x', '--repo', 'acme/x'],
    ]) {
      const r = await cli.run(args, { env });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).to.equal(2);
    }
    expect((await t.admin.getProject(project.id)).project.serviceCount).to.equal(before);
  });

  it('exits 2 for --node without --repo database:<engine>, before any request', async () => {
    for (const args of [
      ['--project', project.slug, 'services', 'create', 'x', '--image', 'redis:7', '--node', 'worker-1'],
      ['--project', project.slug, 'services', 'create', 'x', '--repo', 'acme/x', '--node', 'worker-1'],
    ]) {
      // an unreachable server: a usage error must not even try to reach it
      const r = await cli.run(args, { env: { BERTH_SERVER: 'http://127.0.0.1:1', BERTH_TOKEN: 'berth_x' } });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).to.equal(2);
      expect(r.stderr).to.match(/--node applies to databases only/);
    }
  });
});
