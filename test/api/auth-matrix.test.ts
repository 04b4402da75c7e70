// Every route of the table (shared/api-routes.ts) against every kind of caller: no key, unknown key,
// read key, write key, and a selected-projects key inside and outside its projects, as the route's
// `access` says. Refused requests must change nothing.
import { expect } from 'chai';
import { API_ROUTES, routePath, type RouteId } from '../../shared/api-routes.js';
import type { BerthClient } from '../../shared/client.js';
import { requireDocker } from '../helpers/docker.js';
import { allowLoopbackNotifyTargets } from '../helpers/notify-targets.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeProjectWorld, uniq, type ProjectWorld } from '../helpers/fixtures.js';
import { snapshotStore, storeSettled } from '../helpers/snapshot.js';
import { waitForDeployment } from '../helpers/wait.js';
import { CHECK_CASES, ELSEWHERE, type Case, type Level, type World } from '../helpers/auth-matrix-cases.js';

type Matrixed = Exclude<RouteId, keyof typeof ELSEWHERE>;

const none = () => ({});
const web = (t: ProjectWorld) => ({ serviceId: t.web.id });
const db = (t: ProjectWorld) => ({ serviceId: t.db.id });
const project = (t: ProjectWorld) => ({ projectId: t.project.id });
const deployment = (t: ProjectWorld, w: World) => ({ deploymentId: w.deployments.get(t) ?? 'no-such-id' });

// Every route of the table the matrix checks: a route added to the table does not compile here until it has a case.
const cases: Record<Matrixed, Case | Case[]> = {
  'keys.list': { params: none },
  'keys.create': { params: none, body: () => ({ access: 'read', projects: 'all' }) },
  'keys.revoke': { params: (_t, w) => ({ keyId: w.keyId }) },
  'projects.get': [{ params: (t) => ({ projectSlug: t.project.slug }) }, { label: '(id form)', params: (t) => ({ projectSlug: t.project.id }) }],
  'projects.create': { params: none, body: () => ({ name: uniq('new'), description: '' }) },
  'projects.patch': { params: project, body: () => ({ name: 'renamed', description: 'd' }) },
  'projects.delete': { params: project },
  'projects.database-variable-suggestions': { params: project },
  'volumes.list': { params: project },
  'services.create': { params: project, body: () => ({ name: uniq('svc'), repoFullName: 'acme/new', branch: 'main', internalPort: 3000, env: [] }) },
  'services.overview': { params: web },
  'services.instances': { params: web },
  'services.metrics': { params: web, query: { step: '1m' } },
  'services.patch': { params: web, body: () => ({ branch: 'develop' }) },
  'services.delete': { params: web },
  'services.suggestion-keys': { params: web },
  'compose.import': { params: project, body: () => ({ compose: 'services:\n  app:\n    image: nginx:1.27\n', dryRun: true }) }, // a dry run: the plan only
  // The fixtures' git host (port 9) refuses connections: allowed means past auth and scope, which answers 502 with git's reason.
  'services.build-plan': { params: web, allowed: [502] },
  // The fixtures' database is never deployed: allowed means past auth and scope, which answers 409 (not running).
  'database.tables': { params: db, allowed: [409] },
  'database.rows': { params: db, query: { table: 'public.items' }, allowed: [409] },
  'database.query': { params: db, body: () => ({ sql: 'SELECT 1' }), allowed: [409] },
  'database.rows.insert': { params: db, body: () => ({ table: 'public.items', values: { id: 1 } }), allowed: [409] },
  'database.rows.update': { params: db, body: () => ({ table: 'public.items', primaryKey: { id: 1 }, values: { name: 'x' } }), allowed: [409] },
  'database.rows.delete': { params: db, body: () => ({ table: 'public.items', primaryKey: { id: 1 } }), allowed: [409] },
  'database.tls': { params: db },
  'database.tls.ca': { params: db },
  'backups.list': { params: db },
  // Not deployed: allowed means past auth and scope, which answers 409.
  'backups.create': { params: db, body: () => ({ storage: 'disk' }), allowed: [409] },
  'backups.settings.patch': { params: db, body: () => ({ automaticEnabled: true, dailyEnabled: true }) },
  // No backup of that id: allowed means past auth and scope, which answers 404.
  'backups.restore': { params: (t) => ({ serviceId: t.db.id, backupId: uniq('b') }), allowed: [404] },
  'backups.verify': { params: (t) => ({ serviceId: t.db.id, backupId: uniq('b') }), allowed: [404] },
  'backups.download': { params: (t) => ({ serviceId: t.db.id, backupId: uniq('b') }), allowed: [404] },
  'backups.delete': { params: (t) => ({ serviceId: t.db.id, backupId: uniq('b') }), allowed: [404] },
  // The fixtures' web service mounts no volume (the volume model is t28-state's): allowed means past
  // auth and scope, which answers 404 (a volume the service does not mount).
  'volume-backups.list': { params: (t) => ({ serviceId: t.web.id, volumeName: 'data' }), allowed: [404] },
  'volume-backups.create': { params: (t) => ({ serviceId: t.web.id, volumeName: 'data' }), body: () => ({ storage: 'disk' }), allowed: [404] },
  'volume-backups.settings.patch': { params: (t) => ({ serviceId: t.web.id, volumeName: 'data' }), body: () => ({ automaticEnabled: true }), allowed: [404] },
  'volume-backups.restore': { params: (t) => ({ serviceId: t.web.id, volumeName: 'data', backupId: uniq('b') }), allowed: [404] },
  'volume-backups.download': { params: (t) => ({ serviceId: t.web.id, volumeName: 'data', backupId: uniq('b') }), allowed: [404] },
  'volume-backups.delete': { params: (t) => ({ serviceId: t.web.id, volumeName: 'data', backupId: uniq('b') }), allowed: [404] },
  'jobs.list': { params: web },
  'jobs.create': { params: web, body: () => ({ name: uniq('job'), schedule: '0 3 * * *', command: ['true'] }), allowed: [201] },
  // No job of that id: allowed means past auth and scope, which answers 404.
  'jobs.patch': { params: (t) => ({ serviceId: t.web.id, jobId: uniq('j') }), body: () => ({ enabled: false }), allowed: [404] },
  'jobs.delete': { params: (t) => ({ serviceId: t.web.id, jobId: uniq('j') }), allowed: [404] },
  'jobs.run': { params: (t) => ({ serviceId: t.web.id, jobId: uniq('j') }), allowed: [404] },
  'jobs.runs': { params: (t) => ({ serviceId: t.web.id, jobId: uniq('j') }), allowed: [404] },
  'jobs.run-logs': { params: (t) => ({ serviceId: t.web.id, jobId: uniq('j'), runId: uniq('r') }), allowed: [404] },
  // uptime checks: a web service without domain or host port refuses a create with 400 (allowed: past the key checks)
  ...CHECK_CASES,
  'imports.list': { params: db },
  'imports.postgres-url': { params: db, body: () => ({ sourceUrl: 'postgresql://u:p@127.0.0.1:9/db' }), allowed: [409] },
  // The fixtures' database is postgres: allowed means past auth and scope, which answers 400 (wrong engine).
  'imports.redis-url': { params: db, body: () => ({ sourceUrl: 'redis://127.0.0.1:9' }), allowed: [400] },
  'deployments.list': { params: web },
  'env.set': { params: web, body: () => ({ key: 'NEW_KEY', value: 'v' }) },
  'env.delete': { params: (t) => ({ serviceId: t.web.id, envId: t.env.id }) },
  'domains.add': { params: web, body: () => ({ hostname: `${uniq('new')}.example.com` }) },
  'domains.patch': { params: (t) => ({ serviceId: t.web.id, domainId: t.domain.id }), body: () => ({ hostname: `${uniq('moved')}.example.com` }) },
  'domains.delete': { params: (t) => ({ serviceId: t.web.id, domainId: t.domain.id }) },
  'deployments.create': { params: web, body: () => ({}) },
  'deployments.abort': { deployed: true, params: deployment, allowed: [409] },
  // The world's deployments failed: allowed means past auth and scope, which answers 409 (never went live).
  'deployments.rollback': { deployed: true, params: deployment, allowed: [409] },
  'webhooks.create': { params: web },
  'webhooks.get': { params: web },
  'webhooks.delete': { params: web },
  'deployments.logs': { deployed: true, params: deployment },
  // Not deployed: allowed means past auth and scope, which answers 409 (no live deployment) before any stream.
  'exec.start': { params: web, body: () => ({ command: ['true'] }), allowed: [409] },
  'exec.list': { params: web },
  // A plain GET: allowed means past auth and scope, which answers 426 (the WebSocket upgrade is test/exec).
  terminal: { params: web, allowed: [426] },
  'deployments.stream': { deployed: true, params: deployment },
  'services.runtime-logs': { params: web },
  'deployments.explain-failure': { deployed: true, params: deployment, body: () => ({ providerId: 'local' }) },
  'ai-providers.list': { params: none },
  'ai-providers.put': { params: () => ({ providerId: uniq('ai') }), body: () => ({ kind: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', apiKey: 'placeholder-key' }) },
  // No provider of that id exists: allowed means past auth, which answers 404.
  'ai-providers.delete': { params: () => ({ providerId: uniq('ai') }), allowed: [404] },
  'quotas.get': { params: project },
  // a project's own keys read its quotas; only the server's administrator changes them
  'quotas.patch': { params: project, body: () => ({ maxServices: 500 }) },
  'status-page.get': { params: project },
  'status-page.put': { params: project, body: (t) => ({ hostname: `${uniq('status')}.example.com`, services: [{ serviceId: t.web.id, label: 'Website' }] }) },
  'status-page.delete': { params: project },
  'generated-names.list': { params: none },
  // an unknown label: allowed means past the key check, which answers 404 for a label never handed out
  'generated-names.release': { params: () => ({ label: 'never-handed-out' }), allowed: [404] },
  // Swarm is host-wide and this suite holds no host lock: nothing turns it on or off. Past auth: no IP 400, a swarm this daemon did not make 409 (200: none), unknown node 404, join with Swarm off or no HTTPS 409.
  'swarm.get': { params: none },
  'swarm.enable': { params: none, body: () => ({ advertiseAddress: 'not-an-address' }), allowed: [400] },
  'swarm.disable': { params: none, allowed: [200, 409] },
  'nodes.list': { params: none },
  'nodes.join': { params: none, body: () => ({}), allowed: [409] },
  'nodes.patch': { params: () => ({ nodeId: 'no-such-node' }), body: () => ({ availability: 'active' }), allowed: [404] },
  'nodes.delete': { params: () => ({ nodeId: 'no-such-node' }), allowed: [404] },
  'system.quotas': { params: none },
  'system.quotas.patch': { params: none, body: () => ({ maxServices: null }) },
  'system.disk.patch': { params: none, body: () => ({ minFreeBytes: null }) },
  'system.settings': { params: none },
  'system.settings.patch': { params: none, body: () => ({ acmeEmail: `${uniq('ops')}@example.com` }) },
  'system.address': { params: none },
  'system.address.set': { params: none, body: () => ({ address: '198.51.100.31' }) },
  'system.upgrade': { params: none },
  'audit.list': { params: none },
  'system.metrics.history': { params: none },
  'system.footprint': { params: none },
  'system.metric-alerts': { params: none },
  'system.metric-alerts.patch': { params: none, body: () => ({ forMinutes: 5 }) },
  // the matrix's daemon is a development one (no BERTH_UPGRADER): past auth, it answers 409 upgrade_unavailable
  'system.upgrade.start': { params: none, body: () => ({ from: 'https://releases.example.com/berth-9.9.9.tar.gz' }), allowed: [409] },
  'system.backups': { params: none },
  'system.backups.patch': { params: none, body: () => ({ keep: 5 }) },
  // no passphrase is stored and none is given: past auth, it answers 400 (nothing is started)
  'system.backups.run': { params: none, body: () => ({}), allowed: [400] },
  // no run of that id: allowed means past auth, which answers 404
  'system.backups.download': { params: () => ({ runId: uniq('run') }), allowed: [404] },
  'system.backups.delete': { params: () => ({ runId: uniq('run') }), allowed: [404] },
  'dns-providers.put': { params: () => ({ providerId: 'cloudflare' }), body: () => ({ apiToken: 'placeholder-token', baseUrl: 'http://127.0.0.1:9/client/v4' }) },
  // Spaceship is never connected here: allowed means past auth, which answers 404.
  'dns-providers.delete': { params: () => ({ providerId: 'spaceship' }), allowed: [404] },
  // Nothing listens on port 9: the storage is saved and reported as not connected (200).
  'backup-storage.get': { params: none },
  'backup-storage.put': {
    params: none,
    body: () => ({ endpoint: 'http://127.0.0.1:9', region: 'us-east-1', bucket: 'berth-backups', accessKeyId: 'AKPLACEHOLDER', secretAccessKey: 'placeholder-secret' }),
  },
  'backup-storage.delete': { params: none },
  'notifications.list': { params: none },
  'notifications.create': { params: none, body: () => ({ type: 'slack', name: 'team', url: 'http://127.0.0.1:9/hook', events: ['deployment_failed'] }) },
  // Unknown channel: allowed means past auth and scope, which answers 404.
  'notifications.patch': { params: () => ({ channelId: 'no-such-channel' }), body: () => ({ name: 'renamed' }), allowed: [404] },
  'notifications.delete': { params: () => ({ channelId: 'no-such-channel' }), allowed: [404] },
  'notifications.test': { params: () => ({ channelId: 'no-such-channel' }), allowed: [404] },
  // Namecheap is never connected here: allowed means past auth and scope, which answers 400.
  'domains.dns-record': { params: (t) => ({ serviceId: t.web.id, domainId: t.domain.id }), body: () => ({ providerId: 'namecheap' }), allowed: [400] },
};

interface Endpoint extends Case {
  method: string;
  path(target: ProjectWorld, w: World): string;
  level: Level;
  /** Only keys over all projects may call it (creating projects, managing keys). */
  allProjectsOnly: boolean;
}

/** The table's access as the matrix's caller levels. */
const LEVELS = {
  read: ['read', false],
  write: ['write', false],
  'all-projects-read': ['read', true],
  'all-projects-write': ['admin', true],
  'project-admin': ['admin', true],
} as const;

const endpoints: Record<string, Endpoint> = {};
for (const route of API_ROUTES) {
  if (route.id in ELSEWHERE) continue;
  if (!(route.access in LEVELS)) throw new Error(`${route.id}: a route without a key belongs in ELSEWHERE`);
  const [level, allProjectsOnly] = LEVELS[route.access as keyof typeof LEVELS];
  for (const c of [cases[route.id as Matrixed]].flat()) {
    const path = (t: ProjectWorld, w: World) => routePath(route.id, c.params(t, w) as never, c.query);
    endpoints[`${route.method} ${route.path}${c.label ? ` ${c.label}` : ''}`] = { ...c, method: route.method, path, level, allProjectsOnly };
  }
}

describe('auth matrix', function () {
  this.timeout(60_000);
  let t: TestDaemon;
  before(async () => {
    // The Swarm routes, instances and deletions ask the Engine: the suite runs first in a fresh CI, before any other started dockerd.
    requireDocker();
    // Deployments of the fixtures fail at once and locally: nothing listens on port 9.
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: 'http://127.0.0.1:9' });
    await allowLoopbackNotifyTargets(t.admin);
  });
  after(async () => t.stop());

  async function world(deployed = false): Promise<World> {
    const inside = await makeProjectWorld(t.admin, 'inside');
    const outside = await makeProjectWorld(t.admin, 'outside');
    const { key } = await t.admin.createKey({ name: uniq('victim'), access: 'read', projects: 'all' });
    const deployments = new Map<ProjectWorld, string>();
    for (const side of deployed ? [inside, outside] : []) {
      const { deployment } = await t.admin.deploy(side.web.id);
      await waitForDeployment(t.admin, side.web.id, deployment.id, ['failed'], 20_000);
      deployments.set(side, deployment.id);
    }
    return { inside, outside, keyId: key.id, deployments };
  }

  async function expectRefused(client: BerthClient, ep: Endpoint, target: ProjectWorld, w: World, status: number, code: string) {
    const before = await snapshotStore(t.dataDir);
    const res = await client.request(ep.method, ep.path(target, w), ep.body?.(target, w));
    expect(res.status, JSON.stringify(res.body)).to.equal(status);
    expect(res.body).to.deep.equal({ error: { code, message: (res.body as { error: { message: string } }).error.message } });
    expect((res.body as { error: { message: string } }).error.message)
      .to.be.a('string')
      .and.not.equal('');
    expect(await snapshotStore(t.dataDir), 'a refused request changed the store').to.deep.equal(before);
  }

  async function expectAllowed(client: BerthClient, ep: Endpoint, target: ProjectWorld, w: World) {
    const res = await client.request(ep.method, ep.path(target, w), ep.body?.(target, w));
    expect([200, ...(ep.allowed ?? [])], JSON.stringify(res.body)).to.include(res.status);
    // what it started in the background (a deployment failing) ends before the next refusal compares the store
    await storeSettled(t.dataDir);
  }
  for (const [name, ep] of Object.entries(endpoints)) {
    describe(name, () => {
      // A refused request changes nothing (each check proves it against the store), so the refusals
      // of one route share one world; every allowed request gets a fresh one, as it may change it.
      let shared: Promise<World> | null = null;
      const untouched = () => (shared ??= world(ep.deployed));

      it('refuses a request with no key (401)', async () => {
        const w = await untouched();
        await expectRefused(t.anonymous, ep, w.inside, w, 401, 'unauthorized');
      });

      it('refuses an unknown key (401)', async () => {
        const w = await untouched();
        await expectRefused(t.anonymous.withToken('berth_not-a-real-key'), ep, w.inside, w, 401, 'unauthorized');
      });

      if (ep.level === 'read') {
        it('allows a read key', async () => {
          const w = await world(ep.deployed);
          await expectAllowed(await t.clientWith('read', 'all'), ep, w.inside, w);
        });
      } else {
        it('refuses a read key (403)', async () => {
          const w = await untouched();
          await expectRefused(await t.clientWith('read', 'all'), ep, w.inside, w, 403, 'forbidden');
        });
      }

      it('allows a write key over all projects', async () => {
        const w = await world(ep.deployed);
        await expectAllowed(await t.clientWith('write', 'all'), ep, w.inside, w);
      });

      if (ep.allProjectsOnly) {
        it('refuses a selected-projects write key (403)', async () => {
          const w = await untouched();
          await expectRefused(await t.clientWith('write', [w.inside.project.id]), ep, w.inside, w, 403, 'forbidden');
        });
      } else {
        it('allows a selected-projects key inside its projects', async () => {
          const w = await world(ep.deployed);
          await expectAllowed(await t.clientWith(ep.level === 'read' ? 'read' : 'write', [w.inside.project.id]), ep, w.inside, w);
        });

        it('answers 404 to a selected-projects key outside its projects', async () => {
          const w = await untouched();
          await expectRefused(await t.clientWith('write', [w.inside.project.id]), ep, w.outside, w, 404, 'not_found');
        });

        it('answers an out-of-scope resource exactly like an unknown one', async () => {
          const w = await untouched();
          const client = await t.clientWith('write', [w.inside.project.id]);
          const before = await snapshotStore(t.dataDir);
          const outside = await client.request(ep.method, ep.path(w.outside, w), ep.body?.(w.outside, w));
          const fake: ProjectWorld = {
            ...w.outside,
            project: { ...w.outside.project, id: 'no-such-id', slug: 'no-such-slug' },
            web: { ...w.outside.web, id: 'no-such-id' },
          };
          const unknown = await client.request(ep.method, ep.path(fake, w), ep.body?.(fake, w));
          expect(outside.status).to.equal(unknown.status);
          expect((outside.body as { error: unknown }).error).to.deep.equal((unknown.body as { error: unknown }).error);
          expect(await snapshotStore(t.dataDir), 'a refused request changed the store').to.deep.equal(before);
        });
      }
    });
  }

  describe('POST /api/hooks/:serviceId (the one route without a key)', () => {
    it('is open to POST on that exact path only: other methods and longer paths still need a key', async () => {
      const w = await world();
      await t.admin.createWebhook(w.inside.web.id);
      const before = await snapshotStore(t.dataDir);
      for (const [method, path] of [
        ['GET', `/api/hooks/${w.inside.web.id}`],
        ['PUT', `/api/hooks/${w.inside.web.id}`],
        ['DELETE', `/api/hooks/${w.inside.web.id}`],
        ['POST', `/api/hooks/${w.inside.web.id}/extra`],
        ['POST', '/api/hooks'],
      ] as const) {
        const res = await t.anonymous.request(method, path, method === 'GET' ? undefined : {});
        expect(res.status, `${method} ${path}`).to.equal(401);
      }
      expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
    });

    it("refuses an unsigned delivery, and one signed with another service's secret (401), changing nothing", async () => {
      const w = await world();
      const { secret } = await t.admin.createWebhook(w.outside.web.id);
      await t.admin.createWebhook(w.inside.web.id);
      const body = JSON.stringify({ ref: 'refs/heads/main', after: 'a'.repeat(40) });
      const before = await snapshotStore(t.dataDir);
      const unsigned = await t.anonymous.request('POST', `/api/hooks/${w.inside.web.id}`, JSON.parse(body));
      expect(unsigned.status).to.equal(401);
      const { createHmac } = await import('node:crypto');
      const res = await fetch(`${t.url}/api/hooks/${w.inside.web.id}`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` },
      });
      expect(res.status).to.equal(401);
      expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
    });
  });

  describe('the keyed routes checked elsewhere', () => {
    it('refuse a request with no key (401), whatever their parameters', async () => {
      for (const route of API_ROUTES.filter((r) => r.id in ELSEWHERE && r.access !== 'open' && r.access !== 'session')) {
        const res = await t.anonymous.request(route.method, route.path.replace(/:[A-Za-z]+/g, 'no-such-id'), route.method === 'GET' ? undefined : {});
        expect(res.status, `${route.method} ${route.path}`).to.equal(401);
      }
    });
  });

  describe('GET /api/projects', () => {
    it('refuses no key and unknown keys (401)', async () => {
      expect((await t.anonymous.request('GET', '/api/projects')).status).to.equal(401);
      expect((await t.anonymous.request('GET', '/api/projects', undefined, { token: 'nope' })).status).to.equal(401);
    });

    it('lists only the projects a selected-projects key can see', async () => {
      const w = await world();
      const client = await t.clientWith('read', [w.inside.project.id]);
      const { projects } = await client.listProjects();
      expect(projects.map((p) => p.id)).to.deep.equal([w.inside.project.id]);
      const all = await (await t.clientWith('read', 'all')).listProjects();
      expect(all.projects.map((p) => p.id)).to.include.members([w.inside.project.id, w.outside.project.id]);
    });
  });

  describe('POST /api/services/:serviceId/transfer', () => {
    const transfer = (client: BerthClient, serviceId: string, targetProjectId: string) => client.request('POST', `/api/services/${serviceId}/transfer`, { targetProjectId });

    it('refuses no key (401) and a read key (403), changing nothing', async () => {
      const w = await world();
      const reader = await t.clientWith('read', 'all');
      const before = await snapshotStore(t.dataDir);
      expect((await transfer(t.anonymous, w.inside.worker.id, w.outside.project.id)).status).to.equal(401);
      expect((await transfer(reader, w.inside.worker.id, w.outside.project.id)).status).to.equal(403);
      expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
    });

    it('needs the key to see both the source and the target project (404 otherwise)', async () => {
      const w = await world();
      const client = await t.clientWith('write', [w.inside.project.id]);
      const before = await snapshotStore(t.dataDir);
      expect((await transfer(client, w.inside.worker.id, w.outside.project.id)).status).to.equal(404);
      expect((await transfer(client, w.outside.worker.id, w.inside.project.id)).status).to.equal(404);
      expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
    });

    it('allows a key that sees both projects', async () => {
      const w = await world();
      const client = await t.clientWith('write', [w.inside.project.id, w.outside.project.id]);
      const { service } = await t.admin.createService(w.inside.project.id, { name: uniq('mover'), repoFullName: 'acme/mover' });
      const res = await transfer(client, service.id, w.outside.project.id);
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    });
  });
});
