// System settings (root domain, public IPv4, ACME e-mail, HTTPS mode, dashboard hostname) and DNS
// provider connections: values normalised and stored as plain strings under the keys the proxy
// reads, bad values and keys without all projects refused with nothing changed, credentials sealed
// at rest and never returned. The records written through the providers: dns-records.test.ts.
import { expect } from 'chai';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeProjectWorld, uniq, type ProjectWorld } from '../helpers/fixtures.js';
import { snapshotStore, withKnex } from '../helpers/snapshot.js';

type ErrorBody = { error: { code: string; message: string } };
interface SettingsBody {
  settings: { rootDomain: string | null; publicIp: string; publicIpDetected: boolean; acmeEmail: string | null; httpsMode: string | null; dashboardHostname: string | null };
  dnsProviders: { id: string; name: string; connected: boolean }[];
}

/** The deployment limits (core/deploy-limits.ts) as a new server answers them. */
const DEPLOY_LIMIT_DEFAULTS = { buildTimeoutSeconds: 1800, pullTimeoutSeconds: 600, cloneTimeoutSeconds: 600, maxQueuedPerProject: 20 };
/** Notification targets on loopback and link-local: refused by default (core/notify-targets.ts). */
const NOTIFY_DEFAULTS = { allowPrivateNotifyTargets: false };
/** How long the audit log keeps its entries (core/audit-retention.ts). */
const AUDIT_DEFAULTS = { auditRetentionDays: 90 };

describe('system settings and DNS providers', function () {
  this.timeout(60_000);
  let t: TestDaemon;
  let world: ProjectWorld;

  before(async () => {
    t = await startTestDaemon();
    world = await makeProjectWorld(t.admin, 'dns');
  });
  after(async () => {
    await t?.stop();
  });

  describe('settings', () => {
    it('starts with nothing chosen, the detected IPv4 and no provider connected', async () => {
      const res = await t.admin.request<SettingsBody>('GET', '/api/system/settings');
      expect(res.status).to.equal(200);
      expect(res.body.settings).to.include({ rootDomain: null, publicIpDetected: true, acmeEmail: null, httpsMode: null, dashboardHostname: null });
      expect(res.body.settings.publicIp).to.match(/^\d+\.\d+\.\d+\.\d+$/);
      expect(res.body.dnsProviders).to.deep.equal([
        { id: 'cloudflare', name: 'Cloudflare', connected: false },
        { id: 'namecheap', name: 'Namecheap', connected: false },
        { id: 'spaceship', name: 'Spaceship', connected: false },
      ]);
    });

    it('are changed by PATCH, normalised, and stored as plain strings under the keys the proxy reads', async () => {
      const res = await t.admin.request<SettingsBody>('PATCH', '/api/system/settings', {
        rootDomain: 'Apps.Example.COM.',
        publicIp: ' 198.51.100.4 ',
        acmeEmail: 'ops@example.com',
        httpsMode: 'internal',
        dashboardHostname: 'berth.example.com',
      });
      expect(res.status).to.equal(200);
      const expected = {
        rootDomain: 'apps.example.com',
        publicIp: '198.51.100.4',
        publicIpDetected: false,
        acmeEmail: 'ops@example.com',
        httpsMode: 'internal',
        dashboardHostname: 'berth.example.com',
        ...DEPLOY_LIMIT_DEFAULTS,
        ...NOTIFY_DEFAULTS,
        ...AUDIT_DEFAULTS,
      };
      expect(res.body.settings).to.deep.equal(expected);
      expect((await t.admin.request<SettingsBody>('GET', '/api/system/settings')).body.settings).to.deep.equal(expected);
      const rows = await withKnex(t.dataDir, (k) => k('settings').whereIn('key', ['rootDomain', 'publicIp', 'acmeEmail', 'httpsMode', 'dashboardHostname']).select('key', 'value'));
      expect(Object.fromEntries(rows.map((r: { key: string; value: string }) => [r.key, r.value]))).to.deep.equal({
        rootDomain: 'apps.example.com',
        publicIp: '198.51.100.4',
        acmeEmail: 'ops@example.com',
        httpsMode: 'internal',
        dashboardHostname: 'berth.example.com',
      });
      // one field at a time leaves the others; null goes back to detection / unset
      const back = await t.admin.request<SettingsBody>('PATCH', '/api/system/settings', { publicIp: null, acmeEmail: null });
      expect(back.status).to.equal(200);
      expect(back.body.settings).to.include({ rootDomain: 'apps.example.com', publicIpDetected: true, acmeEmail: null, httpsMode: 'internal' });
      expect(await withKnex(t.dataDir, (k) => k('settings').where({ key: 'publicIp' }).first())).to.equal(undefined);
    });

    it('refuses bad values with a 400 and changes nothing', async () => {
      const before = await snapshotStore(t.dataDir);
      const cases: [unknown, RegExp][] = [
        [{ publicIp: '300.1.2.3' }, /publicIp must be an IPv4 address/],
        [{ publicIp: '2001:db8::1' }, /publicIp must be an IPv4 address/],
        [{ acmeEmail: 'not-an-email' }, /acmeEmail must be an e-mail address/],
        [{ rootDomain: 'http://example.com' }, /^rootDomain: hostname must be a bare DNS name/],
        [{ dashboardHostname: '*.example.com' }, /^dashboardHostname: wildcard/],
        [{ httpsMode: 'tls' }, /^httpsMode: /],
        [{ rootDomain: 'ok.example.com', publicIp: 'nope' }, /publicIp/], // one bad field: the good one is not written either
        [{ rootdomain: 'typo.example.com' }, /rootdomain/],
        [{}, /give at least one of/],
        [{ publicIp: 42 }, /^publicIp: /],
      ];
      for (const [body, message] of cases) {
        const res = await t.admin.request<ErrorBody>('PATCH', '/api/system/settings', body);
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.body.error.message, JSON.stringify(body)).to.match(message);
      }
      expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
    });

    it('need a key over all projects to read, and a write key over all projects to change', async () => {
      const readAll = await t.clientWith('read', 'all');
      const writeSome = await t.clientWith('write', [world.project.id]);
      const readSome = await t.clientWith('read', [world.project.id]);
      expect((await readAll.request('GET', '/api/system/settings')).status).to.equal(200);
      const before = await snapshotStore(t.dataDir);
      const refused: [typeof readAll, string, string, unknown][] = [
        [readAll, 'PATCH', '/api/system/settings', { rootDomain: 'x.example.com' }],
        [writeSome, 'PATCH', '/api/system/settings', { rootDomain: 'x.example.com' }],
        [writeSome, 'GET', '/api/system/settings', undefined],
        [readSome, 'GET', '/api/system/settings', undefined],
        [readAll, 'PUT', '/api/system/dns-providers/cloudflare', { apiToken: 'abcdefgh12345678' }],
        [writeSome, 'PUT', '/api/system/dns-providers/cloudflare', { apiToken: 'abcdefgh12345678' }],
        [readAll, 'DELETE', '/api/system/dns-providers/cloudflare', undefined],
        [writeSome, 'DELETE', '/api/system/dns-providers/cloudflare', undefined],
      ];
      for (const [client, method, path, body] of refused) {
        const res = await client.request<ErrorBody>(method, path, body);
        expect(res.status, `${method} ${path}`).to.equal(403);
        expect(res.body.error.code).to.equal('forbidden');
      }
      expect((await t.anonymous.request('GET', '/api/system/settings')).status).to.equal(401);
      expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
    });
  });

  describe('DNS provider connections', () => {
    it('keep credentials sealed at rest and never return them; responses say only whether each is connected', async () => {
      const token = `cf-secret-${uniq('tok')}`;
      const put = await t.admin.request<{ provider: unknown }>('PUT', '/api/system/dns-providers/cloudflare', { apiToken: token, baseUrl: 'http://127.0.0.1:9/client/v4' });
      expect(put.status).to.equal(200);
      expect(put.body).to.deep.equal({ provider: { id: 'cloudflare', name: 'Cloudflare', connected: true } });
      const get = await t.admin.request<SettingsBody>('GET', '/api/system/settings');
      expect(JSON.stringify(get.body)).not.to.include(token);
      expect(get.body.dnsProviders.find((p) => p.id === 'cloudflare')!.connected).to.equal(true);
      const rows = await withKnex(t.dataDir, (k) => k('dns_providers').select('*'));
      expect(rows).to.have.length(1);
      expect(JSON.stringify(rows)).not.to.include(token);
      expect((rows[0] as { credentials: string }).credentials).to.match(/^v1:/);

      const del = await t.admin.request('DELETE', '/api/system/dns-providers/cloudflare');
      expect(del.status).to.equal(200);
      expect(del.body).to.deep.equal({ ok: true });
      expect((await t.admin.request<SettingsBody>('GET', '/api/system/settings')).body.dnsProviders.every((p) => !p.connected)).to.equal(true);
      expect((await t.admin.request<ErrorBody>('DELETE', '/api/system/dns-providers/cloudflare')).status).to.equal(404);
    });

    it('refuses unknown providers, missing or misspelt credentials, and bad base URLs with a 400, changing nothing', async () => {
      const before = await snapshotStore(t.dataDir);
      const cases: [string, unknown, RegExp][] = [
        ['route53', { apiToken: 'x' }, /unknown DNS provider "route53"/],
        ['cloudflare', {}, /^apiToken: /],
        ['cloudflare', { apiToken: '   ' }, /^apiToken: must not be empty/],
        ['cloudflare', { apitoken: 'abc' }, /apitoken|apiToken/],
        ['namecheap', { apiUser: 'u', apiKey: 'k' }, /^clientIp: /],
        ['namecheap', { apiUser: 'u', apiKey: 'k', clientIp: 'localhost' }, /^clientIp: must be an IPv4 address/],
        ['spaceship', { apiKey: 'k' }, /^apiSecret: /],
        ['spaceship', { apiKey: 'k', apiSecret: 's', baseUrl: 'ftp://x' }, /baseUrl must be an http or https URL/],
      ];
      for (const [id, body, message] of cases) {
        const res = await t.admin.request<ErrorBody>('PUT', `/api/system/dns-providers/${id}`, body);
        expect(res.status, `${id} ${JSON.stringify(body)}`).to.equal(400);
        expect(res.body.error.message, `${id} ${JSON.stringify(body)}`).to.match(message);
      }
      expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
    });
  });
});
