// The server's address (GET/PUT /api/system/address): it changes only when the user says so, and a
// change answers the fingerprint of the API certificate Caddy then serves for the new address (read
// from the listener, as clients meet it); bad addresses are refused with nothing changed; a restart
// keeps the address and the certificate; only keys over all projects read it, only write ones change it.
import { expect } from 'chai';
import { BerthClient } from '../../shared/client.js';
import { pinnedFetch } from '../../shared/pinned-tls.js';
import type { ServerAddress, ServerAddressChange } from '../../shared/types.js';
import { servedCertificate, startTlsTestDaemon, type TlsTestDaemon } from '../helpers/api-tls.js';
import { makeProjectWorld } from '../helpers/fixtures.js';
import { snapshotStore } from '../helpers/snapshot.js';

type ErrorBody = { error: { code: string; message: string } };

describe("the server's address and the API certificate", function () {
  this.timeout(90_000);
  let s: TlsTestDaemon;
  let first: ServerAddress;

  before(async () => {
    s = await startTlsTestDaemon();
  });
  after(async () => {
    await s?.t.stop();
  });

  it('is the detected address at first, with the fingerprint of the certificate served for it', async () => {
    const res = await s.t.admin.request<{ address: ServerAddress }>('GET', '/api/system/address');
    expect(res.status).to.equal(200);
    first = res.body.address;
    const served = await servedCertificate(s.port);
    expect(first).to.deep.equal({
      address: first.detectedAddress,
      detected: true,
      detectedAddress: first.detectedAddress,
      fingerprint: served.fingerprint,
      apiUrl: `https://${first.detectedAddress}:${s.port}`,
    });
    expect(first.fingerprint).to.match(/^[0-9a-f]{64}$/);
    expect(served.ips).to.deep.equal([first.address]);
  });

  it('refuses an address no client can reach, or not an IPv4, with a 400 and changes nothing', async () => {
    const before = await snapshotStore(s.t.dataDir);
    const cases: [unknown, RegExp][] = [
      [{ address: '127.0.0.1' }, /loopback/],
      [{ address: '0.0.0.0' }, /this host/],
      [{ address: '169.254.10.20' }, /link-local/],
      [{ address: '224.0.0.5' }, /multicast/],
      [{ address: '255.255.255.255' }, /reserved/],
      [{ address: '2001:db8::1' }, /must be an IPv4 address/],
      [{ address: '300.1.2.3' }, /must be an IPv4 address/],
      [{ address: 'example.com' }, /must be an IPv4 address/],
      [{ address: '' }, /must be an IPv4 address/],
      [{ address: 42 }, /^address: /],
      [{}, /^address: /],
      [{ address: '198.51.100.9', force: true }, /force/],
    ];
    for (const [body, message] of cases) {
      const res = await s.t.admin.request<ErrorBody>('PUT', '/api/system/address', body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.error.message, JSON.stringify(body)).to.match(message);
    }
    // the same rules for PATCH /api/system/settings's publicIp
    const patch = await s.t.admin.request<ErrorBody>('PATCH', '/api/system/settings', { publicIp: '127.0.0.1' });
    expect(patch.status).to.equal(400);
    expect(patch.body.error.message).to.match(/publicIp 127\.0\.0\.1 cannot be the server's address: a loopback address/);
    expect(await snapshotStore(s.t.dataDir)).to.deep.equal(before);
    expect((await servedCertificate(s.port)).fingerprint).to.equal(first.fingerprint);
  });

  it('a read key cannot change it; a key over some projects can neither read nor change it', async () => {
    const world = await makeProjectWorld(s.t.admin, 'addr');
    const readAll = await s.t.clientWith('read', 'all');
    const writeSome = await s.t.clientWith('write', [world.project.id]);
    expect((await readAll.request('GET', '/api/system/address')).status).to.equal(200);
    const before = await snapshotStore(s.t.dataDir);
    const put = await readAll.request<ErrorBody>('PUT', '/api/system/address', { address: '198.51.100.9' });
    expect(put.status).to.equal(403);
    expect((await writeSome.request<ErrorBody>('PUT', '/api/system/address', { address: '198.51.100.9' })).body.error.message).to.match(/changing the server's address needs a key over all projects/);
    expect((await writeSome.request('GET', '/api/system/address')).status).to.equal(403);
    expect(await snapshotStore(s.t.dataDir)).to.deep.equal(before);
  });

  it('a change answers the new certificate fingerprint, which is the one served; clients pinned to the old one are refused', async () => {
    const res = await s.t.admin.request<ServerAddressChange>('PUT', '/api/system/address', { address: ' 198.51.100.31 ' });
    expect(res.status).to.equal(200);
    const { address, changed, previousFingerprint, proxy } = res.body;
    expect(changed).to.equal(true);
    expect(proxy.ok, proxy.detail).to.equal(true);
    expect(previousFingerprint).to.equal(first.fingerprint);
    expect(address).to.include({ address: '198.51.100.31', detected: false, detectedAddress: first.detectedAddress, apiUrl: `https://198.51.100.31:${s.port}` });
    expect(address.fingerprint)
      .to.match(/^[0-9a-f]{64}$/)
      .and.not.equal(first.fingerprint);
    const served = await servedCertificate(s.port);
    expect(served).to.deep.equal({ fingerprint: address.fingerprint, ips: ['198.51.100.31'] });
    // the settings view agrees, and its existing keys are as they were
    expect((await s.t.admin.systemSettings()).settings).to.include({ publicIp: '198.51.100.31', publicIpDetected: false });
    // a client pinned to the new fingerprint gets in; one pinned to the old is refused before sending its key
    const fresh = new BerthClient(s.url, null, { fetch: pinnedFetch(address.fingerprint!) });
    expect((await fresh.health()).ok).to.equal(true);
    const stale = new BerthClient(s.url, null, { fetch: pinnedFetch(first.fingerprint!) });
    const err = (await stale.health().then(
      () => null,
      (e: unknown) => e,
    )) as { cause?: { code?: string; expected?: string; actual?: string } } | null;
    expect(err?.cause).to.include({ code: 'BERTH_CERT_FINGERPRINT_MISMATCH', expected: first.fingerprint, actual: address.fingerprint });
  });

  it('setting the same address again changes nothing: same certificate, nothing written', async () => {
    const before = await snapshotStore(s.t.dataDir);
    const { fingerprint } = await servedCertificate(s.port);
    const res = await s.t.admin.request<ServerAddressChange>('PUT', '/api/system/address', { address: '198.51.100.31' });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.include({ changed: false, previousFingerprint: fingerprint });
    expect(res.body.address.fingerprint).to.equal(fingerprint);
    expect(await snapshotStore(s.t.dataDir)).to.deep.equal(before);
  });

  it('a restart keeps the address and the certificate: nothing but the user re-issues it', async () => {
    const { fingerprint } = await servedCertificate(s.port);
    await s.t.restart();
    const after = (await s.t.admin.request<{ address: ServerAddress }>('GET', '/api/system/address')).body.address;
    expect(after).to.deep.equal({ address: '198.51.100.31', detected: false, detectedAddress: first.detectedAddress, fingerprint, apiUrl: `https://198.51.100.31:${s.port}` });
    expect((await servedCertificate(s.port)).fingerprint).to.equal(fingerprint);
  });
});
