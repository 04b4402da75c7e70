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
    await until("the other project's events on the all-projects key", async () => all.events.some((e) => e.json.projectId === other.project.id && e.event === 'domain'));
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
    // every event after lastId, none skipped (the audit log's `audit` events come between the domain ones)
    const all = resumed.events.filter((e) => e.event !== 'ping').map((e) => Number(e.id));
    expect(all[0]).to.equal(Number(lastId) + 1);
    expect(all).to.deep.equal(all.map((_id, i) => all[0]! + i));
  });

  it('an id older than the kept history, or from another daemon run, gets a reset event', async () => {
    const sub = listen(t.admin, '1');
    await until('the reset event', async () => sub.events.some((e) => e.event === 'reset'), 5000);
    sub.stop();
    const future = listen(t.admin, String(Date.now() * 10));
    await until('the reset event', async () => future.events.some((e) => e.event === 'reset'), 5000);
    future.stop();
  });

  it('project, service and env change events carry ids, names and the action: never an env value', async () => {
    const sub = listen(t.admin);
    await new Promise((r) => setTimeout(r, 200));
    const { project } = await t.admin.createProject({ name: uniq('shape') });
    const { project: target } = await t.admin.createProject({ name: uniq('target') });
    const { service } = await t.admin.createService(project.id, { name: 'api', repoFullName: 'acme/api', internalPort: 3000 });
    await t.admin.setEnv(service.id, 'API_TOKEN', 'super-secret-value');
    await t.admin.setEnv(service.id, 'API_TOKEN', 'another-secret-value');
    const envId = (await t.admin.overview(service.id)).env.find((e) => e.key === 'API_TOKEN')!.id;
    await t.admin.deleteEnv(service.id, envId);
    await t.admin.patchService(service.id, { name: 'api-renamed' });
    await t.admin.transferService(service.id, target.id);
    await t.admin.deleteService(service.id);
    await t.admin.patchProject(project.id, { name: 'renamed project' });
    await t.admin.deleteProject(project.id);
    await until('the project deleted event', async () => sub.events.some((e) => e.event === 'project' && e.json.action === 'deleted' && e.json.projectId === project.id));
    sub.stop();
    const of = (type: string) => sub.events.filter((e) => e.event === type && (e.json.projectId === project.id || e.json.projectId === target.id)).map((e) => e.json);
    const projects = of('project');
    expect(projects.map((p) => p.action)).to.deep.equal(['created', 'created', 'updated', 'deleted']);
    for (const p of projects) expect(p).to.have.keys(['projectId', 'name', 'slug', 'action', 'at']);
    expect(projects[2]).to.include({ projectId: project.id, name: 'renamed project', slug: project.slug });
    const services = of('service-change');
    expect(services.map((e) => `${e.action}${e.direction ? `:${e.direction}` : ''}@${e.projectId === project.id ? 'p' : 't'}`)).to.deep.equal([
      'created@p',
      'updated@p',
      'transferred:out@p',
      'transferred:in@t',
      'deleted@t',
    ]);
    expect(services[0]).to.deep.equal({ serviceId: service.id, projectId: project.id, name: 'api', action: 'created', at: services[0]!.at });
    expect(services[1]).to.include({ name: 'api-renamed' });
    const env = of('env');
    expect(env.map((e) => e.action)).to.deep.equal(['created', 'updated', 'deleted']);
    for (const e of env) expect(e).to.deep.equal({ serviceId: service.id, projectId: project.id, envId, key: 'API_TOKEN', action: e.action, at: e.at });
    expect(JSON.stringify(sub.events)).not.to.contain('secret-value');
  });

  it('key, settings and quota events carry ids, names and what changed: never a token or a secret', async () => {
    const w = await makeProjectWorld(t.admin);
    const sub = listen(t.admin);
    await new Promise((r) => setTimeout(r, 200));
    const { key, token } = await t.admin.createKey({ name: uniq('shape-key'), access: 'read', projects: [w.project.id] });
    await t.admin.revokeKey(key.id);
    await t.admin.patchSystemSettings({ maxQueuedPerProject: 7 });
    await t.admin.patchProjectQuotas(w.project.id, { maxBackups: 9 });
    await t.admin.patchBackupSettings(w.db.id, { keepWeekly: 2 });
    await until('the backup settings event', async () => sub.events.some((e) => e.event === 'backup-settings'));
    sub.stop();
    const keys = sub.events.filter((e) => e.event === 'key').map((e) => e.json);
    expect(keys).to.deep.equal([
      { keyId: key.id, name: key.name, action: 'created', at: keys[0]!.at },
      { keyId: key.id, name: key.name, action: 'revoked', at: keys[1]!.at },
    ]);
    expect(sub.events.filter((e) => e.event === 'settings').map((e) => e.json.area)).to.deep.equal(['system', 'deploy-limits']);
    expect(sub.events.find((e) => e.event === 'quotas')!.json).to.have.keys(['projectId', 'at']);
    expect(sub.events.find((e) => e.event === 'backup-settings')!.json).to.deep.include({ serviceId: w.db.id, projectId: w.project.id });
    expect(JSON.stringify(sub.events)).not.to.contain(token);
  });

  it('refuses a request without a key', async () => {
    const res = await t.anonymous.request('GET', '/api/events');
    expect(res.status).to.equal(401);
  });
});
