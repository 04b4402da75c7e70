// `berth deploy` and `berth logs` against a real daemon, real Docker and a real git server: the
// exit code a CI job trusts (0 running, 1 failed with the local explanation), the URL printed
// last, --json lines, a log stream cut in the middle of a build (still exit 0, no line lost or
// repeated), --detach, and following a build log.
import { expect } from 'chai';
import { slowBuildApp, webApp } from '../helpers/apps.js';
import { cliHome, type CliHome } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDocker } from '../helpers/docker.js';
import * as failing from '../helpers/failing-apps.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { startTcpRelay } from '../helpers/proxies.js';
import { httpText, until } from '../helpers/wait.js';
import type { Project, Service } from '../../shared/types.js';

describe('berth deploy and berth logs, on real deployments', function () {
  this.timeout(180_000);
  let t: TestDaemon;
  let git: GitServer;
  let project: Project;
  let cli: CliHome;
  let env: Record<string, string>;

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    git = await startGitServer();
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: git.baseUrl, BERTH_HEALTH_TIMEOUT: '15' });
    project = (await t.admin.createProject({ name: uniq('cli-deploy') })).project;
    const { token } = await t.admin.createKey({ name: 'ci', access: 'write', projects: [project.id] });
    env = { BERTH_SERVER: t.url, BERTH_TOKEN: token };
    cli = cliHome();
  });
  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    await git?.stop();
    cli?.remove();
  });

  async function serviceFrom(files: Record<string, string>, fields: Record<string, unknown> = { internalPort: 8080 }): Promise<Service> {
    const repo = `acme/${uniq('cli')}` as const;
    await git.commit(repo, files);
    return (await t.admin.createService(project.id, { name: uniq('svc'), repoFullName: repo, ...fields })).service;
  }

  it('a deployment that goes live exits 0, streams the build log and ends with the URL', async () => {
    const service = await serviceFrom(webApp('hello from the cli'));
    const r = await cli.run(['deploy', service.name, '--project', project.slug], { env });
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.include('build step: preparing the site');
    const url = r.stdout.trim().split('\n').at(-1)!;
    const { service: now } = await t.admin.overview(service.id);
    expect(url).to.equal(now.primaryUrl);
    expect((await httpText(url)).text).to.equal('hello from the cli\n');
    const deployments = (await t.admin.listDeployments(service.id)).deployments;
    expect(deployments.map((d) => d.status)).to.deep.equal(['running']);

    // the request just made shows in the container's output (httpd -v logs it)
    const line = await until(
      'the request in berth logs',
      async () => {
        const r = await cli.run(['logs', service.id, '-n', '1', '--json'], { env });
        expect(r.code, r.stderr).to.equal(0);
        const [l] = r.json<{ line: string; stream: string }>();
        return l?.line.includes('response:200') ? l : null;
      },
      20_000,
      500,
    );
    expect(line.line).to.include('response:200');
  });

  it('--json prints one object per line: queued, the log lines, then the result', async () => {
    const service = await serviceFrom(webApp('json'));
    const r = await cli.run(['deploy', service.id, '--json'], { env });
    expect(r.code, r.stderr).to.equal(0);
    const events = r.json<{ type: string; status?: string; url?: string; line?: string; id?: number; deployment?: { id: string } }>();
    expect(events[0]!.type).to.equal('queued');
    const result = events.at(-1)!;
    expect(result).to.include({ type: 'result', status: 'running', deploymentId: events[0]!.deployment!.id, serviceId: service.id });
    expect(result.url).to.equal((await t.admin.overview(service.id)).service.primaryUrl);
    const logs = events.filter((e) => e.type === 'log');
    expect(logs.map((l) => l.line)).to.include('build step: preparing the site');
    const stored = (await t.admin.deploymentLogs(events[0]!.deployment!.id)).logs;
    expect(logs.map((l) => l.id)).to.deep.equal(stored.map((l) => l.id));
  });

  it('a deployment that fails exits 1 and prints the local explanation (also in --json)', async () => {
    const service = await serviceFrom(failing.missingDockerfile.files, failing.missingDockerfile.service);
    const r = await cli.run(['deploy', service.id], { env });
    expect(r.code, r.stderr).to.equal(1);
    expect(r.stderr).to.match(/ended failed/);
    expect(r.stderr).to.include('likely cause: Missing Dockerfile');

    const j = await cli.run(['deploy', service.id, '--json'], { env });
    expect(j.code).to.equal(1);
    const result = j.json<{ type: string; status: string; explanation: { summary: string; likelyCause: string } }>().at(-1)!;
    expect(result).to.include({ type: 'result', status: 'failed' });
    expect(result.explanation.likelyCause).to.match(/^Missing Dockerfile: /);
    expect(result.explanation.summary).to.be.a('string').and.not.equal('');

    const failedId = (await t.admin.listDeployments(service.id)).deployments[0]!.id;
    const explained = await cli.run(['explain', failedId], { env });
    expect(explained.code, explained.stderr).to.equal(0);
    expect(explained.stdout).to.match(/^likely cause: +Missing Dockerfile: /m);
  });

  it("logs -f follows a worker's output live until its container stops", async () => {
    const service = await serviceFrom(
      { Dockerfile: 'FROM berth-test/busybox:latest\nCMD ["sh", "-c", "sleep 2; i=0; while [ $i -lt 4 ]; do i=$((i+1)); echo line $i; sleep 1; done"]\n' },
      { runtimeMode: 'worker' },
    );
    const d = await cli.run(['deploy', service.id, '--quiet'], { env });
    expect(d.code, d.stderr).to.equal(0);
    const f = await cli.run(['logs', service.id, '-f'], { env, timeoutMs: 60_000 });
    expect(f.code, f.stderr).to.equal(0);
    expect(f.stdout.split('\n').filter((l) => l.startsWith('line '))).to.deep.equal(['line 1', 'line 2', 'line 3', 'line 4']);
    expect(f.stderr).to.include('not running');
  });

  it('a log stream cut in the middle of the build reconnects and still exits 0, with every line exactly once', async () => {
    const service = await serviceFrom(slowBuildApp(6));
    const relay = await startTcpRelay(t.url);
    let cut = 0;
    relay.onDownstream((chunk) => {
      // the first time the build's second tick passes through, break every connection once
      if (cut === 0 && chunk.toString('utf8').includes('"tick 2"')) cut = relay.cutAll();
    });
    try {
      const r = await cli.run(['deploy', service.id], { env: { ...env, BERTH_SERVER: relay.url } });
      expect(cut, 'the relay cut the stream').to.be.greaterThan(0);
      expect(r.code, r.stderr).to.equal(0);
      expect(r.stderr).to.include('log stream:');
      const lines = r.stdout.trim().split('\n');
      for (let i = 1; i <= 6; i++)
        expect(
          lines.filter((l) => l === `tick ${i}`),
          `tick ${i}`,
        ).to.have.length(1);
      expect(lines.at(-1)).to.equal((await t.admin.overview(service.id)).service.primaryUrl);
      const stored = (await t.admin.deploymentLogs((await t.admin.listDeployments(service.id)).deployments[0]!.id)).logs;
      expect(lines.slice(0, -1)).to.deep.equal(stored.map((l) => l.line));
    } finally {
      await relay.stop();
    }
  });

  it('--detach queues and exits 0 at once; logs --build -f follows that build to its end', async () => {
    const service = await serviceFrom(slowBuildApp(2));
    const d = await cli.run(['deploy', service.id, '--detach'], { env });
    expect(d.code, d.stderr).to.equal(0);
    const deploymentId = d.stdout.trim();
    const [dep] = (await t.admin.listDeployments(service.id)).deployments;
    expect(dep!.id).to.equal(deploymentId);
    expect(['queued', 'building']).to.include(dep!.status);

    const f = await cli.run(['logs', service.id, '--build', deploymentId, '-f'], { env });
    expect(f.code, f.stderr).to.equal(0);
    expect(f.stdout.split('\n')).to.include.members(['tick 1', 'tick 2']);
    expect(f.stderr).to.include(`deployment ${deploymentId} running`);

    const tail = await cli.run(['logs', service.id, '--build', '-n', '2', '--json'], { env });
    expect(tail.code, tail.stderr).to.equal(0);
    const stored = (await t.admin.deploymentLogs(deploymentId)).logs;
    expect(tail.json<{ id: number }>().map((l) => l.id)).to.deep.equal(stored.slice(-2).map((l) => l.id));
  });

  it('--timeout stops following with exit 1 and leaves the deployment going', async () => {
    const service = await serviceFrom(slowBuildApp(8));
    const r = await cli.run(['deploy', service.id, '--timeout', '2s'], { env });
    expect(r.code, r.stderr).to.equal(1);
    expect(r.stderr).to.include('did not finish within 2 s');
    const [dep] = (await t.admin.listDeployments(service.id)).deployments;
    expect(['queued', 'building']).to.include(dep!.status);
    const abort = await cli.run(['abort', service.id], { env });
    expect(abort.code, abort.stderr).to.equal(0);
  });
});
