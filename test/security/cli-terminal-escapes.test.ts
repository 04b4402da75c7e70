// A tenant's build, app and env values printing terminal control sequences at whoever reads them
// with the berth CLI: OSC 52 (writes the reader's clipboard), OSC 0 (retitles the window), CSI 2J
// (erases the screen) and the 8-bit CSI. The real CLI, against a real daemon and a real deployment,
// prints every one of them visibly escaped (`\x1b`), never raw, on stdout and stderr; --json still
// carries the exact value.
import { expect } from 'chai';
import type { BerthClient } from '../../shared/client.js';
import type { Project, Service } from '../../shared/types.js';
import { cliHome, type CliHome, type CliRun } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { until } from '../helpers/wait.js';

const CLIPBOARD = '\x1b]52;c;aGVsbG8=\x07';
const TITLE = '\x1b]0;pwned\x07';
const ERASE = '\x1b[2J';
const CSI8 = '\u009b2J';
const HOSTILE = `grab ${CLIPBOARD} title ${TITLE} erase ${ERASE} csi ${CSI8} end`;
/** How HOSTILE shows on a terminal once escaped. */
const SHOWN = 'grab \\x1b]52;c;aGVsbG8=\\x07 title \\x1b]0;pwned\\x07 erase \\x1b[2J csi \\x9b2J end';
/** ESC, BEL and the C1 controls: none may reach the terminal raw. */
// eslint-disable-next-line no-control-regex -- looking for them is the test
const RAW_CONTROL = /[\x07\x1b\x80-\x9f]/;

/** busybox printf: the same sequences as octal escapes (the 8-bit CSI as its two UTF-8 bytes). */
const PRINTF = 'grab \\033]52;c;aGVsbG8=\\007 title \\033]0;pwned\\007 erase \\033[2J csi \\302\\2332J end';

function hostileApp(): Record<string, string> {
  return {
    Dockerfile: [
      'FROM berth-test/busybox:latest',
      'COPY www /www',
      `RUN printf 'build ${PRINTF}\\n'`,
      // JSON form: the backslashes doubled once more
      `CMD ["sh", "-c", "printf 'runtime ${PRINTF.replace(/\\/g, '\\\\')}\\\\n'; exec httpd -f -v -p \${PORT} -h /www"]`,
      '',
    ].join('\n'),
    'www/index.html': 'hi\n',
  };
}

function expectNoRawControl(r: CliRun): void {
  expect(RAW_CONTROL.test(r.stdout), `raw control characters on stdout: ${JSON.stringify(r.stdout)}`).to.equal(false);
  expect(RAW_CONTROL.test(r.stderr), `raw control characters on stderr: ${JSON.stringify(r.stderr)}`).to.equal(false);
}

describe('security: the CLI shows hostile text escaped, never as live terminal controls', function () {
  this.timeout(180_000);
  let t: TestDaemon;
  let git: GitServer;
  let project: Project;
  let tenant: BerthClient;
  let service: Service;
  let cli: CliHome;
  let env: Record<string, string>;
  let deploy: CliRun;

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    git = await startGitServer();
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: git.baseUrl, BERTH_HEALTH_TIMEOUT: '15' });
    project = (await t.admin.createProject({ name: uniq('escapes') })).project;
    tenant = await t.clientWith('write', [project.id]);
    const repo = `acme/${uniq('escapes')}` as const;
    await git.commit(repo, hostileApp());
    // the tenant: its repository, its app, its env values
    service = (await tenant.createService(project.id, { name: uniq('svc'), repoFullName: repo, internalPort: 8080 })).service;
    await tenant.setEnv(service.id, 'HOSTILE', HOSTILE);
    // the reader: an all-projects key at a terminal
    env = { BERTH_SERVER: t.url, BERTH_TOKEN: (await t.admin.createKey({ name: 'reader', access: 'read', projects: 'all' })).token };
    cli = cliHome();
    deploy = await cli.run(['deploy', service.id], { env: { ...env, BERTH_TOKEN: (await t.admin.createKey({ name: 'ops', access: 'write', projects: 'all' })).token } });
    expect(deploy.code, deploy.stderr).to.equal(0);
  });
  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    await git?.stop();
    cli?.remove();
  });

  it('the server really hands out the raw sequences (what the CLI must not pass on)', async () => {
    const [deployment] = (await t.admin.listDeployments(service.id)).deployments;
    const build = (await t.admin.deploymentLogs(deployment!.id)).logs.map((l) => l.line);
    expect(build).to.include(`build ${HOSTILE}`);
    expect((await t.admin.overview(service.id)).env.find((e) => e.key === 'HOSTILE')?.value).to.equal(HOSTILE);
  });

  it('berth deploy streams the build log with the sequences escaped', () => {
    expectNoRawControl(deploy);
    expect(deploy.stdout).to.include(`build ${SHOWN}`);
  });

  it('berth logs --build prints the stored build log escaped', async () => {
    const r = await cli.run(['logs', service.id, '--build'], { env });
    expect(r.code, r.stderr).to.equal(0);
    expectNoRawControl(r);
    expect(r.stdout).to.include(`build ${SHOWN}`);
  });

  it("berth logs prints the running container's output escaped", async () => {
    const r = await until(
      'the runtime line in berth logs',
      async () => {
        const r = await cli.run(['logs', service.id, '-n', '20'], { env });
        expect(r.code, r.stderr).to.equal(0);
        return r.stdout.includes('runtime ') ? r : null;
      },
      30_000,
      500,
    );
    expectNoRawControl(r);
    expect(r.stdout).to.include(`runtime ${SHOWN}`);
  });

  it('berth env list --values (a table) and env get (a line) print the value escaped', async () => {
    const list = await cli.run(['env', 'list', service.id, '--values'], { env });
    expect(list.code, list.stderr).to.equal(0);
    expectNoRawControl(list);
    expect(list.stdout).to.include(SHOWN);
    const get = await cli.run(['env', 'get', service.id, 'HOSTILE'], { env });
    expect(get.code, get.stderr).to.equal(0);
    expectNoRawControl(get);
    expect(get.stdout).to.equal(`${SHOWN}\n`);
    const exported = await cli.run(['env', 'export', service.id], { env });
    expectNoRawControl(exported);
  });

  it('--json keeps the exact value, with no raw control character on the line', async () => {
    const r = await cli.run(['env', 'get', service.id, 'HOSTILE', '--json'], { env });
    expect(r.code, r.stderr).to.equal(0);
    expectNoRawControl(r);
    expect(r.json<{ value: string }>()[0]!.value).to.equal(HOSTILE);
    const logs = await cli.run(['logs', service.id, '--build', '--json'], { env });
    expectNoRawControl(logs);
    expect(logs.json<{ line: string }>().map((l) => l.line)).to.include(`build ${HOSTILE}`);
  });
});
