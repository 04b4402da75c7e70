import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DeploymentStatus } from '../../shared/types.js';
import { liveDeployment, liveDeployments, recordStatus } from '../../daemon/core/deployment-states.js';
import { IllegalTransition } from '../../daemon/core/errors.js';
import type { DeploymentRecord } from '../../daemon/core/records.js';
import type { DeploymentRepo, Store } from '../../daemon/core/ports/store.js';
import { systemClock } from '../../daemon/core/clock.js';
import { setStatus } from '../../daemon/deploy/states.js';
import { DaemonEvents, type DeploymentChange } from '../../daemon/deploy/events.js';
import { EventHub } from '../../daemon/events/hub.js';
import { openDataDir } from '../../daemon/runtime.js';
import { serviceRecord as service } from '../helpers/service-record.js';

const NOW = '2026-01-01T00:00:00.000Z';

function deployment(id: string, serviceId: string, status: DeploymentStatus, createdAt: string, containerId: string | null = `c-${id}`): DeploymentRecord {
  return {
    id,
    serviceId,
    commitSha: null,
    status,
    trigger: 'manual',
    imageTag: null,
    containerName: null,
    startedAt: null,
    finishedAt: null,
    createdAt,
    branch: null,
    containerId,
    upstreamPort: null,
    buildMethod: null,
  };
}

// Two stores over one data directory: the daemon and another writer (a second process, such as
// start-up reconciliation racing a deployment, or the CLI), each with its own connection and cache.
describe('deployment status writes (real SQLite, two connections)', () => {
  let dir: string;
  let a: Store;
  let b: Store;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'berth-states-'));
    a = await openDataDir(dir);
    b = await openDataDir(dir);
    await a.projects.insert({ id: 'p', name: 'p', slug: 'p', description: '', createdAt: NOW, updatedAt: NOW });
    await a.services.insert(service('s'), []);
    await a.services.insert(service('t'), []);
  });
  afterEach(async () => {
    await a.close();
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a conditional write that read `running` loses to a concurrent terminal write and changes nothing', async () => {
    await a.deployments.insert(deployment('d', 's', 'running', NOW));
    let raced = false;
    // The other writer supersedes the deployment between this writer's read and its write.
    const racing: Pick<DeploymentRepo, 'get' | 'setStatus'> = {
      get: async (id) => {
        const seen = await a.deployments.get(id);
        if (!raced) {
          raced = true;
          expect(await recordStatus(b.deployments, 'd', 'superseded', { finishedAt: '2026-01-02T00:00:00.000Z' })).to.include({ status: 'superseded' });
        }
        return seen;
      },
      setStatus: (...args) => a.deployments.setStatus(...args),
    };
    const err = await recordStatus(racing, 'd', 'failed', { finishedAt: '2026-01-03T00:00:00.000Z' }).catch((e: unknown) => e);
    expect(raced).to.equal(true);
    expect(err).to.be.instanceOf(IllegalTransition);
    expect(err).to.include({ from: 'superseded', to: 'failed' });
    const stored = await b.deployments.get('d');
    expect(stored).to.include({ status: 'superseded', finishedAt: '2026-01-02T00:00:00.000Z' });
  });

  it('of two writers racing to end a live deployment, exactly one wins and the store says what it wrote', async () => {
    for (let i = 0; i < 10; i++) {
      const id = `r${i}`;
      await a.deployments.insert(deployment(id, 's', 'running', NOW));
      const outcomes = await Promise.allSettled([recordStatus(a.deployments, id, 'failed'), recordStatus(b.deployments, id, 'superseded')]);
      const won = outcomes.filter((o) => o.status === 'fulfilled') as PromiseFulfilledResult<DeploymentRecord | null>[];
      const lost = outcomes.filter((o) => o.status === 'rejected') as PromiseRejectedResult[];
      expect(won, `round ${i}`).to.have.length(1);
      expect(lost[0]!.reason).to.be.instanceOf(IllegalTransition);
      expect((await a.deployments.get(id))!.status).to.equal(won[0]!.value!.status);
    }
  });

  it('setStatus writes status and patch only from an allowed predecessor', async () => {
    await a.deployments.insert(deployment('q', 's', 'queued', NOW));
    expect(await a.deployments.setStatus('q', 'running', ['building'], { finishedAt: NOW })).to.equal(false);
    expect(await a.deployments.get('q')).to.include({ status: 'queued', finishedAt: null });
    expect(await a.deployments.setStatus('q', 'building', ['queued'], { startedAt: NOW })).to.equal(true);
    expect(await b.deployments.get('q')).to.include({ status: 'building', startedAt: NOW });
    expect(await a.deployments.setStatus('gone', 'building', ['queued'], {})).to.equal(false);
  });

  it('recordStatus refuses a move the table forbids without writing, and answers null for a deployment that is gone', async () => {
    await a.deployments.insert(deployment('f', 's', 'failed', NOW));
    const err = await recordStatus(a.deployments, 'f', 'running', { finishedAt: NOW }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(IllegalTransition);
    expect(await b.deployments.get('f')).to.include({ status: 'failed', finishedAt: null });
    expect(await recordStatus(a.deployments, 'nope', 'failed')).to.equal(null);
  });

  it("the deploy engine's writer that loses records nothing, publishes nothing and says why in the daemon log", async () => {
    const events = new DaemonEvents(new EventHub(systemClock));
    const seen: DeploymentChange[] = [];
    events.onDeployment((c) => seen.push(c));
    const logged: string[] = [];
    const d = { store: a, events, log: (m: string) => logged.push(m) };
    await a.deployments.insert(deployment('x', 's', 'running', NOW));
    const read = (await a.deployments.get('x'))!;
    expect(await setStatus({ ...d, store: b }, read, 'superseded', {})).to.equal(true);
    expect(await setStatus(d, read, 'failed', { finishedAt: NOW })).to.equal(false);
    expect(await a.deployments.get('x')).to.include({ status: 'superseded', finishedAt: null });
    expect(seen.map((c) => c.status)).to.deep.equal(['superseded']);
    expect(logged).to.deep.equal(['deployment x is superseded; it cannot become failed; its status stays as it is']);
  });

  it('liveDeployment is the newest running deployment with a container, per service', async () => {
    expect(await liveDeployment(a, 's')).to.equal(null);
    await a.deployments.insert(deployment('old', 's', 'running', '2026-01-01T00:00:01.000Z'));
    await a.deployments.insert(deployment('new', 's', 'running', '2026-01-01T00:00:02.000Z'));
    await a.deployments.insert(deployment('nocontainer', 's', 'running', '2026-01-01T00:00:03.000Z', null));
    await a.deployments.insert(deployment('building', 's', 'building', '2026-01-01T00:00:04.000Z'));
    await a.deployments.insert(deployment('superseded', 's', 'superseded', '2026-01-01T00:00:05.000Z'));
    await a.deployments.insert(deployment('other', 't', 'running', '2026-01-01T00:00:00.000Z'));
    expect((await liveDeployment(a, 's'))?.id).to.equal('new');
    expect((await liveDeployment(a, 't'))?.id).to.equal('other');
    const both = await liveDeployments(a, ['s', 't', 'none']);
    expect([...both.entries()].map(([k, v]) => [k, v.id]).sort()).to.deep.equal([
      ['s', 'new'],
      ['t', 'other'],
    ]);
    // the cached read follows a status write
    await recordStatus(a.deployments, 'new', 'superseded');
    expect((await liveDeployment(a, 's'))?.id).to.equal('old');
    await recordStatus(a.deployments, 'old', 'failed');
    expect(await liveDeployment(a, 's')).to.equal(null);
  });
});
