// A key over selected projects follows GET /api/events: for each kind of change, made in another
// project, its stream carries nothing of it (no event naming the other project or its services),
// while the same change in its own project arrives (so the stream is shown to work); keys and
// system-wide settings, heard by a key over all projects, never reach it. The key is a read key:
// read keys hear the events of their projects.
import { expect } from 'chai';
import { ALL_PROJECTS_EVENT_TYPES } from '../../shared/events.js';
import type { Service } from '../../shared/types.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDatabaseImages } from '../helpers/databases.js';
import { startCloudflareFake, type CloudflareFake } from '../helpers/dns-fakes.js';
import { listenToEvents, type EventListener, type HeardEvent } from '../helpers/event-listener.js';
import { makeProjectWorld, uniq, type ProjectWorld } from '../helpers/fixtures.js';
import { allowLoopbackNotifyTargets } from '../helpers/notify-targets.js';
import { until, waitForDeployment } from '../helpers/wait.js';

describe('a selected-projects key hears nothing of other projects on /api/events', function () {
  this.timeout(300_000);
  let t: TestDaemon;
  let mine: ProjectWorld;
  let other: ProjectWorld;
  let scoped: EventListener;
  let all: EventListener;
  let cf: CloudflareFake;
  /** Ids of the other project and everything in it, as created during the test. */
  const foreign = new Set<string>();

  const mentionsForeign = (e: HeardEvent) => Object.values(e.json).some((v) => typeof v === 'string' && foreign.has(v));
  const leaks = (from: number) =>
    scoped
      .heard()
      .slice(from)
      .filter((e) => mentionsForeign(e) || (ALL_PROJECTS_EVENT_TYPES as string[]).includes(e.event));

  /**
   * Does `inOther` (in the other project), then `inMine`; waits until the all-projects stream heard
   * the other project's `kind` events and the scoped stream heard its own (later, so everything
   * before it was delivered too), and expects none of the other's on the scoped stream.
   */
  async function step(kind: string, inOther: () => Promise<unknown>, inMine: () => Promise<unknown>, count = 1, match: (e: HeardEvent) => boolean = () => true): Promise<HeardEvent[]> {
    const from = scoped.heard().length;
    const allFrom = all.heard().length;
    await inOther();
    await inMine();
    await until(
      `the other project's ${kind} events on the all-projects stream`,
      async () =>
        all
          .heard()
          .slice(allFrom)
          .filter((e) => e.event === kind && mentionsForeign(e)).length >= count,
      10_000,
    );
    const own = await until(
      `${kind} events of its own project on the scoped stream`,
      async () => {
        const got = scoped
          .heard()
          .slice(from)
          .filter((e) => e.event === kind && e.json.projectId === mine.project.id && match(e));
        return got.length >= count ? got : null;
      },
      10_000,
    );
    expect(leaks(from).map((e) => `${e.event} ${e.data}`)).to.deep.equal([]);
    return own;
  }

  before(async () => {
    t = await startTestDaemon({ ...requireDatabaseImages(), BERTH_IMPORT_TIMEOUT: '5' });
    cf = await startCloudflareFake(['corp.example']);
    await t.admin.patchSystemSettings({ publicIp: '198.51.100.7' });
    await t.admin.connectDnsProvider('cloudflare', { apiToken: cf.token, baseUrl: cf.baseUrl });
    mine = await makeProjectWorld(t.admin, 'mine');
    other = await makeProjectWorld(t.admin, 'other');
    for (const id of [other.project.id, other.web.id, other.db.id, other.worker.id, other.env.id, other.domain.id]) foreign.add(id);
    scoped = listenToEvents(await t.clientWith('read', [mine.project.id]));
    all = listenToEvents(t.admin);
    await new Promise((r) => setTimeout(r, 300));
  });
  after(async () => {
    scoped?.stop();
    all?.stop();
    await cf?.stop();
    await t?.stop();
  });

  it('project: a rename in another project is not heard; its own is', async () => {
    const [own] = await step(
      'project',
      () => t.admin.patchProject(other.project.id, { name: uniq('other-renamed') }),
      () => t.admin.patchProject(mine.project.id, { name: uniq('mine-renamed') }),
    );
    expect(own!.json).to.include({ action: 'updated', projectId: mine.project.id });
  });

  it('service-change: created, updated and deleted in another project are not heard; its own are', async () => {
    const lifecycle = async (w: ProjectWorld) => {
      const { service } = await t.admin.createService(w.project.id, { name: uniq('svc'), repoFullName: 'acme/svc', internalPort: 3000 });
      if (w === other) foreign.add(service.id);
      await t.admin.patchService(service.id, { name: uniq('renamed') });
      await t.admin.deleteService(service.id);
    };
    const own = await step(
      'service-change',
      () => lifecycle(other),
      () => lifecycle(mine),
      3,
    );
    expect(own.map((e) => e.json.action)).to.deep.equal(['created', 'updated', 'deleted']);
  });

  it('service-change: a move between other projects is not heard; a move out of and into its own project is', async () => {
    const third = (await t.admin.createProject({ name: uniq('third') })).project;
    foreign.add(third.id);
    const { service: mover } = await t.admin.createService(other.project.id, { name: uniq('mover'), repoFullName: 'acme/mover', internalPort: 3000 });
    foreign.add(mover.id);
    const { service: mineMover } = await t.admin.createService(mine.project.id, { name: uniq('mine-mover'), repoFullName: 'acme/mover', internalPort: 3000 });
    const own = await step(
      'service-change',
      () => t.admin.transferService(mover.id, third.id),
      async () => {
        await t.admin.transferService(mineMover.id, third.id);
        await t.admin.transferService(mineMover.id, mine.project.id);
      },
      2,
      (e) => e.json.action === 'transferred',
    );
    // out of its project, then back in: never naming the third project
    expect(own.map((e) => [e.json.serviceId, e.json.direction])).to.deep.equal([
      [mineMover.id, 'out'],
      [mineMover.id, 'in'],
    ]);
  });

  it('env: variables set, changed and deleted in another project are not heard; its own are, without values', async () => {
    const cycle = async (w: ProjectWorld) => {
      await t.admin.setEnv(w.web.id, 'SCOPE_CHECK', 'first-value');
      await t.admin.setEnv(w.web.id, 'SCOPE_CHECK', 'second-value');
      const v = (await t.admin.overview(w.web.id)).env.find((e) => e.key === 'SCOPE_CHECK')!;
      if (w === other) foreign.add(v.id);
      await t.admin.deleteEnv(w.web.id, v.id);
    };
    const own = await step(
      'env',
      () => cycle(other),
      () => cycle(mine),
      3,
    );
    expect(own.map((e) => e.json.action)).to.deep.equal(['created', 'updated', 'deleted']);
    expect(JSON.stringify(scoped.events)).not.to.contain('-value');
  });

  it('domain and domain-dns: a domain added and pointed in another project is not heard; its own is', async () => {
    const point = async (w: ProjectWorld) => {
      const { domain } = await t.admin.addDomain(w.web.id, `${uniq('dns')}.corp.example`);
      if (w === other) foreign.add(domain.id);
      await t.admin.createDnsRecord(w.web.id, domain.id, 'cloudflare');
    };
    const [own] = await step(
      'domain-dns',
      () => point(other),
      () => point(mine),
    );
    expect(own!.json).to.include({ action: 'pointed', serviceId: mine.web.id });
    expect(scoped.heard().some((e) => e.event === 'domain' && e.json.projectId === mine.project.id)).to.equal(true);
  });

  it("quotas: another project's quotas changing is not heard; its own are", async () => {
    await step(
      'quotas',
      () => t.admin.patchProjectQuotas(other.project.id, { maxServices: 40 }),
      () => t.admin.patchProjectQuotas(mine.project.id, { maxServices: 40 }),
    );
  });

  it("backup-settings: another project's database backup settings are not heard; its own are", async () => {
    const [own] = await step(
      'backup-settings',
      () => t.admin.patchBackupSettings(other.db.id, { keepDaily: 3 }),
      () => t.admin.patchBackupSettings(mine.db.id, { keepDaily: 3 }),
    );
    expect(own!.json).to.include({ serviceId: mine.db.id });
  });

  it("import: another project's data import is not heard; its own import's statuses are", async () => {
    const redisOf = async (w: ProjectWorld): Promise<Service> => {
      const { service } = await t.admin.createService(w.project.id, { name: uniq('cache'), repoFullName: 'database:redis', repoUrl: 'database', internalPort: 6379, env: [] });
      if (w === other) foreign.add(service.id);
      const { deployment } = await t.admin.deploy(service.id);
      const done = await waitForDeployment(t.admin, service.id, deployment.id, ['running', 'failed'], 240_000);
      if (done.status !== 'running') throw new Error('redis did not deploy');
      return service;
    };
    const [theirs, ours] = await Promise.all([redisOf(other), redisOf(mine)]);
    // nothing listens on port 9: each import runs, then fails
    const own = await step(
      'import',
      async () => foreign.add((await t.admin.importFrom(theirs!.id, 'redis-url', 'redis://127.0.0.1:9/0')).result.id),
      () => t.admin.importFrom(ours!.id, 'redis-url', 'redis://127.0.0.1:9/0'),
      2,
    );
    expect(own.map((e) => e.json.status)).to.deep.equal(['running', 'failed']);
  });

  it('keys, settings, notification channels and generated names are heard by all-projects keys only', async () => {
    const from = scoped.heard().length;
    const allFrom = all.heard().length;
    const { key } = await t.admin.createKey({ name: uniq('k'), access: 'read', projects: 'all' });
    await t.admin.revokeKey(key.id);
    await t.admin.patchSystemSettings({ buildTimeoutSeconds: 900 });
    await t.admin.patchDefaultQuotas({ maxServices: 50 });
    await t.admin.deleteBackupStorage();
    await t.admin.disconnectDnsProvider('cloudflare');
    await t.admin.putAiProvider('scope-check', { kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-unused-key-000000000000' });
    await allowLoopbackNotifyTargets(t.admin);
    const { channel } = await t.admin.createNotificationChannel({ type: 'webhook', name: uniq('ch'), url: 'http://127.0.0.1:9/hook', events: ['deployment_failed'] });
    await t.admin.deleteNotificationChannel(channel.id);
    await t.admin.patchSystemSettings({ rootDomain: 'apps.example' });
    const { service } = await t.admin.createService(other.project.id, { name: uniq('named'), repoFullName: 'acme/named', internalPort: 3000 });
    foreign.add(service.id);
    const label = (await t.admin.overview(service.id)).service.generatedHostname!;
    await t.admin.deleteService(service.id);
    await t.admin.releaseGeneratedName(label);
    // a change of its own last: once it arrives, everything before it was delivered
    await t.admin.patchProject(mine.project.id, { name: uniq('mine-last') });
    await until(
      'the last own event',
      async () =>
        scoped
          .heard()
          .slice(from)
          .some((e) => e.event === 'project'),
      10_000,
    );
    const heardByAll = all.heard().slice(allFrom);
    expect(heardByAll.filter((e) => e.event === 'key').map((e) => e.json.action)).to.deep.equal(['created', 'revoked']);
    expect(heardByAll.filter((e) => e.event === 'settings').map((e) => e.json.area)).to.include.members([
      'system',
      'deploy-limits',
      'quota-defaults',
      'backup-storage',
      'dns-providers',
      'ai-providers',
    ]);
    expect(heardByAll.filter((e) => e.event === 'notification-channel').map((e) => e.json.action)).to.deep.equal(['created', 'deleted']);
    expect(heardByAll.some((e) => e.event === 'generated-name' && e.json.action === 'released')).to.equal(true);
    expect(leaks(from).map((e) => `${e.event} ${e.data}`)).to.deep.equal([]);
  });

  it("a deleted project's event is heard by the keys that could see it, and by no other", async () => {
    const doomed = (await t.admin.createProject({ name: uniq('doomed') })).project;
    const doomedKey = listenToEvents(await t.clientWith('read', [doomed.id]));
    const from = scoped.heard().length;
    await new Promise((r) => setTimeout(r, 300));
    await t.admin.deleteProject(doomed.id);
    const heard = await until('the deletion', async () => doomedKey.heard().find((e) => e.event === 'project'), 10_000);
    doomedKey.stop();
    expect(heard.json).to.include({ action: 'deleted', projectId: doomed.id });
    await t.admin.patchProject(mine.project.id, { name: uniq('mine-after') });
    await until(
      'its own event',
      async () =>
        scoped
          .heard()
          .slice(from)
          .some((e) => e.event === 'project'),
      10_000,
    );
    expect(
      scoped
        .heard()
        .slice(from)
        .some((e) => e.json.projectId === doomed.id),
    ).to.equal(false);
  });
});
