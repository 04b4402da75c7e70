// Each engine's backup tool against a real database container started from the stand-in images
// the way the daemon starts it (runContainer + databaseContainer: same command, data volume and
// environment contract): write data (unicode and binary values), dump through the tool, check the
// file's magic, change the data, restore, and find exactly the dumped data. Also: failures that must
// not pass for success (a container stopped mid-dump, an abort, garbage and truncated files) and the
// two imports (postgres URL, redis URL). MongoDB runs only when a MongoDB image is present.
import { expect } from 'chai';
import Docker from 'dockerode';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { execFileSync } from 'node:child_process';
import { Redis } from 'ioredis';
import type { DatabaseEngine } from '../../shared/types.js';
import { backupTool, databaseContainer } from '../../daemon/databases/engines.js';
import { importPostgresUrl } from '../../daemon/databases/postgres/import.js';
import { importRedisUrl } from '../../daemon/databases/redis/import.js';
import type { ToolContext } from '../../daemon/databases/backup-tool.js';
import { publishedPort, runContainer } from '../../daemon/docker/containers.js';
import { ENGINE_CAPABILITIES } from '../../shared/engines.js';
import { readConfig } from '../../daemon/config.js';
import { mongoImage, requireDatabaseImages } from '../helpers/databases.js';
import { docker } from '../helpers/docker.js';
import { until } from '../helpers/wait.js';

const api = new Docker();
const RUN = randomBytes(3).toString('hex');
const NETWORK = `berth-tooltest-${RUN}`;
const made = { containers: [] as string[], volumes: [] as string[] };
let dir = '';
let images: Record<string, string> = {};

interface Db {
  name: string;
  id: string;
  env: Record<string, string>;
  port: number | null;
}

async function startDb(engine: DatabaseEngine, env: Record<string, string>, image?: string): Promise<Db> {
  const spec = databaseContainer(engine, { logicalReplication: false, tlsDir: null });
  const name = `berth-tooltest-${RUN}-${engine}-${randomBytes(3).toString('hex')}`;
  const volume = `${name}-data`;
  made.containers.push(name);
  made.volumes.push(volume);
  const c = await runContainer(api, {
    name,
    image: image ?? images[`BERTH_IMAGE_${engine.toUpperCase()}`]!,
    env,
    labels: { 'dev.berth.test': 'engine-tools' },
    network: NETWORK,
    alias: name,
    internalPort: ENGINE_CAPABILITIES[engine].port,
    limits: readConfig({}).limits.database,
    volumes: [{ name: volume, target: spec.dataPath }],
    binds: spec.binds,
    ...(spec.entrypoint ? { entrypoint: spec.entrypoint } : {}),
    ...(spec.cmd ? { cmd: spec.cmd } : {}),
  });
  return { name, id: c.id, env, port: c.upstreamPort };
}

function context(db: Db, extra: Partial<ToolContext> = {}): ToolContext & { restarts: number } {
  const ctx = {
    docker: api,
    containerId: db.id,
    env: db.env,
    signal: new AbortController().signal,
    log: () => undefined,
    restarts: 0,
    restarted: async () => {
      ctx.restarts++;
    },
    ...extra,
  };
  return ctx;
}

/** Runs a client inside the container; the password goes in through -e (test containers only). */
function dexec(db: Db, env: Record<string, string>, ...cmd: string[]): string {
  const args = ['exec', ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]), db.name, ...cmd];
  return execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

const psql = (db: Db, sql: string) => dexec(db, { PGPASSWORD: db.env.POSTGRES_PASSWORD! }, 'psql', '-X', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1', '-U', db.env.POSTGRES_USER!, '-d', db.env.POSTGRES_DB!, '-Atc', sql);
const mariadb = (db: Db, sql: string) => dexec(db, { MYSQL_PWD: db.env.MYSQL_ROOT_PASSWORD! }, 'mariadb', '-h', '127.0.0.1', '-u', 'root', '--default-character-set=utf8mb4', '-N', '-B', '-e', sql);
const clickhouse = (db: Db, sql: string) =>
  dexec(db, {}, 'sh', '-c', 'exec clickhouse-client --host "$(hostname -i | cut -d" " -f1)" --user "$CLICKHOUSE_USER" --password "$CLICKHOUSE_PASSWORD" --multiquery --query "$1"', 'q', sql);

function tryOr<T>(fn: () => T): T | null {
  try {
    return fn();
  } catch {
    return null;
  }
}

async function dumpToFile(engine: DatabaseEngine, ctx: ToolContext, file: string): Promise<void> {
  const out = createWriteStream(file);
  try {
    await backupTool(engine).dump(ctx, out);
  } finally {
    out.end();
    await once(out, 'close');
  }
}

const restoreFrom = (engine: DatabaseEngine, ctx: ToolContext, file: string) => backupTool(engine).restore(ctx, createReadStream(file));

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}

const UNICODE = 'héllo wörld ✓ 日本語 🚀';

describe('engine backup tools (real containers)', function () {
  this.timeout(300_000);

  before(async function () {
    images = requireDatabaseImages();
    dir = mkdtempSync(join(tmpdir(), 'berth-tooltest-'));
    await api.createNetwork({ Name: NETWORK, Labels: { 'dev.berth.test': 'engine-tools' } });
  });

  after(async function () {
    for (const name of made.containers) await api.getContainer(name).remove({ force: true, v: true }).catch(() => undefined);
    for (const name of made.volumes) await api.getVolume(name).remove().catch(() => undefined);
    await api.getNetwork(NETWORK).remove().catch(() => undefined);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describe('postgres', function () {
    let db: Db;
    let source: Db;
    before(async function () {
      [db, source] = await Promise.all([
        startDb('postgres', { POSTGRES_USER: 'app', POSTGRES_PASSWORD: 'pw-\'"$`\\ target', POSTGRES_DB: 'app' }),
        startDb('postgres', { POSTGRES_USER: 'src', POSTGRES_PASSWORD: 'src-pw', POSTGRES_DB: 'srcdb' }),
      ]);
      for (const d of [db, source]) await until('postgres to accept TCP connections', async () => tryOr(() => psql(d, 'SELECT 1')) === '1', 90_000, 300);
      psql(db, `CREATE TABLE items (id int PRIMARY KEY, name text, data bytea); INSERT INTO items VALUES (1, '${UNICODE}', '\\x00ff10fe'::bytea), (2, 'two', NULL), (3, E'line\\nbreak\\ttab', '\\x'::bytea)`);
    });

    const snapshot = () => psql(db, "SELECT id, name, encode(data, 'hex') FROM items ORDER BY id");

    it('dumps a custom-format archive and restores exactly the dumped data', async function () {
      const before = snapshot();
      const file = join(dir, 'pg.dump');
      await dumpToFile('postgres', context(db), file);
      expect(statSync(file).size).to.be.greaterThan(0);
      expect(readFileSync(file).subarray(0, 5).toString()).to.equal('PGDMP');

      psql(db, "UPDATE items SET name = 'changed' WHERE id = 1; DELETE FROM items WHERE id = 2; CREATE TABLE later (x int); INSERT INTO items VALUES (9, 'new', NULL)");
      expect(snapshot()).to.not.equal(before);
      await restoreFrom('postgres', context(db), file);
      expect(snapshot()).to.equal(before);
      expect(snapshot()).to.contain(UNICODE);
    });

    it('refuses a garbage file before touching the data', async function () {
      const before = snapshot();
      const garbage = join(dir, 'garbage.dump');
      writeFileSync(garbage, 'this is not a dump at all\n');
      const err = await rejection(restoreFrom('postgres', context(db), garbage));
      expect(err.message).to.match(/not a pg_dump custom-format archive/);
      const empty = join(dir, 'empty.dump');
      writeFileSync(empty, '');
      expect((await rejection(restoreFrom('postgres', context(db), empty))).message).to.match(/empty/);
      expect(snapshot()).to.equal(before);
    });

    it('fails a truncated dump in pg_restore and leaves the data unchanged (one transaction)', async function () {
      psql(db, "CREATE TABLE filler AS SELECT g, md5(g::text) AS s FROM generate_series(1, 20000) g");
      const file = join(dir, 'pg-full.dump');
      await dumpToFile('postgres', context(db), file);
      const whole = readFileSync(file);
      const cut = join(dir, 'pg-cut.dump');
      writeFileSync(cut, whole.subarray(0, Math.floor(whole.length * 0.6)));
      psql(db, "UPDATE items SET name = 'after the dump' WHERE id = 1");
      const before = snapshot();
      const err = await rejection(restoreFrom('postgres', context(db), cut));
      expect(err.message).to.match(/^pg_restore exited with code [1-9]/);
      expect(snapshot()).to.equal(before);
    });

    it('imports another database through a URL on the docker network', async function () {
      psql(source, `CREATE TABLE imported (id int PRIMARY KEY, label text, payload bytea); INSERT INTO imported VALUES (1, '${UNICODE}', '\\xdeadbeef'), (2, 'b', NULL)`);
      const url = `postgresql://src:src-pw@${source.name}:5432/srcdb`;
      const lines: string[] = [];
      await importPostgresUrl(context(db, { log: (l) => lines.push(l) }), url);
      expect(psql(db, "SELECT id, label, encode(payload, 'hex') FROM imported ORDER BY id")).to.equal(`1|${UNICODE}|deadbeef\n2|b|`);
      expect(lines.join('\n')).to.not.contain('src-pw');
    });

    it('fails an import whose source refuses the login, without changing the target', async function () {
      const before = snapshot();
      const err = await rejection(importPostgresUrl(context(db), `postgresql://src:wrong@${source.name}:5432/srcdb`));
      expect(err.message).to.match(/pg_dump \(source\) exited with code/);
      expect(err.message).to.match(/password authentication failed/);
      expect(snapshot()).to.equal(before);
    });

    describe('a long dump', function () {
      before(function () {
        // ~250 MB of poorly compressible text: pg_dump needs several seconds for it.
        this.timeout(120_000);
        psql(source, "CREATE TABLE big AS SELECT g, md5(g::text) || md5((g * 7)::text) || md5((g * 13)::text) AS s FROM generate_series(1, 2500000) g");
      });

      it('stops pg_dump in the container when the signal aborts', async function () {
        const ac = new AbortController();
        const file = join(dir, 'aborted.dump');
        // rejection() attaches its handler now: the dump must not reject unobserved while we wait
        const failing = rejection(dumpToFile('postgres', context(source, { signal: ac.signal }), file));
        await until('the dump to start writing', async () => tryOr(() => statSync(file).size > 100_000), 30_000, 50);
        ac.abort();
        const err = await failing;
        expect(err.name).to.equal('AbortError');
        await until('pg_dump to be gone from the container', async () => !docker('top', source.name).includes('pg_dump'), 10_000, 200);
      });

      it('rejects when the container stops in the middle of the dump', async function () {
        const file = join(dir, 'stopped.dump');
        const failing = rejection(dumpToFile('postgres', context(source), file));
        await until('the dump to start writing', async () => tryOr(() => statSync(file).size > 100_000), 30_000, 50);
        await api.getContainer(source.id).stop({ t: 1 });
        const err = await failing;
        expect(err.message).to.match(/^pg_dump (exited with code|ended without an exit code)/);
      });
    });
  });

  describe('mysql', function () {
    let db: Db;
    before(async function () {
      db = await startDb('mysql', { MYSQL_DATABASE: 'app', MYSQL_USER: 'app', MYSQL_PASSWORD: 'app-pw', MYSQL_ROOT_PASSWORD: "root-'pw\"$" });
      await until('mariadb to accept TCP connections', async () => tryOr(() => mariadb(db, 'SELECT 1')) === '1', 120_000, 500);
      mariadb(db, `CREATE TABLE app.items (id INT PRIMARY KEY, name VARCHAR(100), data BLOB) DEFAULT CHARSET=utf8mb4; INSERT INTO app.items VALUES (1, '${UNICODE}', UNHEX('00FF10FE')), (2, 'two', NULL), (3, 'x', UNHEX(''))`);
    });

    const snapshot = () => mariadb(db, 'SELECT id, name, HEX(data) FROM app.items ORDER BY id');

    it('dumps SQL with the completion trailer and restores exactly the dumped data', async function () {
      const before = snapshot();
      expect(before).to.contain(UNICODE);
      const file = join(dir, 'my.sql');
      await dumpToFile('mysql', context(db), file);
      const text = readFileSync(file, 'utf8');
      expect(text).to.match(/^(\/\*M!999999\\- enable the sandbox mode \*\/ ?\n)?-- (MySQL|MariaDB) dump/);
      expect(text.trimEnd()).to.match(/-- Dump completed/);

      mariadb(db, "UPDATE app.items SET name = 'changed' WHERE id = 1; DELETE FROM app.items WHERE id = 2; CREATE TABLE app.later (x INT)");
      await restoreFrom('mysql', context(db), file);
      expect(snapshot()).to.equal(before);
      expect(mariadb(db, "SHOW TABLES FROM app LIKE 'later'")).to.equal('');
    });

    it('refuses a file that is not a mysqldump dump', async function () {
      const before = snapshot();
      const garbage = join(dir, 'garbage.sql');
      writeFileSync(garbage, 'DROP DATABASE app;\n');
      expect((await rejection(restoreFrom('mysql', context(db), garbage))).message).to.match(/not a mysqldump SQL dump/);
      expect(snapshot()).to.equal(before);
    });
  });

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

      const file = join(dir, 'redis.rdb');
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

      const port = (await publishedPort(api, db.id, '6379/tcp'))!;
      client = quiet(new Redis({ host: '127.0.0.1', port, password, lazyConnect: true }));
      await client.connect();
      const after = await snapshot(client);
      expect(after.ttl).to.be.within(3_000_000, 3_600_000);
      expect({ ...after, ttl: 0 }).to.deep.equal({ ...before, ttl: 0 });

      // The restored data is now the AOF's base: a plain restart keeps it.
      client.disconnect();
      docker('restart', db.name);
      await until('redis to answer PING', async () => tryOr(() => dexec(db, { REDISCLI_AUTH: password }, 'redis-cli', 'ping')) === 'PONG', 30_000);
      client = quiet(new Redis({ host: '127.0.0.1', port: (await publishedPort(api, db.id, '6379/tcp'))!, password, lazyConnect: true }));
      await client.connect();
      expect(await client.get('str')).to.equal(UNICODE);
      expect((await client.getBuffer('bin'))?.toString('hex')).to.equal(binary.toString('hex'));
      expect(docker('exec', db.name, 'ls', '/data')).to.not.match(/berth-restore/);
    });

    it('refuses a file that is not an RDB without stopping the container', async function () {
      const garbage = join(dir, 'garbage.rdb');
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
      const result = await importRedisUrl(`redis://default:source-pw@127.0.0.1:${source.port}`, null, { host: '127.0.0.1', port: (await publishedPort(api, db.id, '6379/tcp'))!, password }, (l) => lines.push(l), new AbortController().signal);
      expect(result.keys).to.equal(6);
      expect(lines.join('\n')).to.not.contain('source-pw');

      expect(await client.get('s0')).to.equal(UNICODE);
      expect(await client.hgetall('h0')).to.deep.equal({ f: 'v', g: UNICODE });
      expect((await client.getBuffer(Buffer.from([0xff, 0x00, 0x41])))?.toString('hex')).to.equal(binary.toString('hex'));
      expect(await client.pttl('t0')).to.be.within(500_000, 600_000);
      expect(await client.pttl('s0')).to.equal(-1);
      const db3 = new Redis({ host: '127.0.0.1', port: (await publishedPort(api, db.id, '6379/tcp'))!, password, db: 3, lazyConnect: true });
      await db3.connect();
      try {
        expect(await db3.get('s3')).to.equal('in db 3');
        expect(await db3.pttl('t3')).to.be.within(800_000, 900_000);
      } finally {
        db3.disconnect();
      }
    });
  });

  describe('clickhouse', function () {
    let db: Db;
    before(async function () {
      db = await startDb('clickhouse', { CLICKHOUSE_DB: 'app', CLICKHOUSE_USER: 'app', CLICKHOUSE_PASSWORD: 'ch <pw> & "q"', CLICKHOUSE_DEFAULT_ACCESS_MANAGEMENT: '1' });
      await until('clickhouse to answer on its network address', async () => tryOr(() => clickhouse(db, "SELECT count() FROM system.databases WHERE name = 'app'")) === '1', 120_000, 500);
      clickhouse(
        db,
        [
          'CREATE TABLE app.events (id UInt32, s String, n Nullable(String), d Date) ENGINE = MergeTree ORDER BY id',
          `INSERT INTO app.events VALUES (1, '${UNICODE}', NULL, '2024-01-02'), (2, unhex('00FF10FE'), 'x', '2024-02-03')`,
          'INSERT INTO app.events SELECT number + 10, toString(number), NULL, today() FROM system.numbers LIMIT 50000',
          'CREATE TABLE app.empty (x UInt8) ENGINE = Log',
          'CREATE MATERIALIZED VIEW app.lengths ENGINE = MergeTree ORDER BY id AS SELECT id, length(s) AS len FROM app.events',
          'INSERT INTO app.events VALUES (3, \'three\', NULL, \'2024-03-04\')',
          'CREATE VIEW app.small AS SELECT id FROM app.events WHERE id < 10',
        ].join(';\n'),
      );
    });

    const snapshot = () =>
      [
        'SELECT id, hex(s), n, d FROM app.events ORDER BY id LIMIT 5',
        'SELECT count(), sum(id) FROM app.events',
        'SELECT count(), sum(id), sum(len) FROM app.lengths',
        'SELECT id FROM app.small ORDER BY id',
        'SELECT count() FROM app.empty',
      ]
        .map((sql) => tryOr(() => clickhouse(db, sql)) ?? 'missing')
        .join('\n--\n');

    it('dumps every table in the framed Native format and restores exactly the dumped data', async function () {
      const before = snapshot();
      expect(before).to.contain(Buffer.from(UNICODE).toString('hex').toUpperCase());
      const file = join(dir, 'ch.chnative');
      await dumpToFile('clickhouse', context(db), file);
      const bytes = readFileSync(file);
      expect(bytes.subarray(0, 26).toString()).to.equal('BERTH-CLICKHOUSE-NATIVE 1\n');
      expect(bytes.subarray(bytes.length - 40).toString()).to.match(/\{"end":true,"tables":4\}\n$/);

      clickhouse(db, "DROP TABLE app.small; INSERT INTO app.events VALUES (99, 'later', NULL, today()); DROP TABLE app.empty");
      expect(snapshot()).to.not.equal(before);
      await restoreFrom('clickhouse', context(db), file);
      expect(snapshot()).to.equal(before);
      expect(clickhouse(db, "SELECT count() FROM system.tables WHERE database = 'app' AND name LIKE '__berth_restore_%'")).to.equal('0');
    });

    it('changes nothing when the file is truncated', async function () {
      const before = snapshot();
      const whole = readFileSync(join(dir, 'ch.chnative'));
      const cut = join(dir, 'ch-cut.chnative');
      writeFileSync(cut, whole.subarray(0, Math.floor(whole.length * 0.7)));
      clickhouse(db, "INSERT INTO app.events VALUES (100, 'after the dump', NULL, today())");
      const changed = snapshot();
      expect(changed).to.not.equal(before);
      const err = await rejection(restoreFrom('clickhouse', context(db), cut));
      expect(err.message).to.match(/truncated.*|database was not changed/);
      expect(snapshot()).to.equal(changed);
      expect(clickhouse(db, "SELECT count() FROM system.tables WHERE database = 'app' AND name LIKE '__berth_restore_%'")).to.equal('0');
    });
  });

  describe('mongodb', function () {
    let db: Db;
    let image: string | null = null;
    before(async function () {
      image = mongoImage();
      if (!image) {
        // mocha reports the test as pending ("skipped" in the summary line)
        console.log('      skipped: no MongoDB image on this machine (none is packaged for Debian and no registry is reachable); the mongodb tool is compiled but not run here');
        this.skip();
      }
      db = await startDb('mongodb', { MONGO_INITDB_ROOT_USERNAME: 'app', MONGO_INITDB_ROOT_PASSWORD: 'mongo "pw"' }, image!);
      await until('mongod to answer', async () => tryOr(() => dexec(db, {}, 'mongosh', '--quiet', '-u', 'app', '-p', 'mongo "pw"', '--authenticationDatabase', 'admin', '--eval', 'db.runCommand({ping:1}).ok')) === '1', 120_000, 500);
    });

    it('dumps an archive and restores the dumped data', async function () {
      const mongosh = (js: string) => dexec(db, {}, 'mongosh', '--quiet', '-u', 'app', '-p', 'mongo "pw"', '--authenticationDatabase', 'admin', 'app', '--eval', js);
      mongosh(`db.items.insertMany([{ _id: 1, name: '${UNICODE}' }, { _id: 2, name: 'two' }])`);
      const before = mongosh('JSON.stringify(db.items.find().sort({_id: 1}).toArray())');
      const file = join(dir, 'mongo.archive');
      await dumpToFile('mongodb', context(db), file);
      expect([...readFileSync(file).subarray(0, 4)]).to.deep.equal([0x6d, 0xe2, 0x99, 0x81]);
      mongosh("db.items.deleteOne({ _id: 2 }); db.items.updateOne({ _id: 1 }, { $set: { name: 'changed' } })");
      await restoreFrom('mongodb', context(db), file);
      expect(mongosh('JSON.stringify(db.items.find().sort({_id: 1}).toArray())')).to.equal(before);
    });
  });
});
