// A hostile tenant with a key for its own project tries to take names the daemon generated for
// someone else: another project's `<service>-<project>.<rootDomain>`, the dashboard hostname, a database's
// public hostname. Each is a 409 that changes nothing; and when the root domain or the
// dashboard hostname changes later so that an existing custom domain becomes another service's
// generated name, the routing keeps that name with the service it is generated for.
import { expect } from 'chai';
import type { BerthClient } from '../../shared/client.js';
import type { Service } from '../../shared/types.js';
import { routingFromStore } from '../../daemon/proxy/routing.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniq } from '../helpers/fixtures.js';
import { snapshotStore } from '../helpers/snapshot.js';
import { refusedWith, watchDaemon } from './data-watch.js';

describe('hostile tenant: generated hostnames of others', function () {
  let t: TestDaemon;
  let hostile: BerthClient;
  let victim: Service;
  let victimDb: Service;
  let mine: Service;
  let mineDomainId: string;

  before(async () => {
    t = await startTestDaemon();
    await t.admin.patchSystemSettings({ rootDomain: 'apps.example.com', dashboardHostname: 'berth.example.com' });
    const victimProject = (await t.admin.createProject({ name: uniq('victim') })).project;
    victim = (await t.admin.createService(victimProject.id, { name: 'shop', repoFullName: 'acme/shop', internalPort: 3000 })).service;
    victimDb = (await t.admin.createService(victimProject.id, { name: 'db', repoFullName: 'database:postgres', databasePublicEnabled: true })).service;
    const own = (await t.admin.createProject({ name: uniq('hostile') })).project;
    hostile = await t.clientWith('write', [own.id]);
    mine = (await hostile.createService(own.id, { name: 'site', repoFullName: 'evil/site', internalPort: 3000 })).service;
    mineDomainId = (await hostile.addDomain(mine.id, 'site.evil.example')).domain.id;
  });
  after(async () => {
    await t?.stop();
  });

  async function refusedUnchanged(attempt: () => Promise<unknown>, status: number): Promise<string> {
    const before = await snapshotStore(t.dataDir);
    const watch = watchDaemon(t.anonymous);
    const err = await refusedWith(attempt());
    expect((await watch.stop()).slowestHealthMs).to.be.below(1000);
    expect(err.status, err.message).to.equal(status);
    expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
    return err.message;
  }

  it("refuses another project's generated <service>-<project>.<rootDomain> as a custom domain (409), also by PATCH", async () => {
    const name = victim.generatedHostname!;
    expect(name).to.match(/\.apps\.example\.com$/);
    expect(await refusedUnchanged(() => hostile.addDomain(mine.id, name), 409)).to.match(/generated hostname/);
    expect(await refusedUnchanged(() => hostile.addDomain(mine.id, name.toUpperCase() + '.'), 409)).to.match(/generated hostname/);
    await refusedUnchanged(() => hostile.patchDomain(mine.id, mineDomainId, name), 409);
  });

  it('refuses the dashboard hostname (409)', async () => {
    expect(await refusedUnchanged(() => hostile.addDomain(mine.id, 'berth.example.com'), 409)).to.match(/dashboard/);
    await refusedUnchanged(() => hostile.patchDomain(mine.id, mineDomainId, 'Berth.Example.Com'), 409);
  });

  it("refuses a database's generated public hostname (409)", async () => {
    expect(victimDb.databasePublicHostname).to.match(/\.apps\.example\.com$/);
    expect(await refusedUnchanged(() => hostile.addDomain(mine.id, victimDb.databasePublicHostname!), 409)).to.match(/database/);
  });

  it('keeps one-label names under the root domain from a selected-projects key (a later service would get them)', async () => {
    await refusedUnchanged(() => hostile.addDomain(mine.id, 'not-yet-a-service.apps.example.com'), 409);
    // its own generated name, and deeper names, stay allowed
    await hostile.addDomain(mine.id, mine.generatedHostname!);
    await hostile.addDomain(mine.id, 'a.b.apps.example.com');
  });

  it('when the root domain changes later, an existing custom domain never takes over a generated name', async () => {
    // The tenant holds shop.other.example today, legitimately (it is nobody's generated name yet).
    const label = victim.generatedHostname!.split('.')[0]!;
    await hostile.addDomain(mine.id, `${label}.other.example`);
    await t.admin.patchSystemSettings({ rootDomain: 'other.example' });
    const { routes } = await routingFromStore(t.daemon.store, null);
    const route = routes.find((r) => r.hostname === `${label}.other.example`);
    expect(route?.serviceId).to.equal(victim.id);
    expect(routes.filter((r) => r.hostname === `${label}.other.example`)).to.have.length(1);
    await t.admin.patchSystemSettings({ rootDomain: 'apps.example.com' });
  });

  it('when the dashboard hostname changes later, it routes to the dashboard, not to a custom domain', async () => {
    await hostile.addDomain(mine.id, 'console.evil.example');
    await t.admin.patchSystemSettings({ dashboardHostname: 'console.evil.example' });
    const { routes } = await routingFromStore(t.daemon.store, '127.0.0.1:4310');
    expect(routes.filter((r) => r.hostname === 'console.evil.example')).to.deep.equal([{ hostname: 'console.evil.example', upstream: '127.0.0.1:4310' }]);
  });
});
