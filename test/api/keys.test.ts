import { expect } from 'chai';
import { ApiError } from '../../shared/client.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { snapshotStore } from '../helpers/snapshot.js';
import knexFactory from 'knex';
import { join } from 'node:path';
import { DB_FILE } from '../../daemon/store/open.js';

describe('API keys', () => {
  let t: TestDaemon;
  before(async () => {
    t = await startTestDaemon();
  });
  after(async () => t.stop());

  it('health answers without a key', async () => {
    const health = await t.anonymous.health();
    expect(health).to.deep.equal({ ok: true, version: health.version });
    expect(health.version).to.match(/^\d+\.\d+\.\d+/);
  });

  it('creates a key whose secret works once issued and is listed without its secret', async () => {
    const { key, token } = await t.admin.createKey({ name: 'ci', access: 'read', projects: 'all' });
    expect(Object.keys(key).sort()).to.deep.equal(['access', 'createdAt', 'id', 'lastUsedAt', 'name', 'projects']);
    expect(key).to.include({ name: 'ci', access: 'read', projects: 'all', lastUsedAt: null });
    const reader = t.admin.withToken(token);
    await reader.listProjects();
    const { keys } = await t.admin.listKeys();
    const listed = keys.find((k) => k.id === key.id)!;
    expect(listed.lastUsedAt).to.be.a('string');
    expect(JSON.stringify(keys)).not.to.include(token);
  });

  it('stores only a hash of each secret', async () => {
    const { token } = await t.admin.createKey({ access: 'write', projects: 'all' });
    const knex = knexFactory({ client: 'sqlite3', connection: { filename: join(t.dataDir, DB_FILE) }, useNullAsDefault: true });
    try {
      const dump = JSON.stringify(await knex('keys').select('*'));
      expect(dump).not.to.include(token);
      expect(dump).not.to.include(token.slice(6, 30));
    } finally {
      await knex.destroy();
    }
  });

  it('a revoked key is refused with 401 and revoking twice is 404', async () => {
    const { key, token } = await t.admin.createKey({ access: 'write', projects: 'all' });
    await t.admin.revokeKey(key.id);
    const res = await t.admin.request('GET', '/api/projects', undefined, { token });
    expect(res.status).to.equal(401);
    const again = await t.admin.request('DELETE', `/api/keys/${key.id}`);
    expect(again.status).to.equal(404);
  });

  it('a selected-projects key must name existing projects', async () => {
    const before = await snapshotStore(t.dataDir);
    const err = await t.admin.createKey({ access: 'read', projects: ['no-such-project'] }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ApiError);
    expect((err as ApiError).status).to.equal(400);
    expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
  });
});
