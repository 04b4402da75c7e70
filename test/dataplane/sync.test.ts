// The daemon compares what Caddy runs with what the store describes and loads only when they
// differ: Caddy's own view of a loaded config must compare equal in every HTTPS mode, a Caddy that
// runs something else is loaded again, and an API change always loads.
import { expect } from 'chai';
import { statSync } from 'node:fs';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniq } from '../helpers/fixtures.js';

describe("the daemon's sync with what Caddy runs", function () {
  this.timeout(60_000);
  let t: TestDaemon;
  const setSetting = (key: string, value: string) => t.daemon.store.settings.set(key, value, new Date().toISOString());

  before(async () => {
    t = await startTestDaemon();
    const { project } = await t.admin.createProject({ name: uniq('sync') });
    const { service } = await t.admin.createService(project.id, { name: uniq('web'), repoFullName: 'acme/never-deployed', internalPort: 8080 });
    await t.admin.addDomain(service.id, `${uniq('sync')}.berth.test`);
  });
  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
  });

  // (not acme: Caddy would try to reach a public ACME server)
  for (const mode of ['internal', 'http'] as const) {
    it(`httpsMode ${mode}: after a load, a sync finds Caddy running exactly that and loads nothing`, async () => {
      await setSetting('httpsMode', mode);
      expect(await t.daemon.proxy.apply()).to.include({ ok: true });
      const saved = statSync(t.caddy!.autosaveFile).mtimeMs;
      const r = await t.daemon.proxy.sync();
      expect(r.state).to.equal('unchanged');
      expect(statSync(t.caddy!.autosaveFile).mtimeMs).to.equal(saved);
    });
  }

  it('a Caddy running another configuration is loaded again by a sync', async () => {
    await setSetting('httpsMode', 'http');
    await fetch(`${t.caddy!.adminUrl}/load`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ admin: { listen: `127.0.0.1:${t.caddy!.adminPort}` } }) });
    const r = await t.daemon.proxy.sync();
    expect(r.state).to.equal('loaded');
    expect(await t.caddy!.config()).to.deep.equal(await t.daemon.proxy.desired());
  });

  describe('a check that finds nothing changed', () => {
    let built = 0;
    let desired: () => Promise<Record<string, unknown>>;
    before(() => {
      desired = t.daemon.proxy.desired.bind(t.daemon.proxy);
      t.daemon.proxy.desired = () => ((built += 1), desired());
    });
    after(() => {
      t.daemon.proxy.desired = desired;
    });

    async function confirmed(): Promise<void> {
      await setSetting('httpsMode', 'http');
      await t.daemon.proxy.apply();
      expect((await t.daemon.proxy.sync()).state).to.equal('unchanged'); // the full comparison, remembered
    }

    it("is answered from Caddy's text alone: the desired configuration is not built again", async () => {
      await confirmed();
      built = 0;
      expect((await t.daemon.proxy.sync()).state).to.equal('unchanged');
      expect(built).to.equal(0);
    });

    it('still notices another configuration loaded into Caddy behind its back', async () => {
      await confirmed();
      await fetch(`${t.caddy!.adminUrl}/load`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ admin: { listen: `127.0.0.1:${t.caddy!.adminPort}` } }) });
      expect((await t.daemon.proxy.sync()).state).to.equal('loaded');
      expect(await t.caddy!.config()).to.deep.equal(await t.daemon.proxy.desired());
    });

    it('still notices a store change that was never applied', async () => {
      await confirmed();
      await setSetting('httpsMode', 'internal'); // straight into the store: no apply
      expect((await t.daemon.proxy.sync()).state).to.equal('loaded');
      expect(await t.caddy!.config()).to.deep.equal(await t.daemon.proxy.desired());
    });
  });
});
