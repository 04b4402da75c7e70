// A hostile tenant's variables that fan out (`V2 = ${a.V1}` x 9000, `V1 = ${a.V0}` x 9000) are
// refused at once with 400 invalid_reference naming the cap, and the daemon keeps answering.
import { expect } from 'chai';
import type { BerthClient } from '../../shared/client.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniq } from '../helpers/fixtures.js';
import { expectHealthy, refusal } from '../helpers/hostile-checks.js';
import { snapshotStore } from '../helpers/snapshot.js';

describe('security: env reference fan-out', () => {
  let t: TestDaemon;
  let tenant: BerthClient;
  let projectId: string;
  before(async () => {
    t = await startTestDaemon();
    projectId = (await t.admin.createProject({ name: uniq('tenant') })).project.id;
    tenant = await t.clientWith('write', [projectId]);
  });
  after(async () => t.stop());

  const fanOut = [
    { key: 'V0', value: 'x' },
    { key: 'V1', value: '${a.V0}'.repeat(9000) },
    { key: 'V2', value: '${a.V1}'.repeat(9000) },
  ];

  it('a service created with fanned-out references is refused quickly, naming the cap, and nothing is stored', async () => {
    const before = await snapshotStore(t.dataDir);
    const started = Date.now();
    const pending = refusal(tenant.createService(projectId, { name: 'a', repoFullName: 'acme/a', branch: 'main', internalPort: 3000, env: fanOut }));
    await expectHealthy(t.url);
    const err = await pending;
    expect(Date.now() - started).to.be.below(3000);
    expect(err.status).to.equal(400);
    expect(err.code).to.equal('invalid_reference');
    expect(err.message).to.match(/the cap on (an expanded value|references per value)/);
    expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
    await expectHealthy(t.url);
  });

  it('the same fan-out added one variable at a time is refused at the variable that passes the cap', async () => {
    const { service } = await tenant.createService(projectId, { name: 'a', repoFullName: 'acme/a', branch: 'main', internalPort: 3000, env: fanOut.slice(0, 2) });
    const before = await snapshotStore(t.dataDir);
    const started = Date.now();
    const err = await refusal(tenant.setEnv(service.id, 'V2', fanOut[2]!.value));
    expect(Date.now() - started).to.be.below(3000);
    expect(err.status).to.equal(400);
    expect(err.code).to.equal('invalid_reference');
    expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
    // what is stored still displays quickly: the overview and suggestions resolve each variable once
    const overview = await tenant.overview(service.id);
    expect(overview.env.find((e) => e.key === 'V1')!.resolvedValue).to.equal('x'.repeat(9000));
    await tenant.suggestionKeys(service.id);
    await expectHealthy(t.url);
  });
});
