// The built-in `local` provider on real failures: fixture repositories that fail for each common
// cause are deployed through Berth on Docker, and the explanation names that cause from the real
// build log and the failed container's real output. No network beyond loopback and our containers.
import { expect } from 'chai';
import type { Explanation } from '../../shared/types.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDocker } from '../helpers/docker.js';
import * as apps from '../helpers/failing-apps.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { waitForDeployment } from '../helpers/wait.js';

describe('failure explanations by the built-in local provider, on real failed deployments', function () {
  this.timeout(180_000);
  let t: TestDaemon;
  let git: GitServer;
  let projectId: string;

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    git = await startGitServer({});
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: git.baseUrl, BERTH_HEALTH_TIMEOUT: '8' });
    projectId = (await t.admin.createProject({ name: uniq('explain') })).project.id;
  });
  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    await git?.stop();
  });

  /** Deploys the app, waits for the failure, and asks `local` why. */
  async function failAndExplain(app: apps.FailingApp): Promise<{ explanation: Explanation; log: string; serviceId: string }> {
    const repo = `acme/${uniq('failing')}` as const;
    await git.commit(repo, app.files);
    const { service } = await t.admin.createService(projectId, { name: uniq('svc'), repoFullName: repo, ...app.service });
    const { deployment } = await t.admin.deploy(service.id);
    const done = await waitForDeployment(t.admin, service.id, deployment.id, ['failed', 'running']);
    const log = (await t.admin.deploymentLogs(deployment.id)).logs.map((l) => l.line).join('\n');
    expect(done.status, `the fixture must fail; its log:\n${log}`).to.equal('failed');
    const { explanation } = await t.admin.explainFailure(deployment.id, { providerId: 'local' });
    expect(Object.keys(explanation).sort()).to.deep.equal(['commands', 'likelyCause', 'suggestedFix', 'summary']);
    for (const field of ['summary', 'likelyCause', 'suggestedFix'] as const) expect(explanation[field]).to.be.a('string').and.not.equal('');
    expect(explanation.commands.every((c) => typeof c === 'string')).to.equal(true);
    return { explanation, log, serviceId: service.id };
  }

  it('a missing Dockerfile', async () => {
    const { explanation } = await failAndExplain(apps.missingDockerfile);
    expect(explanation.likelyCause).to.match(/^Missing Dockerfile: /);
    expect(explanation.likelyCause).to.include('no Dockerfile at Dockerfile');
  });

  it('a port mismatch, naming the port the app listens on', async () => {
    const { explanation, serviceId } = await failAndExplain(apps.portMismatch);
    expect(explanation.likelyCause).to.match(/^Port mismatch: /);
    expect(explanation.likelyCause).to.include('never answered on port 8080');
    expect(explanation.likelyCause).to.include('listens on port 9999');
    expect(explanation.suggestedFix).to.include('internalPort to 9999');
    expect(explanation.commands.join('\n')).to.include(`/api/services/${serviceId}`);
  });

  it('out of memory in a build step (a real V8 heap exhaustion)', async () => {
    const { explanation, log } = await failAndExplain(apps.outOfMemory);
    expect(log).to.include('JavaScript heap out of memory');
    expect(explanation.likelyCause).to.match(/^Out of memory: /);
    expect(explanation.likelyCause).to.include('limited to 16 MB');
  });

  it('a missing start script (npm start without scripts.start)', async () => {
    const { explanation, log } = await failAndExplain(apps.missingStartScript);
    expect(log).to.match(/npm (?:error|ERR!) Missing script: "start"/);
    expect(explanation.likelyCause).to.match(/^Missing start script: /);
    expect(explanation.commands).to.include('npm pkg set scripts.start="node server.js"');
  });

  it('a dependency npm cannot install (not in the offline cache)', async () => {
    const { explanation, log } = await failAndExplain(apps.dependencyNotInstallable);
    expect(log).to.match(/npm (?:error|ERR!) code ENOTCACHED/);
    expect(explanation.likelyCause).to.match(/^Dependency install failure: /);
    expect(explanation.likelyCause).to.include('ENOTCACHED');
    expect(explanation.summary).to.include('left-pad');
  });

  it('a dependency npm cannot install (a file: dependency that is not there)', async () => {
    const { explanation } = await failAndExplain(apps.dependencyFileMissing);
    expect(explanation.likelyCause).to.match(/^Dependency install failure: /);
    expect(explanation.likelyCause).to.include('ENOENT');
  });

  it("a missing environment variable, read from the failed container's own output", async () => {
    const { explanation, log } = await failAndExplain(apps.missingEnvVar);
    // the build log never names the variable: only the container's output does
    expect(log).not.to.include('DATABASE_URL');
    expect(explanation.likelyCause).to.match(/^Missing environment variable: DATABASE_URL is not set on the service/);
    expect(explanation.likelyCause).to.include('Error: environment variable DATABASE_URL is required');
  });
});
