// The deployment endpoints' contract without Docker: shapes, bad input, a deployment that fails
// at its first step (nothing listens on the git base URL) recorded truthfully.
import { expect } from 'chai';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeProjectWorld } from '../helpers/fixtures.js';
import { DEPLOYMENT, expectShape, TIMESTAMP } from '../helpers/shapes.js';
import { snapshotStore } from '../helpers/snapshot.js';
import { waitForDeployment } from '../helpers/wait.js';

describe('deployment endpoints', () => {
  let t: TestDaemon;
  before(async () => {
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: 'http://127.0.0.1:9' });
  });
  after(async () => t.stop());

  it('POST answers {deployment} queued with nulls; clients in the field may send {branch, force} and more', async () => {
    const w = await makeProjectWorld(t.admin);
    const res = await t.admin.request('POST', `/api/services/${w.web.id}/deployments`, { force: true, branch: 'main', note: 'ignored' });
    expect(res.status).to.equal(200);
    const { deployment } = res.body as { deployment: Record<string, unknown> };
    expectShape(deployment, DEPLOYMENT);
    expect(deployment).to.include({ status: 'queued', trigger: 'manual', commitSha: null, imageTag: null, containerName: null, startedAt: null, finishedAt: null });
    const noBody = await t.admin.request('POST', `/api/services/${w.web.id}/deployments`);
    expect(noBody.status).to.equal(200);
  });

  it('a deployment that cannot clone ends failed, with the reason as its last log line and the service failed', async () => {
    const w = await makeProjectWorld(t.admin);
    const { deployment } = await t.admin.deploy(w.web.id);
    const done = await waitForDeployment(t.admin, w.web.id, deployment.id, ['failed'], 20_000);
    expect(done.finishedAt).to.match(TIMESTAMP);
    const { logs } = await t.admin.deploymentLogs(deployment.id);
    for (const l of logs) expectShape(l, { id: 'integer', deploymentId: 'string', line: 'string', stream: { enum: ['stdout', 'stderr'] }, createdAt: 'timestamp' });
    expect(logs.at(-1)!.line).to.match(/^Deployment failed: /);
    expect((await t.admin.overview(w.web.id)).service.status).to.equal('failed');
    const again = await t.admin.request('POST', `/api/deployments/${deployment.id}/abort`);
    expect(again.status).to.equal(409);
    expect((again.body as { error: { code: string } }).error.code).to.equal('not_abortable');
  });

  for (const [label, body] of [
    ['a branch that could act as an option', { branch: '--upload-pack=touch /tmp/x' }],
    ['a branch with ..', { branch: 'a..b' }],
    ['a branch that is not a string', { branch: 5 }],
    ['force that is not a boolean', { force: 'yes' }],
  ] as const) {
    it(`refuses ${label} (400) and queues nothing`, async () => {
      const w = await makeProjectWorld(t.admin);
      const before = await snapshotStore(t.dataDir);
      const res = await t.admin.request('POST', `/api/services/${w.web.id}/deployments`, body);
      expect(res.status).to.equal(400);
      expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
    });
  }

  it('refuses malformed JSON and unknown ids', async () => {
    const w = await makeProjectWorld(t.admin);
    const before = await snapshotStore(t.dataDir);
    expect((await t.admin.request('POST', `/api/services/${w.web.id}/deployments`, undefined, { rawBody: '{"branch":' })).status).to.equal(400);
    expect((await t.admin.request('POST', '/api/services/nope/deployments', {})).status).to.equal(404);
    expect((await t.admin.request('POST', '/api/deployments/nope/abort')).status).to.equal(404);
    expect((await t.admin.request('GET', '/api/deployments/nope/logs')).status).to.equal(404);
    expect((await t.admin.request('GET', '/api/deployments/nope/stream')).status).to.equal(404);
    expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
  });
});
