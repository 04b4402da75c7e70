// Cached GET answers (daemon/http/response-cache.ts): answered right after authentication when the
// same path was already built for the same key scope and store version, and sent gzipped to clients
// that accept gzip. Neither may leak an answer across key scopes, skip the key check or serve a
// stale answer after a write.
import { expect } from 'chai';
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A GET with exactly these headers, the body as sent (node:http does not decompress). */
function rawGet(base: string, path: string, headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(base + path, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('cached answers', () => {
  let t: TestDaemon;
  let token: string;
  let projectA: string;
  let serviceA: string;
  let serviceB: string;

  before(async () => {
    t = await startTestDaemon({ BERTH_CADDY_ADMIN: 'http://127.0.0.1:1' });
    token = (await t.admin.createKey({ access: 'write', projects: 'all' })).token;
    const a = await t.admin.createProject({ name: 'Cache A' });
    const b = await t.admin.createProject({ name: 'Cache B' });
    projectA = a.project.id;
    // enough services that the list is well over the size that gets a gzip copy
    for (let i = 0; i < 8; i++) {
      const { service } = await t.admin.createService(projectA, { name: `app-${i}`, repoFullName: `acme/cache-${i}` });
      serviceA ??= service.id;
    }
    serviceB = (await t.admin.createService(b.project.id, { name: 'other', repoFullName: 'acme/other' })).service.id;
  });
  after(async () => t.stop());

  it('sends a large answer gzipped to a client that accepts gzip and plain to the others', async () => {
    const auth = { authorization: `Bearer ${token}` };
    const plain = await rawGet(t.url, '/api/projects', auth);
    expect(plain.status).to.equal(200);
    expect(plain.body.length).to.be.greaterThan(2048);
    expect(plain.headers['content-encoding']).to.equal(undefined);
    expect(plain.headers.vary).to.match(/accept-encoding/i);

    const zipped = await rawGet(t.url, '/api/projects', { ...auth, 'accept-encoding': 'gzip, deflate, br' });
    expect(zipped.status).to.equal(200);
    expect(zipped.headers['content-encoding']).to.equal('gzip');
    expect(zipped.headers.vary).to.match(/accept-encoding/i);
    expect(zipped.headers['content-type']).to.equal('application/json; charset=utf-8');
    expect(zipped.body.length).to.be.lessThan(plain.body.length);
    expect(Number(zipped.headers['content-length'])).to.equal(zipped.body.length);
    expect(gunzipSync(zipped.body).equals(plain.body)).to.equal(true);

    // refused with q=0, or not named: the plain bytes
    for (const encoding of ['gzip;q=0, identity', 'identity', 'deflate']) {
      const res = await rawGet(t.url, '/api/projects', { ...auth, 'accept-encoding': encoding });
      expect(res.headers['content-encoding'], encoding).to.equal(undefined);
      expect(res.body.equals(plain.body), encoding).to.equal(true);
    }
    // the typed client (fetch) asks for and reads the compressed answer
    const { projects } = await t.admin.listProjects();
    expect(projects.find((p) => p.id === projectA)!.services).to.have.length(8);
  });

  it('never answers a key of another scope or access from an entry cached for another key', async () => {
    const auth = (tok: string) => ({ authorization: `Bearer ${tok}`, 'accept-encoding': 'gzip' });
    const { token: onlyA } = await t.admin.createKey({ access: 'read', projects: [projectA] });
    const { token: readAll } = await t.admin.createKey({ access: 'read', projects: 'all' });
    // an all-projects write key builds (and caches) both answers first
    const adminList = await rawGet(t.url, '/api/projects', auth(token));
    expect((await rawGet(t.url, `/api/services/${serviceB}/overview`, auth(token))).status).to.equal(200);

    const hidden = await rawGet(t.url, `/api/services/${serviceB}/overview`, auth(onlyA));
    expect(hidden.status).to.equal(404);
    const scoped = JSON.parse(gunzipSync((await rawGet(t.url, '/api/projects', auth(onlyA))).body).toString()) as { projects: { id: string }[] };
    expect(scoped.projects.map((p) => p.id)).to.deep.equal([projectA]);
    // same projects, other access: its own entry, with the same content
    const readList = await rawGet(t.url, '/api/projects', auth(readAll));
    expect(gunzipSync(readList.body).equals(gunzipSync(adminList.body))).to.equal(true);
  });

  it('checks the key on every cached answer and serves a write at once', async () => {
    const { key, token: short } = await t.admin.createKey({ access: 'read', projects: 'all' });
    const path = `/api/services/${serviceA}/overview`;
    expect((await rawGet(t.url, path, { authorization: `Bearer ${short}` })).status).to.equal(200);
    await t.admin.revokeKey(key.id);
    expect((await rawGet(t.url, path, { authorization: `Bearer ${short}` })).status).to.equal(401);
    expect((await rawGet(t.url, path, {})).status).to.equal(401);
    // the open health path still answers without a key while answers are cached
    expect((await rawGet(t.url, '/api/health', {})).status).to.equal(200);

    await t.admin.patchService(serviceA, { name: 'renamed-app' });
    const after = await rawGet(t.url, path, { authorization: `Bearer ${token}` });
    expect((JSON.parse(after.body.toString()) as { service: { name: string } }).service.name).to.equal('renamed-app');
  });
});
