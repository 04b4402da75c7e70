// The audit log (GET /api/audit, issue 30): every mutating route of the table leaves exactly one
// entry with its route id, method, status and actor, whoever calls it and however it ends; sign-ins
// (failed ones too), webhook deliveries and the terminal's WebSocket are recorded; only keys over
// all projects read it and no route writes to it; no secret of a body reaches the store; filters and
// the cursor; retention by age (on a driven clock) and by rows.
import { expect } from 'chai';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { API_ROUTES, routePath, type RouteId } from '../../shared/api-routes.js';
import type { BerthClient } from '../../shared/client.js';
import type { AuditEntry, AuditPage } from '../../shared/types.js';
import { DB_FILE } from '../../daemon/store/open.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { listenToEvents } from '../helpers/event-listener.js';
import { makeProjectWorld, uniq, type ProjectWorld } from '../helpers/fixtures.js';
import { withKnex } from '../helpers/snapshot.js';
import { until } from '../helpers/wait.js';

const NO_CADDY = { BERTH_CADDY_ADMIN: 'http://127.0.0.1:1' };
const DAY_MS = 86_400_000;

/** Entries newer than `afterId`, oldest first. */
async function entriesSince(t: TestDaemon, afterId: number): Promise<AuditEntry[]> {
  const { entries } = await t.admin.auditLog({ limit: 200 });
  return entries.filter((e) => Number(e.id) > afterId).reverse();
}

async function newestId(t: TestDaemon): Promise<number> {
  const { entries } = await t.admin.auditLog({ limit: 1 });
  return entries.length === 0 ? 0 : Number(entries[0]!.id);
}

/** The one entry a call left; fails when it left none or more than one. */
async function onlyEntry(t: TestDaemon, afterId: number, what: string): Promise<AuditEntry> {
  const fresh = await entriesSince(t, afterId);
  expect(fresh, `${what}: ${JSON.stringify(fresh)}`).to.have.length(1);
  return fresh[0]!;
}

async function keyIdOf(client: BerthClient): Promise<string> {
  const res = await client.request<{ key: { id: string } }>('GET', '/api/session');
  return res.body.key.id;
}

describe('the audit log', function () {
  this.timeout(120_000);
  let t: TestDaemon;
  let w: ProjectWorld;
  before(async () => {
    t = await startTestDaemon(NO_CADDY);
    w = await makeProjectWorld(t.admin, 'audited');
  });
  after(async () => t?.stop());

  /** Path parameters: the world's resources where a route names them (`real`, for callers refused before anything runs), unknown ids otherwise. */
  const paramsFor = (path: string, real: boolean): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const [, name] of path.matchAll(/:([A-Za-z]+)/g)) {
      const known = name === 'serviceId' ? (path.includes('/database') ? w.db.id : w.web.id) : name === 'projectId' ? w.project.id : null;
      out[name!] = real && known !== null ? known : 'no-such-id';
    }
    return out;
  };

  describe('recording', () => {
    const mutating = API_ROUTES.filter((r) => r.method !== 'GET');

    it('covers at least the routes the brief names (the walk below is over the whole table)', () => {
      const ids = mutating.map((r) => r.id as string);
      for (const id of ['services.create', 'session.open', 'session.close', 'hooks.deliver', 'keys.create', 'keys.revoke', 'exec.start']) expect(ids).to.include(id);
    });

    for (const [who, keyed] of [
      ['a read key (refused: 403)', 'read'],
      ['a write key over all projects (unknown ids and empty bodies: 4xx, or done; not the host-wide Swarm routes)', 'admin'],
    ] as const) {
      it(`walks the route table: every non-GET route called by ${who} leaves exactly one entry with its route id, method, status and actor`, async () => {
        const reader = keyed === 'read' ? await t.clientWith('read', 'all') : t.admin;
        const readerId = await keyIdOf(reader);
        // Swarm mode and its nodes are host-wide (an empty body turns Swarm on): the read key's walk covers them
        const walked = keyed === 'read' ? mutating : mutating.filter((r) => !r.id.startsWith('swarm.') && !r.id.startsWith('nodes.'));
        for (const route of walked) {
          const keyless = route.access === 'open' || route.access === 'session';
          const client = keyless ? t.anonymous : reader;
          const before = await newestId(t);
          const path = routePath(route.id as RouteId, paramsFor(route.path, keyed === 'read' || route.id === 'hooks.deliver') as never);
          const headers: Record<string, string> = route.access === 'session' ? { origin: t.url, 'sec-fetch-site': 'same-origin' } : {};
          const res = await client.request(route.method, path, {}, { headers });
          const entry = await onlyEntry(t, before, `${route.method} ${path} (${res.status})`);
          expect(entry.route, path).to.equal(route.id);
          expect(entry.method).to.equal(route.method);
          expect(entry.path).to.equal(path);
          expect(entry.status, `${route.id}: ${JSON.stringify(res.body)}`).to.equal(res.status);
          expect(entry.outcome).to.equal(res.status < 400 ? 'ok' : 'error');
          if (res.status >= 400) expect(entry.errorCode).to.equal((res.body as { error: { code: string } }).error.code);
          else expect(entry.errorCode).to.equal(null);
          expect(entry.clientAddress).to.equal('127.0.0.1');
          expect(entry.durationMs).to.be.a('number').and.at.least(0);
          const kind = route.id === 'hooks.deliver' ? 'webhook' : route.access === 'session' ? 'session' : 'key';
          expect(entry.actor, route.id).to.deep.equal(keyless ? { kind, keyId: null, keyName: null } : { kind, keyId: readerId, keyName: entry.actor.keyName });
          if (!keyless) expect(entry.actor.keyName).to.be.a('string');
          if (keyed === 'read' && !keyless) expect(res.status, route.id).to.equal(403);
        }
      });
    }

    it('records a request without a key or with an unknown key (401), and one to an unknown resource (404)', async () => {
      let before = await newestId(t);
      const anon = await t.anonymous.request('POST', '/api/projects', { name: 'x' });
      expect(anon.status).to.equal(401);
      expect(await onlyEntry(t, before, 'no key')).to.deep.include({
        route: 'projects.create',
        status: 401,
        outcome: 'error',
        errorCode: 'unauthorized',
        actor: { kind: 'key', keyId: null, keyName: null },
      });
      before = await newestId(t);
      const unknown = await t.anonymous.withToken('berth_not-a-real-key').request('DELETE', `/api/services/${w.web.id}`);
      expect(unknown.status).to.equal(401);
      const e = await onlyEntry(t, before, 'unknown key');
      expect(e).to.deep.include({ route: 'services.delete', status: 401, projectId: w.project.id, serviceId: w.web.id });
      before = await newestId(t);
      expect((await t.admin.request('PATCH', '/api/services/no-such-service', { branch: 'x' })).status).to.equal(404);
      expect(await onlyEntry(t, before, 'unknown service')).to.deep.include({ route: 'services.patch', status: 404, errorCode: 'not_found', projectId: null, serviceId: null });
    });

    it('names the project and service: from the path, the created one for a create, and the project of a service deleted by the call', async () => {
      let before = await newestId(t);
      const { project } = await t.admin.createProject({ name: uniq('made'), description: '' });
      expect(await onlyEntry(t, before, 'create project')).to.deep.include({ route: 'projects.create', projectId: project.id, serviceId: null, status: 200, outcome: 'ok' });
      before = await newestId(t);
      const { service } = await t.admin.createService(project.id, { name: 'api', repoFullName: 'acme/api', branch: 'main', internalPort: 3000 });
      expect(await onlyEntry(t, before, 'create service')).to.deep.include({ route: 'services.create', projectId: project.id, serviceId: service.id });
      before = await newestId(t);
      await t.admin.request('PATCH', `/api/services/${service.id}`, { branch: 'develop' });
      expect(await onlyEntry(t, before, 'patch service')).to.deep.include({ route: 'services.patch', projectId: project.id, serviceId: service.id, status: 200 });
      before = await newestId(t);
      const del = await t.admin.request('DELETE', `/api/services/${service.id}`);
      expect(del.status, JSON.stringify(del.body)).to.equal(200);
      expect(await onlyEntry(t, before, 'delete service')).to.deep.include({ route: 'services.delete', projectId: project.id, serviceId: service.id });
    });

    it('believes X-Forwarded-For only from a loopback peer (Caddy on this host), taking the entry Caddy appended', async () => {
      const before = await newestId(t);
      await t.admin.request('POST', '/api/projects', {}, { headers: { 'x-forwarded-for': '198.51.100.7, 203.0.113.9' } });
      expect((await onlyEntry(t, before, 'forwarded')).clientAddress).to.equal('203.0.113.9');
    });

    it('records sign-ins: a refused one with no key, an accepted one with its key, and the sign-out', async () => {
      const headers = { origin: t.url, 'sec-fetch-site': 'same-origin' };
      let before = await newestId(t);
      const refused = await t.anonymous.request('POST', '/api/session', { key: 'berth_wrong-key-for-the-audit' }, { headers });
      expect(refused.status).to.equal(401);
      expect(await onlyEntry(t, before, 'refused sign-in')).to.deep.include({ route: 'session.open', status: 401, outcome: 'error', actor: { kind: 'session', keyId: null, keyName: null } });
      const { key, token } = await t.admin.createKey({ name: uniq('console'), access: 'read', projects: 'all' });
      before = await newestId(t);
      const res = await fetch(`${t.url}/api/session`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ key: token }) });
      expect(res.status).to.equal(200);
      const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
      expect(await onlyEntry(t, before, 'sign-in')).to.deep.include({ route: 'session.open', status: 200, actor: { kind: 'session', keyId: key.id, keyName: key.name } });
      before = await newestId(t);
      // a call made with the session is the session's key, as kind `session`
      const refusedWrite = await fetch(`${t.url}/api/projects`, { method: 'POST', headers: { ...headers, cookie, 'content-type': 'application/json' }, body: '{}' });
      expect(refusedWrite.status).to.equal(403);
      expect(await onlyEntry(t, before, 'session call')).to.deep.include({ route: 'projects.create', status: 403, actor: { kind: 'session', keyId: key.id, keyName: key.name } });
      before = await newestId(t);
      expect((await fetch(`${t.url}/api/session`, { method: 'DELETE', headers: { ...headers, cookie } })).status).to.equal(200);
      expect(await onlyEntry(t, before, 'sign-out')).to.deep.include({ route: 'session.close', status: 200, actor: { kind: 'session', keyId: key.id, keyName: key.name } });
    });

    it('records a webhook delivery as actor webhook, with its service and project', async () => {
      await t.admin.createWebhook(w.worker.id);
      const before = await newestId(t);
      const res = await t.anonymous.request('POST', `/api/hooks/${w.worker.id}`, { ref: 'refs/heads/main' }, { headers: { 'x-github-event': 'push', 'x-hub-signature-256': 'sha256=00' } });
      expect(res.status).to.equal(401);
      expect(await onlyEntry(t, before, 'delivery')).to.deep.include({
        route: 'hooks.deliver',
        status: 401,
        projectId: w.project.id,
        serviceId: w.worker.id,
        actor: { kind: 'webhook', keyId: null, keyName: null },
      });
    });

    it("records the terminal's WebSocket: refused before the upgrade, and refused after it (no live deployment), as `terminal`", async () => {
      const reader = await t.admin.createKey({ name: uniq('reader'), access: 'read', projects: 'all' });
      const writer = await t.admin.createKey({ name: uniq('writer'), access: 'write', projects: 'all' });
      const open = (token: string) =>
        new Promise<{ status?: number; code?: number }>((resolve) => {
          const ws = new WebSocket(`${t.url.replace('http:', 'ws:')}/api/services/${w.web.id}/terminal`, { headers: { authorization: `Bearer ${token}` } });
          ws.on('unexpected-response', (_req, res) => resolve({ status: res.statusCode }));
          ws.on('close', (code) => resolve({ code }));
          ws.on('error', () => undefined);
        });
      let before = await newestId(t);
      expect((await open(reader.token)).status).to.equal(403);
      expect(await onlyEntry(t, before, 'refused terminal')).to.deep.include({ route: 'terminal', method: 'GET', status: 403, detail: 'terminal', serviceId: w.web.id });
      before = await newestId(t);
      const admin = await open(writer.token);
      expect(admin.code).to.be.oneOf([4409, 1006]);
      const e = await until('the terminal entry', async () => (await entriesSince(t, before)).find((x) => x.route === 'terminal'), 10_000);
      expect(e).to.deep.include({ route: 'terminal', status: 409, outcome: 'error', detail: 'terminal', actor: { kind: 'key', keyId: writer.key.id, keyName: writer.key.name } });
    });

    it("records an exec's command (credentials in it redacted), never its output", async () => {
      const before = await newestId(t);
      const res = await t.admin.request('POST', `/api/services/${w.web.id}/exec`, { command: ['psql', 'postgres://app:hunter2-secret@db:5432/app', '-c', 'select 1'] });
      expect(res.status).to.equal(409); // no live deployment: refused before any stream
      const e = await onlyEntry(t, before, 'exec');
      expect(e.route).to.equal('exec.start');
      expect(e.detail).to.include('psql').and.include('[redacted]').and.not.include('hunter2');
    });

    it('publishes an `audit` event to keys over all projects', async () => {
      const listener = listenToEvents(t.admin);
      try {
        await new Promise((r) => setTimeout(r, 200));
        await t.admin.request('POST', '/api/projects', {});
        const heard = await until('an audit event', async () => listener.heard().find((e) => e.event === 'audit'), 10_000);
        expect(heard.json).to.include({ route: 'projects.create', outcome: 'error' });
        expect(heard.json.entryId).to.be.a('string');
      } finally {
        listener.stop();
      }
    });
  });

  describe('reading', () => {
    it('needs a key over all projects: a selected-projects key gets 403, a read key over all projects reads', async () => {
      const selected = await t.clientWith('write', [w.project.id]);
      const refused = await selected.request('GET', '/api/audit');
      expect(refused.status).to.equal(403);
      expect((refused.body as { error: { message: string } }).error.message).to.equal('reading the audit log needs a key over all projects');
      const reader = await t.clientWith('read', 'all');
      const page = await reader.auditLog({ limit: 3 });
      expect(page.entries).to.have.length(3);
    });

    it('is append-only through the API: no route of the table writes to /api/audit, and a write there changes nothing', async () => {
      expect(API_ROUTES.filter((r) => r.path.startsWith('/api/audit') && r.method !== 'GET')).to.deep.equal([]);
      const count = async () => withKnex(t.dataDir, async (k) => ((await k('audit_log').count({ n: '*' }).first()) as { n: number }).n);
      await t.daemon.core.audit.flush();
      const before = await count();
      const ids = (await t.admin.auditLog({ limit: 200 })).entries.map((e) => e.id);
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        const res = await t.admin.request(method, '/api/audit', {});
        expect(res.status, method).to.be.oneOf([404, 405]);
        expect((await t.admin.request(method, `/api/audit/${ids[0]}`, {})).status).to.equal(404);
      }
      await t.daemon.core.audit.flush();
      expect(await count()).to.equal(before); // an unknown route is not an audited call
      expect((await t.admin.auditLog({ limit: 200 })).entries.map((e) => e.id)).to.deep.equal(ids);
    });

    it('keeps no secret of a request body: tokens, env values, passphrases and credentials never reach the store', async () => {
      const secret = `S3cret-${uniq('never-stored')}`;
      const { token } = await t.admin.createKey({ name: uniq('k'), access: 'write', projects: 'all' });
      await t.admin.request('POST', `/api/services/${w.web.id}/env`, { key: 'API_TOKEN', value: secret });
      await t.admin.request('POST', '/api/session', { key: secret }, { headers: { origin: t.url, 'sec-fetch-site': 'same-origin' } });
      await t.admin.request('PUT', '/api/system/dns-providers/cloudflare', { apiToken: secret, baseUrl: 'http://127.0.0.1:9/client/v4' });
      await t.admin.request('POST', `/api/services/${w.db.id}/database/query`, { sql: `SELECT '${secret}'` });
      await t.admin.request('PATCH', '/api/system/settings', { acmeEmail: `${secret}@example.com` });
      await t.admin.request('POST', `/api/services/${w.web.id}/exec?token=${secret}`, { command: ['true'] });
      await t.daemon.core.audit.flush();
      const rows = await withKnex(t.dataDir, (k) => k('audit_log').select('*'));
      const text = JSON.stringify(rows);
      expect(text).to.not.include(secret);
      expect(text).to.not.include(token);
      for (const file of [DB_FILE, `${DB_FILE}-wal`]) {
        const path = join(t.dataDir, file);
        if (!existsSync(path)) continue;
        const bytes = readFileSync(path);
        // the settings PATCH stores the e-mail (a setting, not a secret): only that copy may hold the text
        const hits = bytes.toString('latin1').split(secret).length - 1;
        const settingCopies = bytes.toString('latin1').split(`${secret}@example.com`).length - 1;
        expect(hits - settingCopies, `${file} holds the secret outside the settings`).to.equal(0);
        expect(bytes.includes(Buffer.from(token)), `${file} holds a token`).to.equal(false);
      }
    });

    it('filters by project, key, action (an id or a prefix), outcome and time, newest first', async () => {
      const writer = await t.clientWith('write', 'all');
      const writerId = await keyIdOf(writer);
      const from = new Date().toISOString();
      const { project } = await writer.createProject({ name: uniq('filtered'), description: '' });
      await writer.request('PATCH', `/api/projects/${project.id}`, { name: uniq('renamed'), description: '' });
      await writer.request('PATCH', `/api/projects/${project.id}`, { name: 42 });
      await writer.request('POST', `/api/projects/${project.id}/services`, { name: 'svc', repoFullName: 'acme/svc', branch: 'main', internalPort: 3000 });
      const byProject = await t.admin.auditLog({ projectId: project.id });
      expect(byProject.entries.map((e) => e.route)).to.deep.equal(['services.create', 'projects.patch', 'projects.patch', 'projects.create']);
      expect(byProject.nextCursor).to.equal(null);
      const byKey = await t.admin.auditLog({ keyId: writerId });
      expect(byKey.entries.map((e) => e.route)).to.deep.equal(['services.create', 'projects.patch', 'projects.patch', 'projects.create']);
      expect((await t.admin.auditLog({ keyId: writerId, action: 'projects.patch' })).entries).to.have.length(2);
      expect((await t.admin.auditLog({ keyId: writerId, action: 'projects.' })).entries).to.have.length(3);
      const errors = await t.admin.auditLog({ keyId: writerId, outcome: 'error' });
      expect(errors.entries.map((e) => [e.route, e.status, e.errorCode])).to.deep.equal([['projects.patch', 400, 'invalid_input']]);
      expect((await t.admin.auditLog({ keyId: writerId, from })).entries).to.have.length(4);
      expect((await t.admin.auditLog({ keyId: writerId, to: from })).entries).to.have.length(0);
      for (const bad of [{ limit: 0 }, { limit: 201 }, { from: 'yesterday' }, { outcome: 'maybe' }, { before: 'abc' }, { action: 'DROP TABLE' }]) {
        const res = await t.admin.request('GET', routePath('audit.list', {}, bad as never));
        expect(res.status, JSON.stringify(bad)).to.equal(400);
      }
    });

    it('pages with the cursor: each page older than the last, together every entry once', async () => {
      const all = (await t.admin.auditLog({ limit: 200 })).entries;
      expect(all.length).to.be.greaterThan(20);
      const seen: AuditEntry[] = [];
      let page: AuditPage = await t.admin.auditLog({ limit: 7 });
      for (;;) {
        seen.push(...page.entries);
        if (page.nextCursor === null) break;
        expect(page.nextCursor).to.equal(page.entries[page.entries.length - 1]!.id);
        page = await t.admin.auditLog({ limit: 7, before: page.nextCursor });
        if (seen.length > all.length + 10) break;
      }
      // entries made while paging (none here: GETs are not recorded) would only be newer
      expect(seen.slice(0, all.length).map((e) => e.id)).to.deep.equal(all.map((e) => e.id));
      const ids = seen.map((e) => Number(e.id));
      expect(ids).to.deep.equal([...ids].sort((a, b) => b - a));
    });
  });

  describe('retention', () => {
    it('auditRetentionDays is a system setting (default 90, 1 to 3650, null back to the default)', async () => {
      expect((await t.admin.systemSettings()).settings.auditRetentionDays).to.equal(90);
      for (const bad of [0, 3651, 1.5, '30']) expect((await t.admin.request('PATCH', '/api/system/settings', { auditRetentionDays: bad })).status, String(bad)).to.equal(400);
      expect((await t.admin.patchSystemSettings({ auditRetentionDays: 30 })).settings.auditRetentionDays).to.equal(30);
      expect((await t.admin.patchSystemSettings({ auditRetentionDays: null })).settings.auditRetentionDays).to.equal(90);
    });

    it('prunes entries older than the retention on a driven clock, and nothing newer', async () => {
      await t.daemon.core.audit.flush();
      const count = async () => withKnex(t.dataDir, async (k) => ((await k('audit_log').count({ n: '*' }).first()) as { n: number }).n);
      const total = await count();
      const now = Date.now();
      expect(await t.daemon.core.audit.prune(new Date(now + 89 * DAY_MS).toISOString())).to.deep.equal({ expired: 0, overCap: 0 });
      expect(await count()).to.equal(total);
      await t.admin.patchSystemSettings({ auditRetentionDays: 10 });
      const newest = await newestId(t); // the settings PATCH itself
      // ten days and a minute later, everything before the PATCH has expired; the PATCH's own entry (made now) too
      const pruned = await t.daemon.core.audit.prune(new Date(now + 10 * DAY_MS + 60_000).toISOString());
      expect(pruned.expired).to.equal(total + 1);
      expect(await count()).to.equal(0);
      expect(newest).to.be.greaterThan(0);
      await t.admin.patchSystemSettings({ auditRetentionDays: null });
      // ids are never reused after a prune
      expect(await newestId(t)).to.be.greaterThan(newest);
    });
  });
});

describe('the audit log under a flood of refused calls', function () {
  this.timeout(60_000);
  let t: TestDaemon;
  before(async () => {
    t = await startTestDaemon({ ...NO_CADDY, BERTH_AUDIT_MAX_ROWS: '100' });
  });
  after(async () => t?.stop());

  it('stays within its row cap (the newest entries kept), and the calls are answered as usual', async () => {
    const calls = Array.from({ length: 300 }, () => t.anonymous.request('POST', '/api/projects', { name: 'flood' }));
    const statuses = (await Promise.all(calls)).map((r) => r.status);
    expect(new Set(statuses)).to.deep.equal(new Set([401]));
    await t.daemon.core.audit.flush();
    const count = async () => withKnex(t.dataDir, async (k) => ((await k('audit_log').count({ n: '*' }).first()) as { n: number }).n);
    // capped as it is written (checked every tenth of the cap), exactly at the cap after a prune
    expect(await count()).to.be.at.most(100 + 10 + 300 / 10);
    await t.daemon.core.audit.prune();
    expect(await count()).to.equal(100);
    const { entries } = await t.admin.auditLog({ limit: 200 });
    expect(entries).to.have.length(100);
    expect(Number(entries[0]!.id)).to.be.at.least(300);
  });
});
