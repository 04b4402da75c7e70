// A hostile tenant creates a database service whose `databasePublicHostname` (the name the Berth
// CA signs for it) is someone else's: another database's public hostname, another service's
// custom domain or generated name, the dashboard hostname, or a name outside the root domain.
// Each is refused at creation with a clear 4xx that changes nothing; a key over all projects may
// still choose a name outside the root domain; a generated default that would collide gets a
// suffix instead.
import { expect } from 'chai';
import type { BerthClient } from '../../shared/client.js';
import type { Service } from '../../shared/types.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniq } from '../helpers/fixtures.js';
import { snapshotStore } from '../helpers/snapshot.js';
import { refusedWith, watchDaemon } from './data-watch.js';

describe('hostile tenant: names the Berth CA signs for databases', function () {
  let t: TestDaemon;
  let hostile: BerthClient;
  let ownProjectId: string;
  let ownSlug: string;
  let victimDb: Service;
  let victimWeb: Service;

  before(async () => {
    t = await startTestDaemon();
    await t.admin.patchSystemSettings({ rootDomain: 'apps.example.com', dashboardHostname: 'berth.apps.example.com' });
    const victim = (await t.admin.createProject({ name: uniq('victim') })).project;
    victimDb = (await t.admin.createService(victim.id, { name: 'db', repoFullName: 'database:postgres', databasePublicEnabled: true })).service;
    victimWeb = (await t.admin.createService(victim.id, { name: 'shop', repoFullName: 'acme/shop', internalPort: 3000 })).service;
    await t.admin.addDomain(victimWeb.id, 'shop.victim.apps.example.com');
    const own = (await t.admin.createProject({ name: uniq('hostile') })).project;
    ownProjectId = own.id;
    ownSlug = own.slug;
    hostile = await t.clientWith('write', [own.id]);
  });
  after(async () => {
    await t?.stop();
  });

  async function refusedUnchanged(hostname: string, status: number): Promise<string> {
    const before = await snapshotStore(t.dataDir);
    const watch = watchDaemon(t.anonymous);
    const err = await refusedWith(hostile.createService(ownProjectId, { name: uniq('pg'), repoFullName: 'database:postgres', databasePublicEnabled: true, databasePublicHostname: hostname }));
    expect((await watch.stop()).slowestHealthMs).to.be.below(1000);
    expect(err.status, `${hostname}: ${err.message}`).to.equal(status);
    expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
    return err.message;
  }

  it("refuses another database's public hostname (409)", async () => {
    expect(victimDb.databasePublicHostname).to.match(/\.apps\.example\.com$/);
    expect(await refusedUnchanged(victimDb.databasePublicHostname!, 409)).to.match(/public hostname of a database/);
    expect(await refusedUnchanged(victimDb.databasePublicHostname!.toUpperCase(), 409)).to.match(/database/);
  });

  it("refuses another service's custom domain, generated hostname and the dashboard hostname (409)", async () => {
    expect(await refusedUnchanged('shop.victim.apps.example.com', 409)).to.match(/custom domain/);
    expect(await refusedUnchanged(victimWeb.generatedHostname!, 409)).to.match(/generated hostname/);
    expect(await refusedUnchanged('berth.apps.example.com', 409)).to.match(/dashboard/);
  });

  it('refuses names outside the root domain, and the root domain itself, for a selected-projects key (403)', async () => {
    expect(await refusedUnchanged('db.bank.example', 403)).to.match(/not under the root domain apps\.example\.com/);
    await refusedUnchanged('apps.example.com', 403);
    await refusedUnchanged('evilapps.example.com', 403);
  });

  it('accepts a free name under the root domain for the project key, and any free name for an all-projects key', async () => {
    const mine = await hostile.createService(ownProjectId, { name: uniq('pg'), repoFullName: 'database:postgres', databasePublicHostname: `pg.${ownSlug}.apps.example.com` });
    expect(mine.service.databasePublicHostname).to.equal(`pg.${ownSlug}.apps.example.com`);
    const admin = await t.admin.createService(ownProjectId, { name: uniq('pg'), repoFullName: 'database:postgres', databasePublicHostname: 'pg.corp.example' });
    expect(admin.service.databasePublicHostname).to.equal('pg.corp.example');
  });

  it("gives a generated default that would be another service's name a suffix instead", async () => {
    // A custom domain (an all-projects key's) that is what the database's default would be.
    const web = await hostile.createService(ownProjectId, { name: uniq('store'), repoFullName: 'evil/store', internalPort: 3000 });
    await t.admin.addDomain(web.service.id, `store-${ownSlug}.apps.example.com`);
    const { service } = await hostile.createService(ownProjectId, { name: 'store', repoFullName: 'database:redis' });
    expect(service.databasePublicHostname).to.equal(`store-${ownSlug}-2.apps.example.com`);
  });

  it('without a root domain, a selected-projects key may not choose a public hostname at all (403)', async () => {
    await t.admin.patchSystemSettings({ rootDomain: null });
    try {
      expect(await refusedUnchanged(`pg2.${ownSlug}.apps.example.com`, 403)).to.match(/no root domain is set/);
    } finally {
      await t.admin.patchSystemSettings({ rootDomain: 'apps.example.com' });
    }
  });
});
