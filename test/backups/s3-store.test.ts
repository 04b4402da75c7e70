// The S3-compatible remote store against a real S3 server on 127.0.0.1 (@20minutes/s3rver, which
// checks Signature V4 and speaks multipart): small and large files go up (the large one in several
// parts) and come back byte for byte, deletes are idempotent, and every kind of refusal (wrong
// secret, unknown key id, missing bucket, nothing listening) comes back quickly as a clear detail
// that never holds the secret.
import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { once } from 'node:events';
import { PART_SIZE, s3Store } from '../../daemon/backups/s3-store.js';
import type { RemoteSettings } from '../../daemon/core/ports/remote-store.js';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.js';

const LARGE_BYTES = 40 * 1024 * 1024 + 12_345; // 6 parts of 8 MiB, the last one short

async function sha256(stream: Readable): Promise<{ hash: string; bytes: number }> {
  const h = createHash('sha256');
  let bytes = 0;
  for await (const chunk of stream) {
    h.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { hash: h.digest('hex'), bytes };
}

async function writeRandomFile(path: string, size: number): Promise<void> {
  const out = createWriteStream(path);
  for (let left = size; left > 0; left -= 1024 * 1024) {
    if (!out.write(randomBytes(Math.min(left, 1024 * 1024)))) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

describe('S3-compatible remote store', function () {
  this.timeout(120_000);
  let s3: TestS3Server;
  let dir: string;
  let small: string;
  let large: string;
  let settings: RemoteSettings;

  before(async () => {
    s3 = await startS3Server();
    dir = mkdtempSync(join(tmpdir(), 'berth-s3-files-'));
    small = join(dir, 'small.dump');
    writeFileSync(small, randomBytes(3000));
    large = join(dir, 'large.dump');
    await writeRandomFile(large, LARGE_BYTES);
    settings = {
      endpoint: s3.endpoint,
      region: s3.region,
      bucket: s3.bucket,
      prefix: 'berth/prod/',
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      forcePathStyle: true,
    };
  });
  after(async () => {
    await s3?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reports connected for the right credentials and bucket', async () => {
    const result = await s3Store(settings).check();
    expect(result.connected, result.detail).to.equal(true);
    const list = s3.requests.at(-1)!;
    expect(list.method).to.equal('GET');
    expect(list.query.get('list-type')).to.equal('2');
    expect(list.query.get('prefix')).to.equal('berth/prod/');
    expect(list.query.get('max-keys')).to.equal('1');
  });

  it('uploads a small file in one request under the prefix, checks its size, and downloads it byte for byte', async () => {
    const store = s3Store(settings);
    const from = s3.requests.length;
    await store.upload('svc_1/small.dump', small, 3000);
    const sent = s3.requests.slice(from);
    expect(sent.map((r) => `${r.method} ${r.path}`)).to.deep.equal([`PUT /${s3.bucket}/berth/prod/svc_1/small.dump`, `HEAD /${s3.bucket}/berth/prod/svc_1/small.dump`]);
    const { body, sizeBytes } = await store.download('svc_1/small.dump');
    expect(sizeBytes).to.equal(3000);
    expect(await sha256(body)).to.deep.equal(await sha256(createReadStream(small)));
  });

  it('uploads a large file as a multipart upload of several parts, and downloads it byte for byte', async () => {
    const store = s3Store(settings);
    const from = s3.requests.length;
    await store.upload('svc_1/large.dump', large, LARGE_BYTES);
    const sent = s3.requests.slice(from);
    const key = `/${s3.bucket}/berth/prod/svc_1/large.dump`;
    expect(sent.filter((r) => r.method === 'POST' && r.query.has('uploads') && r.path === key)).to.have.length(1);
    const parts = sent.filter((r) => r.method === 'PUT' && r.query.has('partNumber') && r.path === key).map((r) => Number(r.query.get('partNumber')));
    expect(parts.sort((a, b) => a - b)).to.deep.equal([1, 2, 3, 4, 5, 6]);
    expect(Math.ceil(LARGE_BYTES / PART_SIZE)).to.equal(6);
    expect(sent.filter((r) => r.method === 'POST' && r.query.has('uploadId') && r.path === key)).to.have.length(1); // complete
    expect(sent.at(-1)).to.include({ method: 'HEAD', path: key });

    const { body, sizeBytes } = await store.download('svc_1/large.dump');
    expect(sizeBytes).to.equal(LARGE_BYTES);
    const got = await sha256(body);
    expect(got.bytes).to.equal(LARGE_BYTES);
    expect(got.hash).to.equal((await sha256(createReadStream(large))).hash);
  });

  it('deletes an object, and deleting it again is not an error', async () => {
    const store = s3Store(settings);
    await store.upload('svc_2/gone.dump', small, 3000);
    await store.delete('svc_2/gone.dump');
    const err = await store.download('svc_2/gone.dump').then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err?.message).to.match(/NoSuchKey/);
    await store.delete('svc_2/gone.dump');
    await store.delete('svc_2/never-existed.dump');
  });

  it('stops an upload when its signal aborts, leaving no object and no multipart upload behind', async () => {
    const store = s3Store(settings);
    const ac = new AbortController();
    const from = s3.requests.length;
    const timer = setInterval(() => {
      if (s3.requests.slice(from).some((r) => r.query.has('partNumber'))) ac.abort(new Error('backup cancelled'));
    }, 5);
    try {
      const err = await store.upload('svc_3/aborted.dump', large, LARGE_BYTES, ac.signal).then(
        () => null,
        (e: unknown) => e as Error,
      );
      expect(err?.message).to.equal('backup cancelled');
    } finally {
      clearInterval(timer);
    }
    const gone = await store.download('svc_3/aborted.dump').then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(gone?.message).to.match(/NoSuchKey/);
    // the parts already sent are dropped: the multipart upload is aborted once in-flight parts end
    const key = `/${s3.bucket}/berth/prod/svc_3/aborted.dump`;
    const deadline = Date.now() + 10_000;
    while (!s3.requests.slice(from).some((r) => r.method === 'DELETE' && r.path === key && r.query.has('uploadId')) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(
      s3.requests
        .slice(from)
        .filter((r) => r.method === 'DELETE' && r.query.has('uploadId'))
        .map((r) => r.path),
    ).to.deep.equal([key]);
    expect(s3.requests.slice(from).some((r) => r.method === 'POST' && r.query.has('uploadId'))).to.equal(false); // never completed
  });

  it('refuses a wrong secret: check says SignatureDoesNotMatch without the secret, and uploads fail', async () => {
    const wrongSecret = `wrong-${randomBytes(12).toString('hex')}`;
    const store = s3Store({ ...settings, secretAccessKey: wrongSecret });
    const result = await store.check();
    expect(result.connected).to.equal(false);
    expect(result.detail).to.match(/^SignatureDoesNotMatch: /);
    expect(result.detail).not.to.include(wrongSecret);
    expect(result.detail).not.to.include(s3.secretAccessKey);
    const err = await store.upload('svc_4/refused.dump', small, 3000).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err?.message).to.match(/SignatureDoesNotMatch/);
    expect(err?.message).not.to.include(wrongSecret);
    const gone = await s3Store(settings)
      .download('svc_4/refused.dump')
      .catch((e: unknown) => e as Error);
    expect((gone as Error).message).to.match(/NoSuchKey/);
  });

  it('refuses an unknown access key id with InvalidAccessKeyId', async () => {
    const result = await s3Store({ ...settings, accessKeyId: 'AKNOBODY' }).check();
    expect(result.connected).to.equal(false);
    expect(result.detail).to.match(/^InvalidAccessKeyId: /);
  });

  it('reports a bucket that does not exist as NoSuchBucket', async () => {
    const result = await s3Store({ ...settings, bucket: 'no-such-bucket' }).check();
    expect(result.connected).to.equal(false);
    expect(result.detail).to.match(/^NoSuchBucket: /);
  });

  it('fails within seconds when nothing listens at the endpoint', async () => {
    const port = await closedPort();
    const store = s3Store({ ...settings, endpoint: `http://127.0.0.1:${port}` });
    let started = Date.now();
    const result = await store.check();
    expect(Date.now() - started).to.be.below(5_000);
    expect(result.connected).to.equal(false);
    expect(result.detail).to.match(new RegExp(`cannot reach http://127\\.0\\.0\\.1:${port}.*ECONNREFUSED`));
    started = Date.now();
    const err = await store.upload('svc_5/x.dump', small, 3000).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(Date.now() - started).to.be.below(5_000);
    expect(err?.message).to.match(/ECONNREFUSED/);
  });
});
