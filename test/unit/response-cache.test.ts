// daemon/http/response-cache.ts on a real Koa server: a large answer (over 1 MB, like the
// 10,000-service list) lets go of its plain bytes once its gzip copy exists, and still answers a
// client without gzip with exactly the same bytes; a small one keeps both.
import { expect } from 'chai';
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import Koa from 'koa';
import { ResponseCache } from '../../daemon/http/response-cache.js';

function get(port: number, path: string, gzip: boolean): Promise<{ body: Buffer; encoding: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: gzip ? { 'accept-encoding': 'gzip' } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ body: Buffer.concat(chunks), encoding: res.headers['content-encoding'] }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('response cache: large answers keep only their gzip copy', () => {
  const cache = new ResponseCache(() => 'v1');
  const answers: Record<string, unknown> = {
    '/large': { items: Array.from({ length: 20_000 }, (_, i) => ({ id: `svc-${i}`, name: `service number ${i}`, port: 20_000 + i })) },
    '/small': { items: Array.from({ length: 200 }, (_, i) => ({ id: `svc-${i}` })) },
  };
  let server: Server;
  let port = 0;

  before(async () => {
    const app = new Koa();
    app.use(async (ctx, next) => {
      ctx.state.access = { key: { access: 'read', projects: 'all' } };
      await next();
    });
    app.use(cache.answerCached());
    app.use((ctx) => cache.respond(ctx, async () => answers[ctx.path]));
    server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    port = (server.address() as AddressInfo).port;
  });
  after(() => server.close());

  it('answers a large body plain, then gzipped, then drops the plain bytes and still answers plain clients byte for byte', async () => {
    const expected = Buffer.from(JSON.stringify(answers['/large']));
    expect(expected.length).to.be.greaterThan(1 << 20);
    const first = await get(port, '/large', false);
    expect(first.body.equals(expected)).to.equal(true);
    expect(cache.heldBytes()).to.equal(expected.length);
    const zipped = await get(port, '/large', true);
    expect(zipped.encoding).to.equal('gzip');
    expect(gunzipSync(zipped.body).equals(expected)).to.equal(true);
    // only the gzip copy is held now
    expect(cache.heldBytes()).to.equal(zipped.body.length);
    // many clients without gzip at once: every one gets the same bytes (one unzipped copy shared)
    const many = await Promise.all(Array.from({ length: 8 }, () => get(port, '/large', false)));
    for (const r of many) expect(r.body.equals(expected)).to.equal(true);
    for (const gzip of [false, true, false]) {
      const again = await get(port, '/large', gzip);
      expect(gzip ? gunzipSync(again.body).equals(expected) : again.body.equals(expected)).to.equal(true);
      expect(again.encoding).to.equal(gzip ? 'gzip' : undefined);
    }
  });

  it('keeps both copies of a small body', async () => {
    const expected = Buffer.from(JSON.stringify(answers['/small']));
    const before = cache.heldBytes();
    const zipped = await get(port, '/small', true);
    expect(cache.heldBytes() - before).to.equal(expected.length + zipped.body.length);
    expect((await get(port, '/small', false)).body.equals(expected)).to.equal(true);
  });
});
