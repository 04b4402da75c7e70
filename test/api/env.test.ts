// Environment variables: upsert by key, delete, `${service.VAR}` references resolved, with clear
// errors for unknown references and cycles, and values sealed at rest.
import { expect } from 'chai';
import knexFactory from 'knex';
import { join } from 'node:path';
import { ApiError } from '../../shared/client.js';
import { DB_FILE } from '../../daemon/store/open.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeProjectWorld, uniq } from '../helpers/fixtures.js';
import { snapshotStore } from '../helpers/snapshot.js';

async function errorOf(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, 'the request should have failed').to.be.instanceOf(ApiError);
  return err as ApiError;
}

describe('environment variables', () => {
  let t: TestDaemon;
  before(async () => {
    t = await startTestDaemon();
  });
  after(async () => t.stop());

  const envOf = async (serviceId: string) => Object.fromEntries((await t.admin.overview(serviceId)).env.map((e) => [e.key, e]));

  it('creates a variable, then updates it in place when the key exists', async () => {
    const w = await makeProjectWorld(t.admin);
    await t.admin.setEnv(w.web.id, 'GREETING', 'hello');
    const first = (await envOf(w.web.id)).GREETING!;
    await new Promise((r) => setTimeout(r, 5));
    await t.admin.setEnv(w.web.id, 'GREETING', 'bonjour');
    const env = await t.admin.overview(w.web.id);
    const all = env.env.filter((e) => e.key === 'GREETING');
    expect(all).to.have.length(1);
    expect(all[0]).to.include({ id: first.id, value: 'bonjour', resolvedValue: 'bonjour', hasValue: true, createdAt: first.createdAt });
    expect(all[0]!.updatedAt > first.updatedAt).to.equal(true);
  });

  it('an empty value is kept and reported with hasValue false', async () => {
    const w = await makeProjectWorld(t.admin);
    await t.admin.setEnv(w.web.id, 'EMPTY', '');
    expect((await envOf(w.web.id)).EMPTY).to.include({ value: '', hasValue: false });
  });

  it('deletes a variable by id; deleting it again is 404', async () => {
    const w = await makeProjectWorld(t.admin);
    await t.admin.deleteEnv(w.web.id, w.env.id);
    expect(await envOf(w.web.id)).not.to.have.property('DATABASE_URL');
    expect((await errorOf(t.admin.deleteEnv(w.web.id, w.env.id))).status).to.equal(404);
  });

  it("a variable id of another service's is 404 and deletes nothing", async () => {
    const w = await makeProjectWorld(t.admin);
    const dbEnv = (await t.admin.overview(w.db.id)).env[0]!;
    const before = await snapshotStore(t.dataDir);
    expect((await errorOf(t.admin.deleteEnv(w.web.id, dbEnv.id))).status).to.equal(404);
    expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
  });

  it("resolves ${db.DATABASE_URL} to the database's private connection URL", async () => {
    const w = await makeProjectWorld(t.admin);
    const db = await envOf(w.db.id);
    const url = (await envOf(w.web.id)).DATABASE_URL!;
    expect(url.value).to.equal('${db.DATABASE_URL}');
    expect(url.resolvedValue).to.equal(`postgresql://${db.POSTGRES_USER!.value}:${db.POSTGRES_PASSWORD!.value}@db:5432/${db.POSTGRES_DB!.value}`);
  });

  it('follows references through several services and keeps literal text around them', async () => {
    const w = await makeProjectWorld(t.admin);
    await t.admin.setEnv(w.worker.id, 'QUEUE', 'jobs');
    await t.admin.setEnv(w.web.id, 'QUEUE_NAME', 'prefix-${worker.QUEUE}-suffix');
    await t.admin.setEnv(w.db.id, 'FROM_WEB', '${web.QUEUE_NAME}!');
    expect((await envOf(w.db.id)).FROM_WEB!.resolvedValue).to.equal('prefix-jobs-suffix!');
  });

  it('a change to a referenced value shows in resolvedValue at once', async () => {
    const w = await makeProjectWorld(t.admin);
    await t.admin.setEnv(w.worker.id, 'LEVEL', 'info');
    await t.admin.setEnv(w.web.id, 'LOG_LEVEL', '${worker.LEVEL}');
    await t.admin.setEnv(w.worker.id, 'LEVEL', 'debug');
    expect((await envOf(w.web.id)).LOG_LEVEL!.resolvedValue).to.equal('debug');
  });

  it('refuses a reference to an unknown service, naming it', async () => {
    const w = await makeProjectWorld(t.admin);
    const err = await errorOf(t.admin.setEnv(w.web.id, 'X', '${ghost.URL}'));
    expect(err.status).to.equal(400);
    expect(err.code).to.equal('invalid_reference');
    expect(err.message).to.include('ghost');
  });

  it('refuses a reference to a variable the service does not have', async () => {
    const w = await makeProjectWorld(t.admin);
    const err = await errorOf(t.admin.setEnv(w.web.id, 'X', '${db.NOPE}'));
    expect(err.status).to.equal(400);
    expect(err.message).to.include('NOPE');
  });

  it('refuses a cycle of references and leaves the variables as they were', async () => {
    const w = await makeProjectWorld(t.admin);
    await t.admin.setEnv(w.worker.id, 'B', 'plain');
    await t.admin.setEnv(w.web.id, 'A', '${worker.B}x');
    const before = await snapshotStore(t.dataDir);
    const err = await errorOf(t.admin.setEnv(w.worker.id, 'B', '${web.A}'));
    expect(err.status).to.equal(400);
    expect(err.message).to.match(/cycle/);
    expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
    const self = await errorOf(t.admin.setEnv(w.web.id, 'SELF', '${web.SELF}'));
    expect(self.message).to.match(/cycle/);
  });

  it('references stay within the project', async () => {
    const a = await makeProjectWorld(t.admin);
    const b = await makeProjectWorld(t.admin);
    await t.admin.setEnv(b.worker.id, 'ONLY_IN_B', 'x');
    const { service } = await t.admin.createService(a.project.id, { name: uniq('x'), repoFullName: 'acme/x' });
    const err = await errorOf(t.admin.setEnv(service.id, 'X', '${worker.ONLY_IN_B}'));
    expect(err.status).to.equal(400);
  });

  it('references in the env of a new service are checked too', async () => {
    const w = await makeProjectWorld(t.admin);
    const before = await snapshotStore(t.dataDir);
    const err = await errorOf(t.admin.createService(w.project.id, { name: 'bad', repoFullName: 'acme/bad', env: [{ key: 'U', value: '${nobody.URL}' }] }));
    expect(err.status).to.equal(400);
    expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
    const ok = await t.admin.createService(w.project.id, { name: 'good', repoFullName: 'acme/good', env: [{ key: 'U', value: '${db.POSTGRES_URL}' }] });
    expect((await envOf(ok.service.id)).U!.resolvedValue).to.match(/^postgresql:\/\//);
  });

  it('a renamed service is still reachable by its slug', async () => {
    const w = await makeProjectWorld(t.admin);
    await t.admin.patchService(w.db.id, { name: 'primary-db' });
    expect((await envOf(w.web.id)).DATABASE_URL!.resolvedValue).to.match(/^postgresql:\/\/.*@db:5432\//);
    await t.admin.setEnv(w.web.id, 'BY_NEW_NAME', '${primary-db.POSTGRES_URL}');
    expect((await envOf(w.web.id)).BY_NEW_NAME!.resolvedValue).to.match(/^postgresql:\/\//);
  });

  it('values are encrypted at rest: the SQLite file never holds them in plain text', async () => {
    const w = await makeProjectWorld(t.admin);
    const secret = `s3cret-${uniq('value')}`;
    await t.admin.setEnv(w.web.id, 'API_TOKEN', secret);
    const knex = knexFactory({ client: 'sqlite3', connection: { filename: join(t.dataDir, DB_FILE) }, useNullAsDefault: true });
    try {
      const rows = JSON.stringify(await knex('env_vars').select('*'));
      expect(rows).to.include('API_TOKEN');
      expect(rows).not.to.include(secret);
    } finally {
      await knex.destroy();
    }
  });
});
