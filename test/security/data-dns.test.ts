// A hostile tenant with a key for its own project adds the apex, `www` and `mail` of the
// administrator's zones as custom domains, then asks the DNS endpoint to point them at this
// server. They are not the project's own names (403, see dns-scope.test.ts); under its own names,
// records that already exist (an A record elsewhere, a CNAME) are never changed: 409
// `dns_record_exists` naming the record; either way the provider's zone byte for byte as before, the
// store unchanged. A name of its own with no record is still created; one already at publicIp is
// `unchanged`; a key over all projects may still repoint. Through the local fakes of the providers' real APIs.
import { expect } from 'chai';
import type { BerthClient } from '../../shared/client.js';
import type { Service } from '../../shared/types.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { startCloudflareFake, startNamecheapFake, startSpaceshipFake, type CloudflareFake, type NamecheapFake, type SpaceshipFake } from '../helpers/dns-fakes.js';
import { uniq } from '../helpers/fixtures.js';
import { snapshotStore } from '../helpers/snapshot.js';
import { watchDaemon } from './data-watch.js';

const PUBLIC_IP = '198.51.100.7';
const ADMIN_IP = '203.0.113.9';

interface Answer {
  result?: { action: string };
  error?: { code: string; message: string };
}

describe('hostile tenant: existing DNS records of the administrator', function () {
  let t: TestDaemon;
  let hostile: BerthClient;
  let web: Service;
  let cf: CloudflareFake;
  let nc: NamecheapFake;
  let ss: SpaceshipFake;

  before(async () => {
    t = await startTestDaemon();
    await t.admin.patchSystemSettings({ publicIp: PUBLIC_IP });
    cf = await startCloudflareFake(['corp.example']);
    const cfZone = cf.zones[0]!;
    const cfRecord = (name: string, type: string, content: string) => cf.records.push({ id: uniq('rec'), zone_id: cfZone.id, zone_name: cfZone.name, name, type, content, ttl: 1, proxied: false });
    cfRecord('corp.example', 'A', ADMIN_IP);
    cfRecord('www.corp.example', 'CNAME', 'corp.example');
    cfRecord('mail.corp.example', 'A', ADMIN_IP);
    cfRecord('here.corp.example', 'A', PUBLIC_IP);
    nc = await startNamecheapFake({
      'corp.org': [
        { Name: '@', Type: 'A', Address: ADMIN_IP, MXPref: '10', TTL: '1800' },
        { Name: 'www', Type: 'CNAME', Address: 'corp.org.', MXPref: '10', TTL: '1800' },
        { Name: 'mail', Type: 'A', Address: ADMIN_IP, MXPref: '10', TTL: '1800' },
        { Name: '@', Type: 'MX', Address: 'mail.corp.org.', MXPref: '10', TTL: '1800' },
      ],
    });
    ss = await startSpaceshipFake(['corp.net']);
    ss.records.set('corp.net', [
      { type: 'A', name: '@', address: ADMIN_IP, ttl: 3600 },
      { type: 'A', name: 'mail', address: ADMIN_IP, ttl: 3600 },
      { type: 'AAAA', name: 'www', address: '2001:db8::1', ttl: 3600 },
    ]);
    await t.admin.connectDnsProvider('cloudflare', { apiToken: cf.token, baseUrl: cf.baseUrl });
    await t.admin.connectDnsProvider('namecheap', { apiUser: nc.apiUser, apiKey: nc.apiKey, clientIp: nc.clientIp, baseUrl: nc.baseUrl });
    await t.admin.connectDnsProvider('spaceship', { apiKey: ss.apiKey, apiSecret: ss.apiSecret, baseUrl: ss.baseUrl });
    const project = (await t.admin.createProject({ name: uniq('hostile') })).project;
    hostile = await t.clientWith('write', [project.id]);
    web = (await hostile.createService(project.id, { name: 'web', repoFullName: 'evil/web', internalPort: 3000 })).service;
  });
  after(async () => {
    for (const f of [cf, nc, ss]) await f?.stop();
    await t?.stop();
  });

  const zones = () => JSON.stringify({ cf: cf.records, nc: [...nc.hosts], ss: [...ss.records] });

  async function point(client: BerthClient, hostname: string, providerId: string): Promise<{ status: number; body: Answer }> {
    const { domain } = await hostile.addDomain(web.id, hostname);
    return client.request<Answer>('POST', `/api/services/${web.id}/domains/${domain.id}/dns-records`, { providerId });
  }

  for (const [providerId, zone] of [
    ['cloudflare', 'corp.example'],
    ['namecheap', 'corp.org'],
    ['spaceship', 'corp.net'],
  ] as const) {
    it(`${providerId}: the apex, www and mail that exist are refused (not the project's names), and nothing changes`, async () => {
      for (const hostname of [zone, `www.${zone}`, `mail.${zone}`]) {
        const { domain } = await hostile.addDomain(web.id, hostname);
        const zonesBefore = zones();
        const storeBefore = await snapshotStore(t.dataDir);
        const watch = watchDaemon(t.anonymous);
        const res = await hostile.request<Answer>('POST', `/api/services/${web.id}/domains/${domain.id}/dns-records`, { providerId });
        expect((await watch.stop()).slowestHealthMs).to.be.below(1000);
        expect(res.status, `${hostname}: ${JSON.stringify(res.body)}`).to.equal(403);
        expect(res.body.error!.message).to.include(hostname);
        expect(zones(), hostname).to.equal(zonesBefore);
        expect(await snapshotStore(t.dataDir)).to.deep.equal(storeBefore);
      }
    });

    it(`${providerId}: a name of the project's own with no record is created for the project key`, async () => {
      await t.admin.patchSystemSettings({ rootDomain: `apps.${zone}` });
      const own = (await hostile.overview(web.id)).service.generatedHostname!;
      const res = await point(hostile, `${uniq('new')}.${own}`, providerId);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.result!.action).to.equal('created');
    });
  }

  it('under its own names, an existing record elsewhere is 409 naming it, and one already at publicIp is unchanged', async () => {
    await t.admin.patchSystemSettings({ rootDomain: 'apps.corp.example' });
    const own = (await hostile.overview(web.id)).service.generatedHostname!;
    const zone = cf.zones[0]!;
    for (const [name, content] of [
      [`here.${own}`, PUBLIC_IP],
      [`mail.${own}`, ADMIN_IP],
    ] as const) {
      cf.records.push({ id: uniq('rec'), zone_id: zone.id, zone_name: zone.name, name, type: 'A', content, ttl: 1, proxied: false });
    }
    const before = zones();
    const taken = await point(hostile, `mail.${own}`, 'cloudflare');
    expect(taken.status, JSON.stringify(taken.body)).to.equal(409);
    expect(taken.body.error!.code).to.equal('dns_record_exists');
    expect(taken.body.error!.message).to.include(ADMIN_IP);
    expect(zones()).to.equal(before);
    const res = await point(hostile, `here.${own}`, 'cloudflare');
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.result!.action).to.equal('unchanged');
  });

  it('a key over all projects may still repoint an existing record', async () => {
    const { domains } = await hostile.overview(web.id);
    const mail = domains.find((d) => d.hostname === 'mail.corp.example')!;
    const res = await t.admin.request<Answer>('POST', `/api/services/${web.id}/domains/${mail.id}/dns-records`, { providerId: 'cloudflare' });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.result!.action).to.equal('updated');
    expect(cf.records.find((r) => r.name === 'mail.corp.example')!.content).to.equal(PUBLIC_IP);
  });
});
