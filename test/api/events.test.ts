// GET /api/events: what changes on the daemon, scoped to the key's projects, resumable.
import { expect } from 'chai';
import type { BerthClient } from '../../shared/client.js';
import type { SseEvent } from '../../shared/sse.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeProjectWorld, uniq } from '../helpers/fixtures.js';
import { until } from '../helpers/wait.js';

interface Collector {
  events: (SseEvent & { json: Record<string, unknown>; receivedAt: number })[];
  stop(): void;
}

function listen(client: BerthClient, lastEventId?: string): Collector {
  const controller = new AbortController();
  const events: Collector['events'] = [];
  void (async () => {
    try {
      for await (const e of client.stream('/api/events', { signal: controller.signal, ...(lastEventId ? { lastEventId } : {}) })) {
        events.push({ ...e, json: JSON.parse(e.data) as Record<string, unknown>, receivedAt: Date.now() });
      }
    } catch {
      // aborted
    }
  })();
  return { events, stop: () => controller.abort() };
}

describe('daemon event stream', () => {
  let t: TestDaemon;
  before(async () => {
    // deployments fail at their first step, locally: nothing listens on port 9
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: 'http://127.0.0.1:9' });
  });
  after(async () => t.stop());

  it('a selected-projects key sees the events of its projects only', async () => {
    const mine = await makeProjectWorld(t.admin);
    const other = await makeProjectWorld(t.admin);
    const scoped = await t.clientWith('read', [mine.project.id]);
    const sub = listen(scoped);
    const all = listen(t.admin);
    await new Promise((r) => setTimeout(r, 200));
    await t.admin.deploy(other.web.id);
    await t.admin.addDomain(other.web.id, `${uniq('o')}.example.com`);
    const { deployment } = await t.admin.deploy(mine.web.id);
    await until('the failed event', async () => sub.events.some((e) => e.event === 'deployment' && e.json.deploymentId === deployment.id && e.json.status === 'failed'), 20_000);
    await until('the other project\'s events on the all-projects key', async () => all.events.some((e) => e.json.projectId === other.project.id && e.event === 'domain'));
    sub.stop();
    all.stop();
    expect(sub.events.every((e) => e.event === 'ping' || e.json.projectId === mine.project.id)).to.equal(true);
    const types = sub.events.map((e) => `${e.event}:${String(e.json.status ?? '')}`);
    expect(types).to.include.members(['deployment:queued', 'deployment:building', 'deployment:failed', 'service:building', 'service:failed']);
  });

  it('a deploy that fails produces its failed event within a second', async () => {
    const w = await makeProjectWorld(t.admin);
    const sub = listen(t.admin);
    await new Promise((r) => setTimeout(r, 200));
    const { deployment } = await t.admin.deploy(w.web.id);
    await until('the failed event', async () => sub.events.find((e) => e.json.deploymentId === deployment.id && e.json.status === 'failed'), 20_000);
    sub.stop();
    const failed = sub.events.find((e) => e.json.deploymentId === deployment.id && e.json.status === 'failed')!;
    const done = (await t.admin.listDeployments(w.web.id)).deployments.find((d) => d.id === deployment.id)!;
    expect(failed.receivedAt - Date.parse(done.finishedAt!)).to.be.lessThan(1000);
  });

  it('domain events carry the hostname and the proxy outcome', async () => {
    const w = await makeProjectWorld(t.admin);
    const sub = listen(t.admin);
    await new Promise((r) => setTimeout(r, 200));
    const host = `${uniq('ev')}.example.com`;
    const { domain } = await t.admin.addDomain(w.web.id, host);
    await t.admin.deleteDomain(w.web.id, domain.id);
    await until('both domain events', async () => sub.events.filter((e) => e.event === 'domain' && e.json.domainId === domain.id).length === 2);
    sub.stop();
    const [created, deleted] = sub.events.filter((e) => e.event === 'domain' && e.json.domainId === domain.id);
    expect(created!.json).to.include({ action: 'created', hostname: host, serviceId: w.web.id, projectId: w.project.id });
    expect(created!.json.proxy).to.have.keys(['ok', 'detail']);
    expect(deleted!.json).to.include({ action: 'deleted' });
  });

  it('resuming with Last-Event-ID delivers exactly the missed events, in order', async () => {
    const w = await makeProjectWorld(t.admin);
    const first = listen(t.admin);
    await new Promise((r) => setTimeout(r, 200));
    await t.admin.addDomain(w.web.id, `${uniq('a')}.example.com`);
    await until('the first event', async () => first.events.some((e) => e.event === 'domain'));
    first.stop();
    const lastId = first.events.filter((e) => e.event !== 'ping').at(-1)!.id!;
    const hosts = [`${uniq('b')}.example.com`, `${uniq('c')}.example.com`];
    for (const h of hosts) await t.admin.addDomain(w.web.id, h);
    const resumed = listen(t.admin, lastId);
    await until('the missed events', async () => resumed.events.filter((e) => e.event === 'domain').length >= 2);
    await new Promise((r) => setTimeout(r, 200));
    resumed.stop();
    const domainEvents = resumed.events.filter((e) => e.event === 'domain');
    expect(domainEvents.map((e) => e.json.hostname)).to.deep.equal(hosts);
    const ids = domainEvents.map((e) => Number(e.id));
    expect(ids[0]).to.be.greaterThan(Number(lastId));
    expect(ids[1]).to.equal(ids[0]! + 1);
  });

  it('an id older than the kept history, or from another daemon run, gets a reset event', async () => {
    const sub = listen(t.admin, '1');
    await until('the reset event', async () => sub.events.some((e) => e.event === 'reset'), 5000);
    sub.stop();
    const future = listen(t.admin, String(Date.now() * 10));
    await until('the reset event', async () => future.events.some((e) => e.event === 'reset'), 5000);
    future.stop();
  });

  it('refuses a request without a key', async () => {
    const res = await t.anonymous.request('GET', '/api/events');
    expect(res.status).to.equal(401);
  });
});
