// A hostile tenant with a key for its own project uses the operator's DNS provider account to
// create records in the operator's zones: the zone's apex, or any unused name (`new.corp.example`),
// added first as a custom domain. A project key may only write its project's own names (its
// generated hostnames and names under them), never an apex; a record Berth created goes with its
// domain; a record Berth did not create stays; and Namecheap's whole-list write never loses a record
// someone added meanwhile. Through the local fakes of the providers' real HTTP APIs.
import { expect } from 'chai';
import type { BerthClient } from '../../shared/client.js';
import type { Project, Service } from '../../shared/types.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { startCloudflareFake, startNamecheapFake, startSpaceshipFake, type CloudflareFake, type NamecheapFake, type SpaceshipFake } from '../helpers/dns-fakes.js';
import { uniq } from '../helpers/fixtures.js';

const PUBLIC_IP = '198.51.100.7';
const ADMIN_IP = '203.0.113.9';

interface Answer {
  result?: { action: string };
  error?: { code: string; message: string };
}

describe('hostile tenant: DNS records only for its own names, removed with their domain', function () {
  this.timeout(60_000);
  let t: TestDaemon;
  let project: Project;
  let tenant: BerthClient;
  let web: Service;
  let cf: CloudflareFake;
  let nc: NamecheapFake;
  let ss: SpaceshipFake;

  const zones = () => JSON.stringify({ cf: cf.records, nc: [...nc.hosts], ss: [...ss.records] });
  const point = (client: BerthClient, domainId: string, providerId: string) => client.request<Answer>('POST', `/api/services/${web.id}/domains/${domainId}/dns-records`, { providerId });
  /** The tenant's own name under the root domain `root`: its service's generated hostname. */
  const ownName = async (root: string) => {
    await t.admin.patchSystemSettings({ rootDomain: root });
    return (await tenant.overview(web.id)).service.generatedHostname!;
  };

  before(async () => {
    t = await startTestDaemon({ BERTH_CADDY_ADMIN: 'http://127.0.0.1:1' });
    await t.admin.patchSystemSettings({ publicIp: PUBLIC_IP });
    cf = await startCloudflareFake(['corp.example']);
    nc = await startNamecheapFake({
      'corp.org': [
        { Name: '@', Type: 'A', Address: ADMIN_IP, MXPref: '10', TTL: '1800' },
        { Name: 'mail', Type: 'A', Address: ADMIN_IP, MXPref: '10', TTL: '1800' },
        { Name: '@', Type: 'MX', Address: 'mail.corp.org.', MXPref: '10', TTL: '1800' },
      ],
    });
    ss = await startSpaceshipFake(['corp.net']);
    await t.admin.connectDnsProvider('cloudflare', { apiToken: cf.token, baseUrl: cf.baseUrl });
    await t.admin.connectDnsProvider('namecheap', { apiUser: nc.apiUser, apiKey: nc.apiKey, clientIp: nc.clientIp, baseUrl: nc.baseUrl });
    await t.admin.connectDnsProvider('spaceship', { apiKey: ss.apiKey, apiSecret: ss.apiSecret, baseUrl: ss.baseUrl });
    project = (await t.admin.createProject({ name: uniq('tenant') })).project;
    tenant = await t.clientWith('write', [project.id]);
    web = (await tenant.createService(project.id, { name: 'web', repoFullName: 'evil/web', internalPort: 3000 })).service;
  });
  after(async () => {
    for (const f of [cf, nc, ss]) await f?.stop();
    await t?.stop();
  });

  for (const [providerId, zone] of [
    ['cloudflare', 'corp.example'],
    ['namecheap', 'corp.org'],
    ['spaceship', 'corp.net'],
  ] as const) {
    it(`${providerId}: a project key creating a record for the zone's apex or an unused name not under its own names is 403, nothing written`, async () => {
      await ownName(`apps.${zone}`);
      for (const hostname of [zone, `${uniq('new')}.${zone}`, `${uniq('x')}.other.apps.${zone}`]) {
        const { domain } = await tenant.addDomain(web.id, hostname);
        const before = zones();
        const res = await point(tenant, domain.id, providerId);
        expect(res.status, `${hostname}: ${JSON.stringify(res.body)}`).to.equal(403);
        expect(res.body.error!.message).to.match(/not under one of this project's own names|apex/);
        expect(zones(), hostname).to.equal(before);
        await tenant.deleteDomain(web.id, domain.id);
      }
    });

    it(`${providerId}: its own generated hostname and a name under it are created, and removed when their domain goes`, async () => {
      const own = await ownName(`apps.${zone}`);
      for (const hostname of [own, `api.${own}`]) {
        const { domain } = await tenant.addDomain(web.id, hostname);
        const res = await point(tenant, domain.id, providerId);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        expect(res.body.result!.action).to.equal('created');
        expect(zones()).to.include(PUBLIC_IP);
        const withRecord = zones();
        await tenant.deleteDomain(web.id, domain.id);
        expect(zones(), `${hostname}'s record is still there`).to.not.equal(withRecord);
        expect(zones()).to.not.include(`"${hostname}"`);
      }
      expect(zones()).to.not.include(PUBLIC_IP);
    });
  }

  it('the apex is refused even when the root domain is the zone itself', async () => {
    const own = await ownName('corp.example');
    expect(own.endsWith('.corp.example')).to.equal(true);
    const { domain } = await tenant.addDomain(web.id, 'corp.example.');
    const res = await point(tenant, domain.id, 'cloudflare').catch(() => null);
    expect(res?.status).to.equal(403);
    await tenant.deleteDomain(web.id, domain.id);
  });

  it("a record Berth did not create (already there at the public IP) stays when the domain goes, and so do the zone's other records", async () => {
    const own = await ownName('apps.corp.org');
    const name = `www.${own}`;
    const host = name.slice(0, -'.corp.org'.length);
    nc.hosts.get('corp.org')!.push({ HostId: '9001', Name: host, Type: 'A', Address: PUBLIC_IP, MXPref: '10', TTL: '1800' });
    const { domain } = await tenant.addDomain(web.id, name);
    const res = await point(tenant, domain.id, 'namecheap');
    expect(res.body.result!.action).to.equal('unchanged');
    await tenant.deleteDomain(web.id, domain.id);
    const names = nc.hosts.get('corp.org')!.map((h) => `${h.Name} ${h.Type} ${h.Address}`);
    expect(names).to.include(`${host} A ${PUBLIC_IP}`);
    expect(names).to.include.members(['@ A 203.0.113.9', 'mail A 203.0.113.9', '@ MX mail.corp.org.']);
  });

  it("Namecheap: a record someone adds between Berth's read and its write is not lost (409 dns_changed, nothing written)", async () => {
    const own = await ownName('apps.corp.org');
    const { domain } = await tenant.addDomain(web.id, `race.${own}`);
    let edited = false;
    nc.onGetHosts = (d) => {
      if (d !== 'corp.org' || edited) return;
      edited = true;
      nc.hosts.get('corp.org')!.push({ HostId: '9100', Name: 'added-meanwhile', Type: 'TXT', Address: 'v=spf1 -all', MXPref: '10', TTL: '1800' });
    };
    try {
      const calls = nc.setHostsCalls.length;
      const res = await point(tenant, domain.id, 'namecheap');
      expect(res.status, JSON.stringify(res.body)).to.equal(409);
      expect(res.body.error!.code).to.equal('dns_changed');
      expect(nc.setHostsCalls.length).to.equal(calls);
      expect(nc.hosts.get('corp.org')!.map((h) => h.Name)).to.include('added-meanwhile');
      // asked again, it writes, keeping the new record
      nc.onGetHosts = null;
      const again = await point(tenant, domain.id, 'namecheap');
      expect(again.body.result!.action).to.equal('created');
      expect(nc.hosts.get('corp.org')!.map((h) => h.Name)).to.include('added-meanwhile');
    } finally {
      nc.onGetHosts = null;
    }
  });

  it('deleting the service removes the records Berth created for its domains', async () => {
    const own = await ownName('apps.corp.example');
    const { domain } = await tenant.addDomain(web.id, own);
    expect((await point(tenant, domain.id, 'cloudflare')).body.result!.action).to.equal('created');
    expect(cf.records.some((r) => r.name === own)).to.equal(true);
    await tenant.deleteService(web.id);
    expect(cf.records.some((r) => r.name === own)).to.equal(false);
  });
});
