// DNS records through local fakes of the Cloudflare, Namecheap and Spaceship HTTP APIs (their
// real paths, auth and formats; base URLs given as settings). For each provider: the A record of
// a domain is created, left alone when already right, updated when the public IP changes, in the
// longest zone the account owns; Namecheap's other records survive its replace-all setHosts; bad
// credentials come back as a clear 502; refused requests change nothing. The settings and the
// provider connections themselves: system-settings.test.ts.
import { expect } from 'chai';
import { startCloudflareFake, startNamecheapFake, startSpaceshipFake, type CloudflareFake, type NamecheapFake, type SpaceshipFake } from '../helpers/dns-fakes.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeProjectWorld, uniq, type ProjectWorld } from '../helpers/fixtures.js';

type ErrorBody = { error: { code: string; message: string } };
interface RecordBody {
  ok: true;
  result: { provider: string; providerName: string; action: string; hostname: string; recordType: string; host: string; zone: string; targetIp: string };
  domain: { id: string; hostname: string; serviceId: string };
}

const IP1 = '203.0.113.10';
const IP2 = '203.0.113.20';

describe('system settings and DNS providers', function () {
  this.timeout(60_000);
  let t: TestDaemon;
  let world: ProjectWorld;
  let cf: CloudflareFake;
  let nc: NamecheapFake;
  let ss: SpaceshipFake;

  before(async () => {
    t = await startTestDaemon();
    world = await makeProjectWorld(t.admin, 'dns');
    cf = await startCloudflareFake(['example.com', 'other.org', 'shop.example.com', 'example.net']);
    nc = await startNamecheapFake(
      {
        'example.com': [],
        'example.co.uk': [
          { Name: '@', Type: 'MX', Address: 'mx1.mail.example.net.', MXPref: '20', TTL: '3600' },
          { Name: 'www', Type: 'CNAME', Address: 'example.co.uk.', MXPref: '10', TTL: '1800' },
          { Name: '@', Type: 'TXT', Address: 'v=spf1 include:mail.example.net ~all', MXPref: '10', TTL: '300' },
          { Name: '@', Type: 'A', Address: '192.0.2.1', MXPref: '10', TTL: '1800' },
        ],
      },
      { 'example.co.uk': 'MX' },
    );
    ss = await startSpaceshipFake(['example.io', 'shop.example.io', 'zzz.dev']);
  });
  after(async () => {
    for (const f of [cf, nc, ss]) await f?.stop();
    await t?.stop();
  });

  async function domainFor(hostname: string): Promise<string> {
    return (await t.admin.addDomain(world.web.id, hostname)).domain.id;
  }
  const point = (domainId: string, providerId: string) => t.admin.request<RecordBody & ErrorBody>('POST', `/api/services/${world.web.id}/domains/${domainId}/dns-records`, { providerId });
  const setIp = async (ip: string | null) => expect((await t.admin.patchSystemSettings({ publicIp: ip })).settings.publicIpDetected).to.equal(ip === null);

  describe('dns-records', () => {
    before(async () => {
      await setIp(IP1);
    });

    it('refuses a provider that is not connected, or unknown, with a 400', async () => {
      const id = await domainFor(`${uniq('nc')}.example.com`);
      for (const providerId of ['cloudflare', 'namecheap', 'spaceship']) {
        await t.admin.request('DELETE', `/api/system/dns-providers/${providerId}`);
        const res = await point(id, providerId);
        expect(res.status).to.equal(400);
        expect(res.body.error.message).to.match(/is not connected/);
      }
      const unknown = await point(id, 'route53');
      expect(unknown.status).to.equal(400);
      expect(unknown.body.error.message).to.match(/unknown DNS provider/);
      expect((await t.admin.request<ErrorBody>('POST', `/api/services/${world.web.id}/domains/${id}/dns-records`, {})).status).to.equal(400);
    });

    it('is a write endpoint and hides domains outside the key', async () => {
      const id = await domainFor(`${uniq('scope')}.example.com`);
      const read = await t.clientWith('read', 'all');
      expect((await read.request('POST', `/api/services/${world.web.id}/domains/${id}/dns-records`, { providerId: 'cloudflare' })).status).to.equal(403);
      const other = await t.admin.createProject({ name: uniq('other') });
      const outside = await t.clientWith('write', [other.project.id]);
      expect((await outside.request('POST', `/api/services/${world.web.id}/domains/${id}/dns-records`, { providerId: 'cloudflare' })).status).to.equal(404);
      expect((await t.admin.request('POST', `/api/services/${world.web.id}/domains/nope/dns-records`, { providerId: 'cloudflare' })).status).to.equal(404);
    });

    describe('cloudflare', () => {
      before(async () => {
        await setIp(IP1);
        expect((await t.admin.connectDnsProvider('cloudflare', { apiToken: cf.token, baseUrl: cf.baseUrl })).provider.connected).to.equal(true);
      });

      it('creates the A record in the longest zone, then leaves it, then updates it when the IP changes', async () => {
        const label = uniq('app');
        const hostname = `${label}.shop.example.com`;
        const id = await domainFor(hostname);
        const before = cf.requests.length;
        const created = await point(id, 'cloudflare');
        expect(created.status, JSON.stringify(created.body)).to.equal(200);
        expect(created.body.ok).to.equal(true);
        expect(created.body.result).to.deep.equal({
          provider: 'cloudflare',
          providerName: 'Cloudflare',
          action: 'created',
          hostname,
          recordType: 'A',
          host: label,
          zone: 'shop.example.com',
          targetIp: IP1,
        });
        expect(created.body.domain).to.include({ id, hostname, serviceId: world.web.id });
        const shop = cf.zones.find((z) => z.name === 'shop.example.com')!;
        expect(cf.records.filter((r) => r.name === hostname)).to.deep.equal([{ ...cf.records.find((r) => r.name === hostname)!, zone_id: shop.id, type: 'A', content: IP1, ttl: 1, proxied: false }]);
        const sent = cf.requests.slice(before);
        expect(sent.every((r) => r.headers.authorization === `Bearer ${cf.token}`)).to.equal(true);
        expect(sent.filter((r) => r.path === '/client/v4/zones').map((r) => r.query.get('page'))).to.deep.equal(['1', '2', '3', '4']); // every page read
        expect(sent.at(-1)).to.include({ method: 'POST', path: `/client/v4/zones/${shop.id}/dns_records` });

        const again = await point(id, 'cloudflare');
        expect(again.body.result.action).to.equal('unchanged');
        expect(cf.requests.at(-1)!.method).to.equal('GET');

        await setIp(IP2);
        try {
          const updated = await point(id, 'cloudflare');
          expect(updated.body.result).to.include({ action: 'updated', targetIp: IP2, zone: 'shop.example.com' });
          const records = cf.records.filter((r) => r.name === hostname);
          expect(records).to.have.length(1);
          expect(records[0]!.content).to.equal(IP2);
          expect(cf.requests.at(-1)).to.include({ method: 'PUT', path: `/client/v4/zones/${shop.id}/dns_records/${records[0]!.id}` });
        } finally {
          await setIp(IP1);
        }
      });

      it('writes an apex record as host @', async () => {
        const id = await domainFor('example.net');
        const res = await point(id, 'cloudflare');
        expect(res.body.result).to.include({ action: 'created', host: '@', zone: 'example.net', hostname: 'example.net' });
      });

      it('says so with a 400 when the account has no zone for the hostname', async () => {
        const id = await domainFor(`${uniq('x')}.unowned.dev`);
        const res = await point(id, 'cloudflare');
        expect(res.status).to.equal(400);
        expect(res.body.error.message).to.match(/the Cloudflare account has no zone for .*unowned\.dev/);
      });

      it("reports bad credentials as a 502 with Cloudflare's message, without the token", async () => {
        const wrong = `${cf.token}-wrong`;
        await t.admin.request('PUT', '/api/system/dns-providers/cloudflare', { apiToken: wrong, baseUrl: cf.baseUrl });
        try {
          const res = await point(await domainFor(`${uniq('bad')}.example.com`), 'cloudflare');
          expect(res.status).to.equal(502);
          expect(res.body.error.code).to.equal('provider_error');
          expect(res.body.error.message).to.equal('Cloudflare refused the request (HTTP 403): Authentication error (code 10000)');
          expect(res.body.error.message).not.to.include(wrong);
        } finally {
          await t.admin.request('PUT', '/api/system/dns-providers/cloudflare', { apiToken: cf.token, baseUrl: cf.baseUrl });
        }
      });
    });

    describe('namecheap', () => {
      before(async () => {
        await setIp(IP1);
        const res = await t.admin.request('PUT', '/api/system/dns-providers/namecheap', { apiUser: nc.apiUser, apiKey: nc.apiKey, clientIp: nc.clientIp, baseUrl: nc.baseUrl });
        expect(res.status).to.equal(200);
      });

      it('adds the A record to the host list of a multi-part-TLD domain keeping every other record with its fields, then updates it in place', async () => {
        const label = uniq('shop');
        const hostname = `${label}.example.co.uk`;
        const id = await domainFor(hostname);
        const others = nc.hosts.get('example.co.uk')!.map(({ HostId: _id, ...h }) => h);
        const created = await point(id, 'namecheap');
        expect(created.status, JSON.stringify(created.body)).to.equal(200);
        expect(created.body.result).to.deep.equal({
          provider: 'namecheap',
          providerName: 'Namecheap',
          action: 'created',
          hostname,
          recordType: 'A',
          host: label,
          zone: 'example.co.uk',
          targetIp: IP1,
        });
        const call = nc.setHostsCalls.at(-1)!;
        expect(call).to.include({ SLD: 'example', TLD: 'co.uk', EmailType: 'MX', Command: 'namecheap.domains.dns.setHosts' });
        const after = () => nc.hosts.get('example.co.uk')!.map(({ HostId: _id, ...h }) => h);
        expect(after()).to.deep.equal([...others, { Name: label, Type: 'A', Address: IP1, MXPref: '10', TTL: '1800' }]);
        expect(nc.emailType.get('example.co.uk')).to.equal('MX');
        // credentials went in the form body of the POST, not in its URL
        const setReq = nc.requests.at(-1)!;
        expect(setReq.method).to.equal('POST');
        expect(setReq.query.toString()).to.equal('');
        const gets = nc.requests.filter((r) => r.method === 'GET');
        expect(gets.at(-1)!.query.get('Command')).to.equal('namecheap.domains.dns.getHosts');
        expect(gets.at(-1)!.query.get('ApiKey')).to.equal(nc.apiKey);

        const calls = nc.setHostsCalls.length;
        expect((await point(id, 'namecheap')).body.result.action).to.equal('unchanged');
        expect(nc.setHostsCalls.length).to.equal(calls);

        await setIp(IP2);
        try {
          const updated = await point(id, 'namecheap');
          expect(updated.body.result).to.include({ action: 'updated', targetIp: IP2 });
          expect(after()).to.deep.equal([...others, { Name: label, Type: 'A', Address: IP2, MXPref: '10', TTL: '1800' }]);
        } finally {
          await setIp(IP1);
        }
      });

      it('updates the existing apex A record, keeping MX, CNAME and TXT records', async () => {
        const id = await domainFor('example.co.uk');
        const res = await point(id, 'namecheap');
        expect(res.body.result).to.include({ action: 'updated', host: '@', zone: 'example.co.uk' });
        const hosts = nc.hosts.get('example.co.uk')!;
        expect(hosts.filter((h) => h.Name === '@' && h.Type === 'A').map((h) => h.Address)).to.deep.equal([IP1]);
        expect(hosts.find((h) => h.Type === 'MX')).to.include({ Name: '@', Address: 'mx1.mail.example.net.', MXPref: '20', TTL: '3600' });
        expect(hosts.find((h) => h.Type === 'CNAME')).to.include({ Name: 'www', Address: 'example.co.uk.' });
        expect(hosts.find((h) => h.Type === 'TXT')).to.include({ Name: '@', Address: 'v=spf1 include:mail.example.net ~all', TTL: '300' });
      });

      it("reports a refused API key as a 502 with Namecheap's message, without the key", async () => {
        const wrong = 'ffffffffffffffffffffffffffffffff';
        await t.admin.request('PUT', '/api/system/dns-providers/namecheap', { apiUser: nc.apiUser, apiKey: wrong, clientIp: nc.clientIp, baseUrl: nc.baseUrl });
        try {
          const res = await point(await domainFor(`${uniq('bad')}.example.com`), 'namecheap');
          expect(res.status).to.equal(502);
          expect(res.body.error.message).to.equal('Namecheap refused the request: Parameter APIKey is invalid (error 1011102)');
        } finally {
          await t.admin.request('PUT', '/api/system/dns-providers/namecheap', { apiUser: nc.apiUser, apiKey: nc.apiKey, clientIp: nc.clientIp, baseUrl: nc.baseUrl });
        }
      });
    });

    describe('spaceship', () => {
      before(async () => {
        await setIp(IP1);
        expect((await t.admin.request('PUT', '/api/system/dns-providers/spaceship', { apiKey: ss.apiKey, apiSecret: ss.apiSecret, baseUrl: ss.baseUrl })).status).to.equal(200);
      });

      it('creates the A record in the longest zone, then leaves it, then replaces it when the IP changes', async () => {
        const label = uniq('app');
        const hostname = `${label}.shop.example.io`;
        const id = await domainFor(hostname);
        const before = ss.requests.length;
        const created = await point(id, 'spaceship');
        expect(created.status, JSON.stringify(created.body)).to.equal(200);
        expect(created.body.result).to.deep.equal({
          provider: 'spaceship',
          providerName: 'Spaceship',
          action: 'created',
          hostname,
          recordType: 'A',
          host: label,
          zone: 'shop.example.io',
          targetIp: IP1,
        });
        expect(ss.records.get('shop.example.io')).to.deep.equal([{ type: 'A', name: label, address: IP1, ttl: 3600 }]);
        expect(ss.records.get('example.io')).to.deep.equal([]);
        const sent = ss.requests.slice(before);
        expect(sent.every((r) => r.headers['x-api-key'] === ss.apiKey && r.headers['x-api-secret'] === ss.apiSecret)).to.equal(true);
        expect(sent.filter((r) => r.path === '/api/v1/domains')).to.have.length(3); // paged through all three
        expect(sent.at(-1)).to.include({ method: 'PUT', path: '/api/v1/dns/records/shop.example.io' });
        expect(JSON.parse(sent.at(-1)!.raw)).to.deep.equal({ force: true, items: [{ type: 'A', name: label, address: IP1, ttl: 3600 }] });

        expect((await point(id, 'spaceship')).body.result.action).to.equal('unchanged');
        expect(ss.requests.at(-1)!.method).to.equal('GET');

        ss.records.get('shop.example.io')!.push({ type: 'TXT', name: label, address: 'keep-me', ttl: 600 });
        await setIp(IP2);
        try {
          const updated = await point(id, 'spaceship');
          expect(updated.body.result).to.include({ action: 'updated', targetIp: IP2 });
          expect(ss.records.get('shop.example.io')).to.deep.equal([
            { type: 'TXT', name: label, address: 'keep-me', ttl: 600 },
            { type: 'A', name: label, address: IP2, ttl: 3600 },
          ]);
        } finally {
          await setIp(IP1);
        }
      });

      it("reports bad credentials as a 502 with Spaceship's message, without the secret", async () => {
        const wrong = `${ss.apiSecret}x`;
        await t.admin.request('PUT', '/api/system/dns-providers/spaceship', { apiKey: ss.apiKey, apiSecret: wrong, baseUrl: ss.baseUrl });
        try {
          const res = await point(await domainFor(`${uniq('bad')}.example.io`), 'spaceship');
          expect(res.status).to.equal(502);
          expect(res.body.error.message).to.equal('Spaceship refused the request (HTTP 401): Invalid API key or secret.');
          expect(res.body.error.message).not.to.include(wrong);
        } finally {
          await t.admin.request('PUT', '/api/system/dns-providers/spaceship', { apiKey: ss.apiKey, apiSecret: ss.apiSecret, baseUrl: ss.baseUrl });
        }
      });
    });
  });
});
