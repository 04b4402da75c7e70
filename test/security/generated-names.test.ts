// A hostile tenant with a key for its own project wants another project's generated hostname:
// by naming its service like the victim's, and by waiting for the victim to delete its service
// (the name's traffic, cookies, OAuth callbacks and certificate would follow). Generated names are
// `<service>-<project>.<rootDomain>`, every one is recorded with its project, and a name that was
// live for one project never goes to another unless a key over all projects releases it. Services
// created before keep the names they answer to (migration 013).
import { expect } from 'chai';
import knexFactory from 'knex';
import { join } from 'node:path';
import type { BerthClient } from '../../shared/client.js';
import type { Project, Service } from '../../shared/types.js';
import { routingFromStore } from '../../daemon/proxy/routing.js';
import { migrationSource } from '../../daemon/store/migrations.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniq } from '../helpers/fixtures.js';
import { refusedWith } from './data-watch.js';

const ROOT = 'apps.example.com';

describe('hostile tenant: generated hostnames unique to their project', function () {
  this.timeout(60_000);
  let t: TestDaemon;
  let victimProject: Project;
  let hostileProject: Project;
  let victim: BerthClient;
  let hostile: BerthClient;
  let victimShop: Service;

  const routeOf = async (hostname: string) => (await routingFromStore(t.daemon.store, null)).routes.filter((r) => r.hostname === hostname);

  before(async () => {
    t = await startTestDaemon({ BERTH_CADDY_ADMIN: 'http://127.0.0.1:1' });
    await t.admin.patchSystemSettings({ rootDomain: ROOT });
    victimProject = (await t.admin.createProject({ name: uniq('victim') })).project;
    hostileProject = (await t.admin.createProject({ name: uniq('hostile') })).project;
    victim = await t.clientWith('write', [victimProject.id]);
    hostile = await t.clientWith('write', [hostileProject.id]);
    victimShop = (await victim.createService(victimProject.id, { name: 'shop', repoFullName: 'acme/shop', internalPort: 3000 })).service;
  });
  after(async () => {
    await t?.stop();
  });

  it("a service named like another project's gets a different generated name, routed to itself", async () => {
    const mine = (await hostile.createService(hostileProject.id, { name: 'shop', repoFullName: 'evil/shop', internalPort: 3000 })).service;
    expect(victimShop.generatedHostname).to.equal(`shop-${victimProject.slug}.${ROOT}`);
    expect(mine.generatedHostname).to.equal(`shop-${hostileProject.slug}.${ROOT}`);
    expect((await routeOf(victimShop.generatedHostname!)).map((r) => r.serviceId)).to.deep.equal([victimShop.id]);
    expect((await routeOf(mine.generatedHostname!)).map((r) => r.serviceId)).to.deep.equal([mine.id]);
    // nothing routes the shared `shop.<root>` to the hostile service
    expect((await routeOf(`shop.${ROOT}`)).map((r) => r.serviceId)).to.not.include(mine.id);
  });

  it("after the victim deletes its service, its name goes to no other project: not by a new service, not as a custom domain, not even by an all-projects key's domain", async () => {
    const old = victimShop.generatedHostname!;
    await victim.deleteService(victimShop.id);
    // its own `shop` again, and a name whose slug spells the victim's label
    const own = (await hostile.getProject(hostileProject.id)).project.services.find((s) => s.name === 'shop')!;
    await hostile.deleteService(own.id);
    for (const name of ['shop', `shop-${victimProject.slug}`]) {
      const s = (await hostile.createService(hostileProject.id, { name, repoFullName: 'evil/shop', internalPort: 3000 })).service;
      expect(s.generatedHostname, name).to.not.equal(old);
    }
    expect(await routeOf(old)).to.deep.equal([]);
    const target = (await hostile.createService(hostileProject.id, { name: uniq('site'), repoFullName: 'evil/site', internalPort: 3000 })).service;
    const byTenant = await refusedWith(hostile.addDomain(target.id, old));
    expect(byTenant.status).to.equal(409);
    const byAdmin = await refusedWith(t.admin.addDomain(target.id, old));
    expect(byAdmin.status).to.equal(409);
    expect(byAdmin.message).to.match(/kept for the project/);
    expect(await routeOf(old)).to.deep.equal([]);
  });

  it('the project that used the name gets it back for its own new service', async () => {
    const again = (await victim.createService(victimProject.id, { name: 'shop', repoFullName: 'acme/shop', internalPort: 3000 })).service;
    expect(again.generatedHostname).to.equal(`shop-${victimProject.slug}.${ROOT}`);
    await victim.deleteService(again.id);
  });

  it('only a key over all projects releases a kept name; then it may be handed out again', async () => {
    const label = `shop-${victimProject.slug}`;
    for (const client of [hostile, victim]) {
      const r = await client.request<{ error?: { message: string } }>('DELETE', `/api/generated-names/${label}`);
      expect(r.status).to.equal(403);
      expect(r.body.error!.message).to.match(/all projects/);
    }
    const listed = await t.admin.request<{ names: { label: string; projectId: string; serviceId: string | null }[] }>('GET', '/api/generated-names');
    expect(listed.body.names.find((n) => n.label === label)).to.deep.include({ projectId: victimProject.id, serviceId: null });
    const released = await t.admin.request('DELETE', `/api/generated-names/${label}.${ROOT}`);
    expect(released.status).to.equal(200);
    const target = (await hostile.createService(hostileProject.id, { name: uniq('after'), repoFullName: 'evil/after', internalPort: 3000 })).service;
    await t.admin.addDomain(target.id, `${label}.${ROOT}`);
    expect((await routeOf(`${label}.${ROOT}`)).map((r) => r.serviceId)).to.deep.equal([target.id]);
  });

  it('a name held by a live service cannot be released (409)', async () => {
    const svc = (await hostile.createService(hostileProject.id, { name: uniq('held'), repoFullName: 'evil/held', internalPort: 3000 })).service;
    const label = svc.generatedHostname!.slice(0, -ROOT.length - 1);
    const r = await t.admin.request<{ error?: { message: string } }>('DELETE', `/api/generated-names/${label}`);
    expect(r.status).to.equal(409);
    expect(r.body.error!.message).to.include(svc.id);
  });

  it('services created before keep the names they answer to (the migration records them for their project)', async () => {
    const u = await startTestDaemon({ BERTH_CADDY_ADMIN: 'http://127.0.0.1:1' });
    try {
      await u.admin.patchSystemSettings({ rootDomain: ROOT });
      const a = (await u.admin.createProject({ name: uniq('first') })).project;
      const b = (await u.admin.createProject({ name: uniq('second') })).project;
      const older = (await u.admin.createService(a.id, { name: 'blog', repoFullName: 'acme/blog', internalPort: 3000 })).service;
      const younger = (await u.admin.createService(b.id, { name: 'blog', repoFullName: 'acme/blog', internalPort: 3000 })).service;
      // back to the store as it was before migration 013: names were `<slug>.<root>`, not recorded
      const knex = knexFactory({ client: 'sqlite3', connection: { filename: join(u.dataDir, 'berth.sqlite') }, useNullAsDefault: true });
      try {
        await knex.migrate.down({ migrationSource: migrationSource({ tokens: null as never }), name: '013_names_and_hooks' });
        expect(await knex.schema.hasTable('generated_names')).to.equal(false);
      } finally {
        await knex.destroy();
      }
      await u.restart();
      const oldName = (await u.admin.overview(older.id)).service.generatedHostname;
      expect(oldName).to.equal(`blog.${ROOT}`);
      expect((await u.admin.overview(younger.id)).service.generatedHostname).to.equal(`blog-${b.slug}.${ROOT}`);
      const { routes } = await routingFromStore(u.daemon.store, null);
      expect(routes.filter((r) => r.hostname === `blog.${ROOT}`).map((r) => r.serviceId)).to.deep.equal([older.id]);
      // and the old name is the first project's from now on
      await u.admin.deleteService(older.id);
      const other = (await u.admin.createService(b.id, { name: 'site', repoFullName: 'acme/site', internalPort: 3000 })).service;
      expect((await refusedWith(u.admin.addDomain(other.id, `blog.${ROOT}`))).status).to.equal(409);
    } finally {
      await u.stop();
    }
  });
});
