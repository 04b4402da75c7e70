// Every endpoint against every kind of caller: no key, unknown key, read key, write key, and a
// selected-projects key inside and outside its projects. Refused requests must change nothing.
import { expect } from 'chai';
import type { BerthClient } from '../../shared/client.js';
import { allowLoopbackNotifyTargets } from '../helpers/notify-targets.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeProjectWorld, uniq, type ProjectWorld } from '../helpers/fixtures.js';
import { snapshotStore } from '../helpers/snapshot.js';
import { waitForDeployment } from '../helpers/wait.js';

type Level = 'read' | 'write' | 'admin';

interface World {
  inside: ProjectWorld;
  outside: ProjectWorld;
  keyId: string;
  /** A finished (failed) deployment of each side's web service. */
  deployments: Map<ProjectWorld, string>;
}

interface Endpoint {
  method: string;
  /** `scoped` is the world the selected-projects key can see; `target` is the one acted on. */
  path(target: ProjectWorld, w: World): string;
  body?(target: ProjectWorld, w: World): unknown;
  level: Level;
  /** Only keys over all projects may call it (creating projects, managing keys). */
  allProjectsOnly?: boolean;
  /** Statuses that mean "allowed" when 200 is not the only one (abort of a finished deployment is 409). */
  allowed?: number[];
  /** The world needs a finished deployment on each side. */
  deployed?: boolean;
}

const endpoints: Record<string, Endpoint> = {
  'GET /api/keys': { method: 'GET', path: () => '/api/keys', level: 'admin', allProjectsOnly: true },
  'POST /api/keys': { method: 'POST', path: () => '/api/keys', body: () => ({ access: 'read', projects: 'all' }), level: 'admin', allProjectsOnly: true },
  'DELETE /api/keys/:keyId': { method: 'DELETE', path: (_t, w) => `/api/keys/${w.keyId}`, level: 'admin', allProjectsOnly: true },
  'GET /api/projects/:projectSlug': { method: 'GET', path: (t) => `/api/projects/${t.project.slug}`, level: 'read' },
  'GET /api/projects/:projectId (id form)': { method: 'GET', path: (t) => `/api/projects/${t.project.id}`, level: 'read' },
  'POST /api/projects': { method: 'POST', path: () => '/api/projects', body: () => ({ name: uniq('new'), description: '' }), level: 'write', allProjectsOnly: true },
  'PATCH /api/projects/:projectId': { method: 'PATCH', path: (t) => `/api/projects/${t.project.id}`, body: () => ({ name: 'renamed', description: 'd' }), level: 'write' },
  'DELETE /api/projects/:projectId': { method: 'DELETE', path: (t) => `/api/projects/${t.project.id}`, level: 'write' },
  'GET /api/projects/:projectId/database-variable-suggestions': {
    method: 'GET',
    path: (t) => `/api/projects/${t.project.id}/database-variable-suggestions`,
    level: 'read',
  },
  'POST /api/projects/:projectId/services': {
    method: 'POST',
    path: (t) => `/api/projects/${t.project.id}/services`,
    body: () => ({ name: uniq('svc'), repoFullName: 'acme/new', branch: 'main', internalPort: 3000, env: [] }),
    level: 'write',
  },
  'GET /api/services/:serviceId/overview': { method: 'GET', path: (t) => `/api/services/${t.web.id}/overview`, level: 'read' },
  'PATCH /api/services/:serviceId': { method: 'PATCH', path: (t) => `/api/services/${t.web.id}`, body: () => ({ branch: 'develop' }), level: 'write' },
  'DELETE /api/services/:serviceId': { method: 'DELETE', path: (t) => `/api/services/${t.web.id}`, level: 'write' },
  'GET /api/services/:serviceId/suggestion-keys': { method: 'GET', path: (t) => `/api/services/${t.web.id}/suggestion-keys`, level: 'read' },
  // The fixtures' git host (port 9) refuses connections: allowed means past auth and scope, which answers 502 with git's reason.
  'GET /api/services/:serviceId/build-plan': { method: 'GET', path: (t) => `/api/services/${t.web.id}/build-plan`, level: 'read', allowed: [502] },
  // The fixtures' database is never deployed: allowed means past auth and scope, which answers 409 (not running).
  'GET /api/services/:serviceId/database/tables': { method: 'GET', path: (t) => `/api/services/${t.db.id}/database/tables`, level: 'read', allowed: [409] },
  'GET /api/services/:serviceId/database/rows': { method: 'GET', path: (t) => `/api/services/${t.db.id}/database/rows?table=public.items`, level: 'read', allowed: [409] },
  'POST /api/services/:serviceId/database/query': { method: 'POST', path: (t) => `/api/services/${t.db.id}/database/query`, body: () => ({ sql: 'SELECT 1' }), level: 'write', allowed: [409] },
  'POST /api/services/:serviceId/database/rows': {
    method: 'POST',
    path: (t) => `/api/services/${t.db.id}/database/rows`,
    body: () => ({ table: 'public.items', values: { id: 1 } }),
    level: 'write',
    allowed: [409],
  },
  'PATCH /api/services/:serviceId/database/rows': {
    method: 'PATCH',
    path: (t) => `/api/services/${t.db.id}/database/rows`,
    body: () => ({ table: 'public.items', primaryKey: { id: 1 }, values: { name: 'x' } }),
    level: 'write',
    allowed: [409],
  },
  'DELETE /api/services/:serviceId/database/rows': {
    method: 'DELETE',
    path: (t) => `/api/services/${t.db.id}/database/rows`,
    body: () => ({ table: 'public.items', primaryKey: { id: 1 } }),
    level: 'write',
    allowed: [409],
  },
  'GET /api/services/:serviceId/database/tls': { method: 'GET', path: (t) => `/api/services/${t.db.id}/database/tls`, level: 'read' },
  'GET /api/services/:serviceId/database/tls/ca': { method: 'GET', path: (t) => `/api/services/${t.db.id}/database/tls/ca`, level: 'read' },
  'GET /api/services/:serviceId/database/backups': { method: 'GET', path: (t) => `/api/services/${t.db.id}/database/backups`, level: 'read' },
  // Not deployed: allowed means past auth and scope, which answers 409.
  'POST /api/services/:serviceId/database/backups': { method: 'POST', path: (t) => `/api/services/${t.db.id}/database/backups`, body: () => ({ storage: 'disk' }), level: 'write', allowed: [409] },
  'PATCH /api/services/:serviceId/database/backups/settings': {
    method: 'PATCH',
    path: (t) => `/api/services/${t.db.id}/database/backups/settings`,
    body: () => ({ automaticEnabled: true, dailyEnabled: true }),
    level: 'write',
  },
  // No backup of that id: allowed means past auth and scope, which answers 404.
  'POST /api/services/:serviceId/database/backups/:backupId/restore': { method: 'POST', path: (t) => `/api/services/${t.db.id}/database/backups/${uniq('b')}/restore`, level: 'write', allowed: [404] },
  'GET /api/services/:serviceId/database/backups/:backupId/download': { method: 'GET', path: (t) => `/api/services/${t.db.id}/database/backups/${uniq('b')}/download`, level: 'read', allowed: [404] },
  'DELETE /api/services/:serviceId/database/backups/:backupId': { method: 'DELETE', path: (t) => `/api/services/${t.db.id}/database/backups/${uniq('b')}`, level: 'write', allowed: [404] },
  'GET /api/services/:serviceId/database/imports': { method: 'GET', path: (t) => `/api/services/${t.db.id}/database/imports`, level: 'read' },
  'POST /api/services/:serviceId/database/import/postgres-url': {
    method: 'POST',
    path: (t) => `/api/services/${t.db.id}/database/import/postgres-url`,
    body: () => ({ sourceUrl: 'postgresql://u:p@127.0.0.1:9/db' }),
    level: 'write',
    allowed: [409],
  },
  // The fixtures' database is postgres: allowed means past auth and scope, which answers 400 (wrong engine).
  'POST /api/services/:serviceId/database/import/redis-url': {
    method: 'POST',
    path: (t) => `/api/services/${t.db.id}/database/import/redis-url`,
    body: () => ({ sourceUrl: 'redis://127.0.0.1:9' }),
    level: 'write',
    allowed: [400],
  },
  'GET /api/services/:serviceId/deployments': { method: 'GET', path: (t) => `/api/services/${t.web.id}/deployments`, level: 'read' },
  'POST /api/services/:serviceId/env': { method: 'POST', path: (t) => `/api/services/${t.web.id}/env`, body: () => ({ key: 'NEW_KEY', value: 'v' }), level: 'write' },
  'DELETE /api/services/:serviceId/env/:envId': { method: 'DELETE', path: (t) => `/api/services/${t.web.id}/env/${t.env.id}`, level: 'write' },
  'POST /api/services/:serviceId/domains': {
    method: 'POST',
    path: (t) => `/api/services/${t.web.id}/domains`,
    body: () => ({ hostname: `${uniq('new')}.example.com` }),
    level: 'write',
  },
  'PATCH /api/services/:serviceId/domains/:domainId': {
    method: 'PATCH',
    path: (t) => `/api/services/${t.web.id}/domains/${t.domain.id}`,
    body: () => ({ hostname: `${uniq('moved')}.example.com` }),
    level: 'write',
  },
  'DELETE /api/services/:serviceId/domains/:domainId': { method: 'DELETE', path: (t) => `/api/services/${t.web.id}/domains/${t.domain.id}`, level: 'write' },
  'POST /api/services/:serviceId/deployments': { method: 'POST', path: (t) => `/api/services/${t.web.id}/deployments`, body: () => ({}), level: 'write' },
  'POST /api/deployments/:deploymentId/abort': {
    method: 'POST', deployed: true,
    path: (t, w) => `/api/deployments/${w.deployments.get(t) ?? 'no-such-id'}/abort`,
    level: 'write',
    allowed: [409],
  },
  // The world's deployments failed: allowed means past auth and scope, which answers 409 (never went live).
  'POST /api/deployments/:deploymentId/rollback': {
    method: 'POST', deployed: true,
    path: (t, w) => `/api/deployments/${w.deployments.get(t) ?? 'no-such-id'}/rollback`,
    level: 'write',
    allowed: [409],
  },
  'POST /api/services/:serviceId/webhook': { method: 'POST', path: (t) => `/api/services/${t.web.id}/webhook`, level: 'write' },
  'GET /api/services/:serviceId/webhook': { method: 'GET', path: (t) => `/api/services/${t.web.id}/webhook`, level: 'read' },
  'DELETE /api/services/:serviceId/webhook': { method: 'DELETE', path: (t) => `/api/services/${t.web.id}/webhook`, level: 'write' },
  'GET /api/deployments/:deploymentId/logs': { method: 'GET', deployed: true, path: (t, w) => `/api/deployments/${w.deployments.get(t) ?? 'no-such-id'}/logs`, level: 'read' },
  'GET /api/deployments/:deploymentId/stream': { method: 'GET', deployed: true, path: (t, w) => `/api/deployments/${w.deployments.get(t) ?? 'no-such-id'}/stream`, level: 'read' },
  'GET /api/services/:serviceId/runtime-logs/stream': { method: 'GET', path: (t) => `/api/services/${t.web.id}/runtime-logs/stream`, level: 'read' },
  'POST /api/deployments/:deploymentId/explain-failure': {
    method: 'POST', deployed: true,
    path: (t, w) => `/api/deployments/${w.deployments.get(t) ?? 'no-such-id'}/explain-failure`,
    body: () => ({ providerId: 'local' }),
    level: 'write',
  },
  'GET /api/system/ai-providers': { method: 'GET', path: () => '/api/system/ai-providers', level: 'read', allProjectsOnly: true },
  'PUT /api/system/ai-providers/:providerId': {
    method: 'PUT',
    path: () => `/api/system/ai-providers/${uniq('ai')}`,
    body: () => ({ kind: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', apiKey: 'placeholder-key' }),
    level: 'admin',
    allProjectsOnly: true,
  },
  // No provider of that id exists: allowed means past auth, which answers 404.
  'DELETE /api/system/ai-providers/:providerId': { method: 'DELETE', path: () => `/api/system/ai-providers/${uniq('ai')}`, level: 'admin', allProjectsOnly: true, allowed: [404] },
  'GET /api/projects/:projectId/quotas': { method: 'GET', path: (t) => `/api/projects/${t.project.id}/quotas`, level: 'read' },
  // a project's own keys read its quotas; only the server's administrator changes them
  'PATCH /api/projects/:projectId/quotas': { method: 'PATCH', path: (t) => `/api/projects/${t.project.id}/quotas`, body: () => ({ maxServices: 500 }), level: 'admin', allProjectsOnly: true },
  'GET /api/generated-names': { method: 'GET', path: () => '/api/generated-names', level: 'read', allProjectsOnly: true },
  // an unknown label: allowed means past the key check, which answers 404 for a label never handed out
  'DELETE /api/generated-names/:label': { method: 'DELETE', path: () => '/api/generated-names/never-handed-out', level: 'admin', allProjectsOnly: true, allowed: [404] },
  'GET /api/system/quotas': { method: 'GET', path: () => '/api/system/quotas', level: 'read', allProjectsOnly: true },
  'PATCH /api/system/quotas': { method: 'PATCH', path: () => '/api/system/quotas', body: () => ({ maxServices: null }), level: 'admin', allProjectsOnly: true },
  // (GET /api/system/disk answers every key, like the metrics: test/security/disk-threshold.test.ts)
  'PATCH /api/system/disk': { method: 'PATCH', path: () => '/api/system/disk', body: () => ({ minFreeBytes: null }), level: 'admin', allProjectsOnly: true },
  'GET /api/system/settings': { method: 'GET', path: () => '/api/system/settings', level: 'read', allProjectsOnly: true },
  'PATCH /api/system/settings': { method: 'PATCH', path: () => '/api/system/settings', body: () => ({ acmeEmail: `${uniq('ops')}@example.com` }), level: 'admin', allProjectsOnly: true },
  'PUT /api/system/dns-providers/:providerId': {
    method: 'PUT',
    path: () => '/api/system/dns-providers/cloudflare',
    body: () => ({ apiToken: 'placeholder-token', baseUrl: 'http://127.0.0.1:9/client/v4' }),
    level: 'admin',
    allProjectsOnly: true,
  },
  // Spaceship is never connected here: allowed means past auth, which answers 404.
  'DELETE /api/system/dns-providers/:providerId': { method: 'DELETE', path: () => '/api/system/dns-providers/spaceship', level: 'admin', allProjectsOnly: true, allowed: [404] },
  // Nothing listens on port 9: the storage is saved and reported as not connected (200).
  'GET /api/system/backup-storage': { method: 'GET', path: () => '/api/system/backup-storage', level: 'read', allProjectsOnly: true },
  'PUT /api/system/backup-storage': {
    method: 'PUT',
    path: () => '/api/system/backup-storage',
    body: () => ({ endpoint: 'http://127.0.0.1:9', region: 'us-east-1', bucket: 'berth-backups', accessKeyId: 'AKPLACEHOLDER', secretAccessKey: 'placeholder-secret' }),
    level: 'admin',
    allProjectsOnly: true,
  },
  'GET /api/system/notifications': { method: 'GET', path: () => '/api/system/notifications', level: 'read', allProjectsOnly: true },
  'POST /api/system/notifications': {
    method: 'POST',
    path: () => '/api/system/notifications',
    body: () => ({ type: 'slack', name: 'team', url: 'http://127.0.0.1:9/hook', events: ['deployment_failed'] }),
    level: 'admin',
    allProjectsOnly: true,
  },
  // Unknown channel: allowed means past auth and scope, which answers 404.
  'PATCH /api/system/notifications/:channelId': { method: 'PATCH', path: () => '/api/system/notifications/no-such-channel', body: () => ({ name: 'renamed' }), level: 'admin', allProjectsOnly: true, allowed: [404] },
  'DELETE /api/system/notifications/:channelId': { method: 'DELETE', path: () => '/api/system/notifications/no-such-channel', level: 'admin', allProjectsOnly: true, allowed: [404] },
  'POST /api/system/notifications/:channelId/test': { method: 'POST', path: () => '/api/system/notifications/no-such-channel/test', level: 'admin', allProjectsOnly: true, allowed: [404] },
  'DELETE /api/system/backup-storage': { method: 'DELETE', path: () => '/api/system/backup-storage', level: 'admin', allProjectsOnly: true },
  // Namecheap is never connected here: allowed means past auth and scope, which answers 400.
  'POST /api/services/:serviceId/domains/:domainId/dns-records': {
    method: 'POST',
    path: (t) => `/api/services/${t.web.id}/domains/${t.domain.id}/dns-records`,
    body: () => ({ providerId: 'namecheap' }),
    level: 'write',
    allowed: [400],
  },
};

describe('auth matrix', function () {
  this.timeout(60_000);
  let t: TestDaemon;
  before(async () => {
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
    expect((res.body as { error: { message: string } }).error.message).to.be.a('string').and.not.equal('');
    expect(await snapshotStore(t.dataDir), 'a refused request changed the store').to.deep.equal(before);
  }

  async function expectAllowed(client: BerthClient, ep: Endpoint, target: ProjectWorld, w: World) {
    const res = await client.request(ep.method, ep.path(target, w), ep.body?.(target, w));
    expect([200, ...(ep.allowed ?? [])], JSON.stringify(res.body)).to.include(res.status);
  }

  for (const [name, ep] of Object.entries(endpoints)) {
    describe(name, () => {
      it('refuses a request with no key (401)', async () => {
        const w = await world(ep.deployed);
        await expectRefused(t.anonymous, ep, w.inside, w, 401, 'unauthorized');
      });

      it('refuses an unknown key (401)', async () => {
        const w = await world(ep.deployed);
        await expectRefused(t.anonymous.withToken('berth_not-a-real-key'), ep, w.inside, w, 401, 'unauthorized');
      });

      if (ep.level === 'read') {
        it('allows a read key', async () => {
          const w = await world(ep.deployed);
          await expectAllowed(await t.clientWith('read', 'all'), ep, w.inside, w);
        });
      } else {
        it('refuses a read key (403)', async () => {
          const w = await world(ep.deployed);
          await expectRefused(await t.clientWith('read', 'all'), ep, w.inside, w, 403, 'forbidden');
        });
      }

      it('allows a write key over all projects', async () => {
        const w = await world(ep.deployed);
        await expectAllowed(await t.clientWith('write', 'all'), ep, w.inside, w);
      });

      if (ep.allProjectsOnly) {
        it('refuses a selected-projects write key (403)', async () => {
          const w = await world(ep.deployed);
          await expectRefused(await t.clientWith('write', [w.inside.project.id]), ep, w.inside, w, 403, 'forbidden');
        });
      } else {
        it('allows a selected-projects key inside its projects', async () => {
          const w = await world(ep.deployed);
          await expectAllowed(await t.clientWith(ep.level === 'read' ? 'read' : 'write', [w.inside.project.id]), ep, w.inside, w);
        });

        it('answers 404 to a selected-projects key outside its projects', async () => {
          const w = await world(ep.deployed);
          await expectRefused(await t.clientWith('write', [w.inside.project.id]), ep, w.outside, w, 404, 'not_found');
        });

        it('answers an out-of-scope resource exactly like an unknown one', async () => {
          const w = await world(ep.deployed);
          const client = await t.clientWith('write', [w.inside.project.id]);
          const outside = await client.request(ep.method, ep.path(w.outside, w), ep.body?.(w.outside, w));
          const fake: ProjectWorld = {
            ...w.outside,
            project: { ...w.outside.project, id: 'no-such-id', slug: 'no-such-slug' },
            web: { ...w.outside.web, id: 'no-such-id' },
          };
          const unknown = await client.request(ep.method, ep.path(fake, w), ep.body?.(fake, w));
          expect(outside.status).to.equal(unknown.status);
          expect((outside.body as { error: unknown }).error).to.deep.equal((unknown.body as { error: unknown }).error);
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

    it('refuses an unsigned delivery, and one signed with another service\'s secret (401), changing nothing', async () => {
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
    const transfer = (client: BerthClient, serviceId: string, targetProjectId: string) =>
      client.request('POST', `/api/services/${serviceId}/transfer`, { targetProjectId });

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
