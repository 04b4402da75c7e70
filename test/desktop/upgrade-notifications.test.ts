// The desktop app's tray notification for an upgrade of Berth that rolled back or failed, like a
// failed deployment's: from the `upgrade` event when the daemon that announces it is the one the app
// is connected to (a run that failed before switching), and from a read of GET /api/system/upgrade
// when the stream comes back after the daemon restarted (the switch back restarts it, and it
// announces the run before the app reconnects). Once per run; never for a run that succeeded. The
// upgrader is a fake of the installer's (test/helpers/fake-upgrader.ts).
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { fakeInstall, type FakeInstall } from '../helpers/fake-upgrader.js';
import { until } from '../helpers/wait.js';
import { VERSION } from '../../daemon/version.js';
import { harness, type Harness } from './harness.js';

describe('desktop: a Berth upgrade that rolled back or failed raises a tray notification', function () {
  this.timeout(120_000);
  let t: TestDaemon;
  let install: FakeInstall;
  let h: Harness;
  let serverId: string;

  const stream = () => h.app.streams.get(serverId)!;
  const ended = (id: string) =>
    until(
      `run ${id} ends`,
      async () => {
        const { run } = (await t.admin.serverUpgrade()).upgrade;
        return run?.id === id && run.state !== 'running';
      },
      30_000,
    );
  const upgrade = async (from: string) => (await t.admin.startServerUpgrade(from)).upgrade.run!.id;

  before(async () => {
    install = fakeInstall();
    t = await startTestDaemon({ BERTH_CADDY_ADMIN: 'http://127.0.0.1:1', ...install.env });
    const { token } = await t.admin.createKey({ name: 'desktop', access: 'write', projects: 'all' });
    h = harness();
    h.app.start();
    serverId = (await h.app.addServer({ name: 'prod', url: t.url, key: token })).server.id;
    await until('online', async () => stream().state.status === 'online', 10_000);
  });
  after(async () => {
    h?.app.stop();
    rmSync(h?.dir ?? '/nonexistent', { recursive: true, force: true });
    install?.release();
    await t?.stop();
    install?.remove();
  });

  it('an upgrade that failed before switching notifies once from the event; a click opens the settings', async () => {
    await ended(await upgrade('https://releases.example.com/missing/berth-2.0.0.tar.gz'));
    // the daemon announces it within its 5 s check
    await until('the notification', async () => h.notes.shown.some((n) => n.title === "Berth's upgrade failed on prod"), 15_000);
    const note = h.notes.shown.find((n) => n.title === "Berth's upgrade failed on prod")!;
    expect(note.body).to.equal("Nothing was changed. Click to see the upgrade's log.");
    note.click();
    expect(h.opened.at(-1)).to.deep.equal({ serverId, route: '/settings' });
  });

  it('a rolled-back upgrade that restarted the daemon notifies after the app reconnects; a successful one does not', async () => {
    const before = h.notes.shown.length;
    await ended(await upgrade('https://releases.example.com/berth-3.0.0.tar.gz'));
    install.hold();
    const id = await upgrade('https://releases.example.com/unhealthy/berth-3.1.0.tar.gz');
    await until('the upgrader reports', async () => (await t.admin.serverUpgrade()).upgrade.run?.step?.startsWith('download') ?? false, 10_000);
    // the switch and the switch back happen while the daemon is down; the daemon that starts announces the run at once
    const restarted = t.restart(3000);
    install.release();
    await restarted;
    await until('the notification', async () => h.notes.shown.some((n) => n.title === "Berth's upgrade rolled back on prod"), 20_000);
    expect((await t.admin.serverUpgrade()).upgrade.run).to.include({ id, state: 'rolled_back' });
    await new Promise((r) => setTimeout(r, 6000));
    const shown = h.notes.shown.slice(before).filter((n) => !/offline|back online/.test(n.title));
    expect(shown.map((n) => n.title)).to.deep.equal(["Berth's upgrade rolled back on prod"]);
    // read from the API after the reconnect: with the upgrader's reason
    expect(shown[0]!.body).to.equal(`Berth ${VERSION} runs again: the new daemon did not answer /api/health within 60 s; ${VERSION} and its state backup are back. Click to see the upgrade's log.`);
  });
});
