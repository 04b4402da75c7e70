// A pinned server whose address changed (so its API certificate was re-issued), seen from the
// desktop app's main process: testing it, a forwarded call and the event stream all say plainly
// that the certificate changed, with both fingerprints and how to re-pin; pasting the new
// fingerprint in the server list reconnects. Against a real daemon with Caddy's HTTPS listener.
import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { formatFingerprint } from '../../shared/pinned-tls.js';
import { servedCertificate, startTlsTestDaemon } from '../helpers/api-tls.js';
import { until } from '../helpers/wait.js';
import { harness } from './harness.js';
import { safeStorageStandIn } from './stand-ins.js';

describe('desktop: a pinned server whose certificate changed with its address', function () {
  this.timeout(120_000);
  const dirs: string[] = [];
  const make = (backend: string) => {
    const x = harness({ safeStorage: safeStorageStandIn(backend) });
    dirs.push(x.dir);
    return x;
  };
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('says the certificate changed, with both fingerprints; pasting the new one reconnects', async () => {
    const tls = await startTlsTestDaemon();
    try {
      const admin = (await tls.t.admin.createKey({ name: 'desktop', access: 'write', projects: 'all' })).token;
      const old = (await servedCertificate(tls.port)).fingerprint;
      const x = make('gnome_libsecret');
      const { server, test } = await x.app.addServer({ name: 'moved', url: tls.url, key: admin, fingerprint: old });
      expect(test).to.include({ ok: true });
      x.app.start();
      const stream = () => x.app.streams.get(server.id)!;
      await until('online with the old pin', async () => stream().state.status === 'online', 10_000, 50);

      const change = await tls.t.admin.setServerAddress('198.51.100.61');
      const fresh = change.address.fingerprint!;
      const message =
        `the server's certificate changed (pinned ${formatFingerprint(old).slice(0, 11)}…, served ${formatFingerprint(fresh).slice(0, 11)}…): ` +
        `if you changed the server's address, edit the server and paste the new fingerprint ${fresh}; otherwise do not connect: someone may be in between`;
      expect((await x.app.test(server.id)).error).to.equal(message);
      const call = await x.app.forward(server.id, 'GET', '/api/projects', undefined);
      expect(call.status).to.equal(0);
      expect((call.body as { error: { message: string } }).error.message).to.equal(`moved cannot be reached: ${message}`);
      // the stream drops at its next reconnect (the server list shows its error)
      x.app.reconnectAll();
      await until('the stream refused', async () => stream().state.status === 'offline', 10_000, 50);
      expect(x.app.summaries()[0]!.connection.error).to.equal(message);

      // edit the server: the new fingerprint
      x.app.update(server.id, { fingerprint: fresh.toUpperCase() });
      expect((await x.app.test(server.id)).ok).to.equal(true);
      await until('online with the new pin', async () => stream().state.status === 'online', 10_000, 50);
      x.app.stop();
    } finally {
      await tls.t.stop();
    }
  });
});
