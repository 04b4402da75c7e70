// berth compose import and berth templates (issue 33): the plan as JSON (--dry-run --json) and as
// a table naming what was not imported; an unreadable file is a usage error (exit 2) before
// anything is sent; a read key is refused (exit 3); a real import creates the services.
import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ComposeImportResult, ComposeTemplate } from '../../shared/types/compose.js';
import { cliHome, type CliHome } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';

const COMPOSE = `services:
  web:
    image: berth-test/httpd:latest
    ports: ["8080:8080"]
    cap_add: [NET_ADMIN]
    environment:
      GREETING: \${GREETING:-hello}
`;

describe('berth compose import and berth templates', function () {
  this.timeout(120_000);
  let t: TestDaemon;
  let cli: CliHome;
  let writer: Record<string, string>;
  let reader: Record<string, string>;
  let slug: string;
  let file: string;

  before(async () => {
    requireDocker();
    t = await startTestDaemon();
    const { project } = await t.admin.createProject({ name: uniq('clicompose') });
    slug = project.slug;
    writer = { BERTH_SERVER: t.url, BERTH_TOKEN: (await t.admin.createKey({ name: 'cli-write', access: 'write', projects: 'all' })).token };
    reader = { BERTH_SERVER: t.url, BERTH_TOKEN: (await t.admin.createKey({ name: 'cli-read', access: 'read', projects: 'all' })).token };
    cli = cliHome();
    mkdirSync(cli.cwd, { recursive: true });
    file = join(cli.cwd, 'docker-compose.yml');
    writeFileSync(file, COMPOSE);
    writeFileSync(join(cli.cwd, '.env'), 'GREETING=bonjour\n');
  });
  after(async () => {
    await t?.stop();
    cli?.remove();
  });

  it('--dry-run --json prints the plan (with the .env interpolated) and creates nothing', async () => {
    const run = await cli.run(['--json', '--project', slug, 'compose', 'import', 'docker-compose.yml', '--env', '.env', '--dry-run'], { env: writer });
    expect(run.code, run.stderr).to.equal(0);
    const [plan] = run.json<ComposeImportResult>();
    expect(plan!.services.map((s) => [s.service, s.becomes])).to.deep.equal([['web', 'image']]);
    expect(plan!.services[0]!.berthService!.env).to.deep.include({ key: 'GREETING', value: 'bonjour' });
    expect(plan!.unsupported.map((u) => [u.service, u.key])).to.deep.include(['web', 'cap_add']);
    expect(plan!.created).to.equal(undefined);
    expect((await t.admin.getProject(slug)).project.services).to.deep.equal([]);
  });

  it('the table names each compose service, what it becomes and the keys not imported with why', async () => {
    const run = await cli.run(['--project', slug, 'compose', 'import', '-', '--dry-run'], { env: writer, input: COMPOSE });
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout)
      .to.match(/COMPOSE SERVICE\s+BECOMES\s+BERTH SERVICE/)
      .and.match(/^web\s+image\s+web\s+berth-test\/httpd:latest\s+8080/m)
      .and.match(/Not imported \(\d+\):/)
      .and.match(/^web\s+cap_add\s+\S/m);
    expect(run.stderr).to.match(/dry run: nothing was created/);
  });

  it('a compose file or env file that cannot be read exits 2 with the path, before anything is sent', async () => {
    const missing = await cli.run(['--project', slug, 'compose', 'import', 'nope.yml', '--dry-run'], { env: writer });
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.match(/cannot read the compose file nope\.yml: no such file/);
    const env = await cli.run(['--project', slug, 'compose', 'import', 'docker-compose.yml', '--env', 'missing.env'], { env: writer });
    expect(env.code).to.equal(2);
    expect(env.stderr).to.match(/missing\.env/);
    const badVar = await cli.run(['--project', slug, 'templates', 'import', 'any', '--var', 'NOEQUALS'], { env: writer });
    expect(badVar.code).to.equal(2);
  });

  it('a read key is refused (exit 3) and nothing is created', async () => {
    const run = await cli.run(['--project', slug, 'compose', 'import', 'docker-compose.yml'], { env: reader });
    expect(run.code, run.stderr).to.equal(3);
    expect((await t.admin.getProject(slug)).project.services).to.deep.equal([]);
  });

  it('templates lists the gallery; a template dry run maps every key', async () => {
    const list = await cli.run(['--json', 'templates'], { env: reader });
    expect(list.code, list.stderr).to.equal(0);
    const templates = list.json<ComposeTemplate>();
    expect(templates.length).to.be.greaterThan(1);
    const table = await cli.run(['templates', 'list'], { env: reader });
    expect(table.stdout).to.match(/^ID\s+NAME\s+DESCRIPTION/);
    for (const x of templates) expect(table.stdout).to.include(x.id);
    const chosen = templates[0]!;
    const vars = chosen.variables.filter((v) => v.required).flatMap((v) => ['--var', `${v.name}=example`]);
    const plan = await cli.run(['--json', '--project', slug, 'templates', 'import', chosen.id, ...vars, '--dry-run'], { env: writer });
    expect(plan.code, plan.stderr).to.equal(0);
    expect(plan.json<ComposeImportResult>()[0]!.unsupported).to.deep.equal([]);
  });

  it('an import creates the services and prints them', async () => {
    const run = await cli.run(['--project', slug, 'compose', 'import', 'docker-compose.yml', '--env', '.env'], { env: writer });
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout)
      .to.match(/Created 1 service \(/)
      .and.match(/^web\s+\S+\s+\S+/m);
    const { services } = (await t.admin.getProject(slug)).project;
    expect(services.map((s) => [s.name, s.dockerImage])).to.deep.equal([['web', 'berth-test/httpd:latest']]);
  });
});
