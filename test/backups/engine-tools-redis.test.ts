// Redis's backup tool against a real container started from the stand-in image the way the daemon
// starts it: write data, dump an RDB through the tool, check the
// file's magic, change the data, restore, and find exactly the dumped data. Shared set-up:
// test/helpers/engine-tools.ts.
// Also: a file that is not an RDB is refused, and the import from a redis URL.
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { importRedisUrl } from '../../daemon/databases/redis/import.js';
import { publishedPort } from '../../daemon/docker/containers.js';
import { docker } from '../helpers/docker.js';
import { until } from '../helpers/wait.js';
import { context, dexec, dockerApi, dumpToFile, rejection, restoreFrom, startDb, toolBedHooks, toolDir, tryOr, UNICODE, type Db } from '../helpers/engine-tools.js';

describe('engine backup tools (real containers)', function () {
  this.timeout(300_000);
  toolBedHooks();

  describe('redis', function () {
    let db: Db;
    let source: Db;
    let client: Redis;
    const password = 'redis pw \'"$';
    before(async function () {
      [db, source] = await Promise.all([startDb('redis', { REDIS_PASSWORD: password }), startDb('redis', { REDIS_PASSWORD: 'source-pw' })]);
      for (const d of [db, source]) await until('redis to answer PING', async () => tryOr(() => dexec(d, { REDISCLI_AUTH: d.env.REDIS_PASSWORD! }, 'redis-cli', 'ping')) === 'PONG', 30_000);
      client = quiet(new Redis({ host: '127.0.0.1', port: db.port!, password, lazyConnect: true }));
      await client.connect();
    });
    // the restore restarts the container under the client: its reconnect errors are expected
    const quiet = (c: Redis) => c.on('error', () => undefined);
    after(() => client?.disconnect());

    const binary = Buffer.from([0, 1, 2, 0xfe, 0xff, 0x80, 10, 13]);
    async function snapshot(c: Redis) {
      return {
        keys: (await c.keys('*')).sort(),
        str: await c.get('str'),
        hash: await c.hgetall('hash'),
        bin: (await c.getBuffer('bin'))?.toString('hex'),
        ttl: await c.pttl('ttl'),
      };
    }

    it('dumps an RDB and restores it over the AOF, surviving a later restart', async function () {
      await client.set('str', UNICODE);
      await client.hset('hash', { a: '1', b: UNICODE });
      await client.set('bin', binary);
      await client.set('ttl', 'x', 'PX', 3_600_000);
      const before = await snapshot(client);

      const file = join(toolDir(), 'redis.rdb');
      await dumpToFile('redis', context(db), file);
      const rdb = readFileSync(file);
      expect(rdb.subarray(0, 5).toString()).to.equal('REDIS');
      expect(rdb[rdb.length - 9]).to.equal(0xff); // EOF opcode + checksum: the transfer's EOF mark is not in the file

      await client.set('str', 'changed');
      await client.del('hash', 'bin');
      await client.set('later', '1');
      const ctx = context(db);
      await restoreFrom('redis', ctx, file);
      expect(ctx.restarts).to.equal(1);
      client.disconnect();

      const port = (await publishedPort(dockerApi, db.id, '6379/tcp'))!;
      client = quiet(new Redis({ host: '127.0.0.1', port, password, lazyConnect: true }));
      await client.connect();
      const after = await snapshot(client);
      expect(after.ttl).to.be.within(3_000_000, 3_600_000);
      expect({ ...after, ttl: 0 }).to.deep.equal({ ...before, ttl: 0 });

      // The restored data is now the AOF's base: a plain restart keeps it.
      client.disconnect();
      docker('restart', db.name);
      await until('redis to answer PING', async () => tryOr(() => dexec(db, { REDISCLI_AUTH: password }, 'redis-cli', 'ping')) === 'PONG', 30_000);
      client = quiet(new Redis({ host: '127.0.0.1', port: (await publishedPort(dockerApi, db.id, '6379/tcp'))!, password, lazyConnect: true }));
      await client.connect();
      expect(await client.get('str')).to.equal(UNICODE);
      expect((await client.getBuffer('bin'))?.toString('hex')).to.equal(binary.toString('hex'));
      expect(docker('exec', db.name, 'ls', '/data')).to.not.match(/berth-restore/);
    });

    it('refuses a file that is not an RDB without stopping the container', async function () {
      const garbage = join(toolDir(), 'garbage.rdb');
      writeFileSync(garbage, 'not an rdb');
      const ctx = context(db);
      expect((await rejection(restoreFrom('redis', ctx, garbage))).message).to.match(/not an RDB file/);
      expect(ctx.restarts).to.equal(0);
      expect(await client.get('str')).to.equal(UNICODE);
    });

    it('imports every logical database of another redis with values and TTLs', async function () {
      const src = new Redis({ host: '127.0.0.1', port: source.port!, password: 'source-pw', lazyConnect: true });
      await src.connect();
      try {
        await src.set('s0', UNICODE);
        await src.hset('h0', { f: 'v', g: UNICODE });
        await src.set(Buffer.from([0xff, 0x00, 0x41]), binary);
        await src.set('t0', 'ttl', 'PX', 600_000);
        await src.select(3);
        await src.set('s3', 'in db 3');
        await src.set('t3', 'ttl3', 'PX', 900_000);
      } finally {
        src.disconnect();
      }
      const lines: string[] = [];
      const result = await importRedisUrl(
        `redis://default:source-pw@127.0.0.1:${source.port}`,
        null,
        { host: '127.0.0.1', port: (await publishedPort(dockerApi, db.id, '6379/tcp'))!, password },
        (l) => lines.push(l),
        new AbortController().signal,
      );
      expect(result.keys).to.equal(6);
      expect(lines.join('\n')).to.not.contain('source-pw');

      expect(await client.get('s0')).to.equal(UNICODE);
      expect(await client.hgetall('h0')).to.deep.equal({ f: 'v', g: UNICODE });
      expect((await client.getBuffer(Buffer.from([0xff, 0x00, 0x41])))?.toString('hex')).to.equal(binary.toString('hex'));
      expect(await client.pttl('t0')).to.be.within(500_000, 600_000);
      expect(await client.pttl('s0')).to.equal(-1);
      const db3 = new Redis({ host: '127.0.0.1', port: (await publishedPort(dockerApi, db.id, '6379/tcp'))!, password, db: 3, lazyConnect: true });
      await db3.connect();
      try {
        expect(await db3.get('s3')).to.equal('in db 3');
        expect(await db3.pttl('t3')).to.be.within(800_000, 900_000);
      } finally {
        db3.disconnect();
      }
    });
  });
});
