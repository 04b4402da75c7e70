// Remote backup storage settings through the real daemon, against a real S3 server on 127.0.0.1
// (@20minutes/s3rver, which checks Signature V4): a PUT is checked whole, stored sealed (the
// secret is nowhere in the SQLite files) and never returned; GET reports the result of a real
// authenticated call, so a wrong secret shows as not connected; refused requests change nothing;
// reading needs a key over all projects and changing a write key over all projects.
import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import knexFactory from 'knex';
import { s3Store } from '../../daemon/backups/s3-store.js';
import { BACKUP_STORAGE_KEY, BackupStorage } from '../../daemon/core/backup-storage.js';
import { systemClock } from '../../daemon/core/clock.js';
import { DB_FILE } from '../../daemon/store/open.js';
import type { BackupStorageStatus } from '../../shared/types.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeProjectWorld, type ProjectWorld } from '../helpers/fixtures.js';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.js';
import { snapshotStore } from '../helpers/snapshot.js';

type ErrorBody = { error: { code: string; message: string } };

/** Every SQLite file of the store (the database, its WAL and shared memory), as bytes. */
function storeBytes(dataDir: string): Buffer {
  return Buffer.concat(
    readdirSync(dataDir)
      .filter((f) => f.startsWith(DB_FILE))
      .map((f) => readFileSync(join(dataDir, f))),
  );
}

async function storedValue(dataDir: string): Promise<string | undefined> {
  const knex = knexFactory({ client: 'sqlite3', connection: { filename: join(dataDir, DB_FILE) }, useNullAsDefault: true });
  try {
    const row = (await knex('settings').where({ key: BACKUP_STORAGE_KEY }).first()) as { value: string } | undefined;
    return row?.value;
  } finally {
    await knex.destroy();
  }
}

describe('remote backup storage settings', function () {
  this.timeout(60_000);
  let t: TestDaemon;
  let s3: TestS3Server;
  let world: ProjectWorld;
  const put = (body: unknown) => t.admin.request<BackupStorageStatus & ErrorBody>('PUT', '/api/system/backup-storage', body);
  const get = () => t.admin.request<BackupStorageStatus>('GET', '/api/system/backup-storage');
  const good = () => ({
    endpoint: `${s3.endpoint}/`,
    region: s3.region,
    bucket: s3.bucket,
    prefix: 'berth/prod',
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
  });

  before(async () => {
    t = await startTestDaemon();
    s3 = await startS3Server();
    world = await makeProjectWorld(t.admin, 'bstore');
  });
  after(async () => {
    await s3?.stop();
    await t?.stop();
  });

  it('starts unconfigured', async () => {
    const res = await get();
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ storage: null, connected: false, detail: 'no remote backup storage is configured' });
  });

  it('is set by PUT, normalised, checked with a real call, and never returns or stores the secret in plain text', async () => {
    const res = await put(good());
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const expected = {
      endpoint: s3.endpoint,
      region: 'us-east-1',
      bucket: s3.bucket,
      prefix: 'berth/prod/',
      accessKeyId: s3.accessKeyId,
      hasSecret: true,
      forcePathStyle: true,
    };
    expect(res.body.storage).to.deep.equal(expected);
    expect(res.body.connected, res.body.detail).to.equal(true);
    expect(JSON.stringify(res.body)).not.to.include(s3.secretAccessKey);

    const listed = s3.requests.at(-1)!;
    expect(listed.path).to.equal(`/${s3.bucket}/`);
    expect(listed.query.get('prefix')).to.equal('berth/prod/');

    const again = await get();
    expect(again.body.storage).to.deep.equal(expected);
    expect(again.body.connected).to.equal(true);
    expect(JSON.stringify(again.body)).not.to.include(s3.secretAccessKey);

    expect(await storedValue(t.dataDir)).to.match(/^v1:/);
    const bytes = storeBytes(t.dataDir);
    expect(bytes.includes(Buffer.from(s3.secretAccessKey))).to.equal(false);
    expect(bytes.includes(Buffer.from(s3.accessKeyId))).to.equal(false); // the whole value is sealed
  });

  it('keeps the stored secret when a PUT leaves it out and the endpoint and key id stay', async () => {
    const { secretAccessKey: _omitted, ...rest } = good();
    const res = await put({ ...rest, prefix: '', forcePathStyle: true });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.storage).to.include({ prefix: '', hasSecret: true });
    expect(res.body.connected, res.body.detail).to.equal(true);
    // a new endpoint or key id needs the secret again: it is never sent elsewhere
    const before = await snapshotStore(t.dataDir);
    for (const body of [
      { ...rest, endpoint: 'http://127.0.0.1:9' },
      { ...rest, accessKeyId: 'AKOTHER' },
    ]) {
      const refused = await put(body);
      expect(refused.status).to.equal(400);
      expect(refused.body.error.message).to.match(/secretAccessKey is required when the endpoint or the access key id changes/);
    }
    expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
  });

  it('gives the backup runner a working store from the sealed settings', async () => {
    const remote = await new BackupStorage(t.daemon.store.settings, systemClock, s3Store).remote();
    expect(remote).to.not.equal(null);
    const file = join(t.dataDir, 'runner-check.dump');
    const data = randomBytes(5000);
    writeFileSync(file, data);
    try {
      await remote!.upload('svc_x/runner-check.dump', file, data.length);
      expect(s3.requests.some((r) => r.method === 'PUT' && r.path === `/${s3.bucket}/svc_x/runner-check.dump`)).to.equal(true);
      const { body, sizeBytes } = await remote!.download('svc_x/runner-check.dump');
      expect(sizeBytes).to.equal(data.length);
      const h = createHash('sha256');
      for await (const chunk of body as Readable) h.update(chunk as Buffer);
      expect(h.digest('hex')).to.equal(createHash('sha256').update(data).digest('hex'));
      await remote!.delete('svc_x/runner-check.dump');
    } finally {
      rmSync(file, { force: true });
    }
  });

  it('is saved with a wrong secret but reported as not connected, with the refusal and without the secret', async () => {
    const wrong = `wrong-${randomBytes(16).toString('hex')}`;
    const res = await put({ ...good(), secretAccessKey: wrong });
    expect(res.status).to.equal(200);
    expect(res.body.connected).to.equal(false);
    expect(res.body.detail).to.match(/^SignatureDoesNotMatch: /);
    const status = await get();
    expect(status.body.storage).to.include({ hasSecret: true, accessKeyId: s3.accessKeyId });
    expect(status.body.connected).to.equal(false);
    expect(status.body.detail).to.match(/SignatureDoesNotMatch/);
    for (const text of [JSON.stringify(res.body), JSON.stringify(status.body)]) {
      expect(text).not.to.include(wrong);
      expect(text).not.to.include(s3.secretAccessKey);
    }
    expect(storeBytes(t.dataDir).includes(Buffer.from(wrong))).to.equal(false);
    // back to the right one
    expect((await put(good())).body.connected).to.equal(true);
  });

  it('refuses bad input with a 400 and changes nothing', async () => {
    const before = await snapshotStore(t.dataDir);
    const { secretAccessKey: _s, ...noSecret } = good();
    const { region: _r, ...noRegion } = good();
    const cases: [unknown, RegExp][] = [
      [{ ...good(), endpoint: 'not a url' }, /endpoint must be an absolute http or https URL/],
      [{ ...good(), endpoint: 'ftp://files.example.com' }, /endpoint must be an http or https URL/],
      [{ ...good(), endpoint: 'https://user:pw@s3.example.com' }, /endpoint must not carry credentials/],
      [{ ...good(), bucket: 'Bad_Bucket' }, /bucket "Bad_Bucket" is not a valid bucket name/],
      [{ ...good(), bucket: 'ab' }, /3 to 63 characters/],
      [{ ...good(), bucket: '192.168.1.10' }, /IP address/],
      [{ ...good(), bucket: 'my..bucket' }, /two adjacent dots/],
      [{ ...good(), bucket: '-bucket' }, /begin and end with a letter or a digit/],
      [{ ...good(), prefix: '/leading' }, /prefix must not begin with "\/"/],
      [{ ...good(), prefix: 'a//b' }, /empty, "\." or "\.\." segments/],
      [{ ...good(), region: 'us east' }, /region must be a region name/],
      [{ ...good(), accessKeyId: 'has space' }, /accessKeyId must be a non-empty key id without spaces/],
      [{ ...good(), secretAccessKey: '' }, /^secretAccessKey: must not be empty/],
      [{ ...good(), forcePathStyle: 'yes' }, /^forcePathStyle: /],
      [noRegion, /^region: /],
      [{ ...good(), endpoint: undefined }, /^endpoint: /],
      [{ ...good(), secretKey: 'typo' }, /secretKey/],
      [{}, /^endpoint: /],
      [[], /^body: /],
    ];
    for (const [body, message] of cases) {
      const res = await put(body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.error.code, JSON.stringify(body)).to.equal('invalid_input');
      expect(res.body.error.message, JSON.stringify(body)).to.match(message);
    }
    await t.admin.deleteBackupStorage();
    const first = await snapshotStore(t.dataDir);
    // with nothing stored, a PUT without a secret is refused too
    const res = await put(noSecret);
    expect(res.status).to.equal(400);
    expect(res.body.error.message).to.match(/^secretAccessKey is required$/);
    expect(await snapshotStore(t.dataDir)).to.deep.equal(first);
    expect(before).to.not.deep.equal(first); // the DELETE above did remove the stored value
    expect((await put(good())).status).to.equal(200);
  });

  it('needs a key over all projects to read, and a write key over all projects to change', async () => {
    const readAll = await t.clientWith('read', 'all');
    const writeSome = await t.clientWith('write', [world.project.id]);
    const readSome = await t.clientWith('read', [world.project.id]);
    const seen = await readAll.request<BackupStorageStatus>('GET', '/api/system/backup-storage');
    expect(seen.status).to.equal(200);
    expect(seen.body.storage).to.include({ bucket: s3.bucket, hasSecret: true });
    const before = await snapshotStore(t.dataDir);
    const refused: [typeof readAll, string, unknown][] = [
      [readAll, 'PUT', good()],
      [readAll, 'DELETE', undefined],
      [writeSome, 'PUT', good()],
      [writeSome, 'DELETE', undefined],
      [writeSome, 'GET', undefined],
      [readSome, 'GET', undefined],
      [readAll, 'PUT', { bogus: true }], // refused for the key before the body is looked at
    ];
    for (const [client, method, body] of refused) {
      const res = await client.request<ErrorBody>(method, '/api/system/backup-storage', body);
      expect(res.status, method).to.equal(403);
      expect(res.body.error.code).to.equal('forbidden');
    }
    expect((await t.anonymous.request('GET', '/api/system/backup-storage')).status).to.equal(401);
    expect((await t.anonymous.request('PUT', '/api/system/backup-storage', good())).status).to.equal(401);
    expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
  });

  it('is removed by DELETE (idempotent), after which GET says unconfigured', async () => {
    expect(await t.admin.deleteBackupStorage()).to.deep.equal({ ok: true });
    expect(await storedValue(t.dataDir)).to.equal(undefined);
    expect((await get()).body).to.deep.equal({ storage: null, connected: false, detail: 'no remote backup storage is configured' });
    expect(await t.admin.deleteBackupStorage()).to.deep.equal({ ok: true });
    expect(await new BackupStorage(t.daemon.store.settings, systemClock, s3Store).remote()).to.equal(null);
  });
});
