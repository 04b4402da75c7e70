// Domains: validated, lower-case, unique across the daemon, refused on workers, and the proxy
// outcome reported honestly while Caddy is not reachable.
import { expect } from 'chai';
import { ApiError } from '../../shared/client.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeProjectWorld, uniq } from '../helpers/fixtures.js';
import { snapshotStore } from '../helpers/snapshot.js';

async function statusOf(p: Promise<unknown>): Promise<number> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, 'the request should have failed').to.be.instanceOf(ApiError);
  return (err as ApiError).status;
}

describe('domains', () => {
  let t: TestDaemon;
  before(async () => {
    // no Caddy at all: the proxy results must say so
    t = await startTestDaemon({ BERTH_CADDY_ADMIN: 'http://127.0.0.1:1' });
  });
  after(async () => t.stop());

  it('stores the hostname lower-case and shows it in the overview', async () => {
    const w = await makeProjectWorld(t.admin);
    const host = `${uniq('Shop')}.Example.COM`;
    const { domain } = await t.admin.addDomain(w.web.id, host);
    expect(domain.hostname).to.equal(host.toLowerCase());
    expect(domain.status).to.equal('active');
    const { domains } = await t.admin.overview(w.web.id);
    expect(domains.map((d) => d.id)).to.include(domain.id);
  });

  it('primaryUrl becomes https://<hostname> and preferredDomain is set once a domain exists', async () => {
    const w = await makeProjectWorld(t.admin);
    const { service } = await t.admin.createService(w.project.id, { name: 'fresh', repoFullName: 'acme/fresh' });
    expect(service.primaryUrl).to.equal(service.localUrl);
    expect(service.preferredDomain).to.equal(null);
    const host = `${uniq('fresh')}.example.com`;
    await t.admin.addDomain(service.id, host);
    const { service: after } = await t.admin.overview(service.id);
    expect(after.primaryUrl).to.equal(`https://${host}`);
    expect(after.preferredDomain).to.equal(host);
    expect(after.localUrl).to.equal(`http://127.0.0.1:${service.hostPort}`);
  });

  it('a hostname is unique across the whole daemon (409), whatever its case', async () => {
    const a = await makeProjectWorld(t.admin);
    const b = await makeProjectWorld(t.admin);
    const before = await snapshotStore(t.dataDir);
    expect(await statusOf(t.admin.addDomain(b.web.id, a.domain.hostname.toUpperCase()))).to.equal(409);
    expect(await statusOf(t.admin.addDomain(a.web.id, a.domain.hostname))).to.equal(409);
    expect(await statusOf(t.admin.patchDomain(b.web.id, b.domain.id, a.domain.hostname))).to.equal(409);
    expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
  });

  it('two simultaneous requests for one hostname: exactly one wins', async () => {
    const a = await makeProjectWorld(t.admin);
    const b = await makeProjectWorld(t.admin);
    const host = `${uniq('race')}.example.com`;
    const results = await Promise.allSettled([t.admin.addDomain(a.web.id, host), t.admin.addDomain(b.web.id, host)]);
    expect(results.filter((r) => r.status === 'fulfilled')).to.have.length(1);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect((rejected.reason as ApiError).status).to.equal(409);
  });

  it('workers accept no custom domains (400, nothing saved)', async () => {
    const w = await makeProjectWorld(t.admin);
    const before = await snapshotStore(t.dataDir);
    const err = await t.admin.addDomain(w.worker.id, `${uniq('w')}.example.com`).catch((e: ApiError) => e);
    expect(err).to.be.instanceOf(ApiError);
    expect((err as ApiError).status).to.equal(400);
    expect((err as ApiError).message).to.match(/worker/);
    expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
  });

  it('a service with domains cannot become a worker until they are removed (409)', async () => {
    const w = await makeProjectWorld(t.admin);
    expect(await statusOf(t.admin.patchService(w.web.id, { runtimeMode: 'worker' }))).to.equal(409);
    await t.admin.deleteDomain(w.web.id, w.domain.id);
    const { service } = await t.admin.patchService(w.web.id, { runtimeMode: 'worker' });
    expect(service).to.include({ runtimeMode: 'worker', internalPort: null, hostPort: null });
  });

  it('PATCH moves a domain to a new hostname; the old one is free again', async () => {
    const w = await makeProjectWorld(t.admin);
    const other = await makeProjectWorld(t.admin);
    const next = `${uniq('next')}.example.com`;
    await t.admin.patchDomain(w.web.id, w.domain.id, next);
    const { domains } = await t.admin.overview(w.web.id);
    expect(domains.map((d) => d.hostname)).to.deep.equal([next]);
    await t.admin.addDomain(other.web.id, w.domain.hostname);
  });

  it('PATCH to its own hostname is allowed', async () => {
    const w = await makeProjectWorld(t.admin);
    await t.admin.patchDomain(w.web.id, w.domain.id, w.domain.hostname);
  });

  it('DELETE removes it; a domain id under another service is 404', async () => {
    const a = await makeProjectWorld(t.admin);
    const b = await makeProjectWorld(t.admin);
    expect(await statusOf(t.admin.deleteDomain(b.web.id, a.domain.id))).to.equal(404);
    await t.admin.deleteDomain(a.web.id, a.domain.id);
    expect((await t.admin.overview(a.web.id)).domains).to.deep.equal([]);
    expect(await statusOf(t.admin.deleteDomain(a.web.id, a.domain.id))).to.equal(404);
  });

  it('while Caddy is not reachable, the proxy result says so instead of claiming success', async () => {
    const w = await makeProjectWorld(t.admin);
    const { proxy } = await t.admin.addDomain(w.web.id, `${uniq('p')}.example.com`);
    expect(proxy.ok).to.equal(false);
    expect(proxy.detail).to.match(/Caddy is not reachable at http:\/\/127\.0\.0\.1:1: .*the change is saved/);
  });

  it('accepts internationalised names only in their ASCII (punycode) form', async () => {
    const w = await makeProjectWorld(t.admin);
    expect(await statusOf(t.admin.addDomain(w.web.id, 'café.example.com'))).to.equal(400);
    await t.admin.addDomain(w.web.id, `xn--caf-dma.${uniq('idn')}.com`);
  });
});
