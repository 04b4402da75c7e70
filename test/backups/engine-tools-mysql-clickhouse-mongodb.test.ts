// The MySQL, ClickHouse and MongoDB backup tools against real containers started from the
// stand-in images the way the daemon starts them: write data (unicode and binary values), dump
// through the tool, check the
// file's magic, change the data, restore, and find exactly the dumped data. Shared set-up:
// test/helpers/engine-tools.ts.
// Also: files that are not dumps, or truncated ones, change nothing. MongoDB runs only when a
// MongoDB image is present.
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mongoImage } from '../helpers/databases.js';
import { until } from '../helpers/wait.js';
import { clickhouse, context, dexec, dumpToFile, mariadb, rejection, restoreFrom, startDb, toolBedHooks, toolDir, tryOr, UNICODE, type Db } from '../helpers/engine-tools.js';

describe('engine backup tools (real containers)', function () {
  this.timeout(300_000);
  toolBedHooks();

  describe('mysql', function () {
    let db: Db;
    before(async function () {
      db = await startDb('mysql', { MYSQL_DATABASE: 'app', MYSQL_USER: 'app', MYSQL_PASSWORD: 'app-pw', MYSQL_ROOT_PASSWORD: 'root-\'pw"$' });
      await until('mariadb to accept TCP connections', async () => tryOr(() => mariadb(db, 'SELECT 1')) === '1', 120_000, 500);
      mariadb(
        db,
        `CREATE TABLE app.items (id INT PRIMARY KEY, name VARCHAR(100), data BLOB) DEFAULT CHARSET=utf8mb4; INSERT INTO app.items VALUES (1, '${UNICODE}', UNHEX('00FF10FE')), (2, 'two', NULL), (3, 'x', UNHEX(''))`,
      );
    });

    const snapshot = () => mariadb(db, 'SELECT id, name, HEX(data) FROM app.items ORDER BY id');

    it('dumps SQL with the completion trailer and restores exactly the dumped data', async function () {
      const before = snapshot();
      expect(before).to.contain(UNICODE);
      const file = join(toolDir(), 'my.sql');
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
      const garbage = join(toolDir(), 'garbage.sql');
      writeFileSync(garbage, 'DROP DATABASE app;\n');
      expect((await rejection(restoreFrom('mysql', context(db), garbage))).message).to.match(/not a mysqldump SQL dump/);
      expect(snapshot()).to.equal(before);
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
          "INSERT INTO app.events VALUES (3, 'three', NULL, '2024-03-04')",
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
      const file = join(toolDir(), 'ch.chnative');
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
      const whole = readFileSync(join(toolDir(), 'ch.chnative'));
      const cut = join(toolDir(), 'ch-cut.chnative');
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
      await until(
        'mongod to answer',
        async () => tryOr(() => dexec(db, {}, 'mongosh', '--quiet', '-u', 'app', '-p', 'mongo "pw"', '--authenticationDatabase', 'admin', '--eval', 'db.runCommand({ping:1}).ok')) === '1',
        120_000,
        500,
      );
    });

    it('dumps an archive and restores the dumped data', async function () {
      const mongosh = (js: string) => dexec(db, {}, 'mongosh', '--quiet', '-u', 'app', '-p', 'mongo "pw"', '--authenticationDatabase', 'admin', 'app', '--eval', js);
      mongosh(`db.items.insertMany([{ _id: 1, name: '${UNICODE}' }, { _id: 2, name: 'two' }])`);
      const before = mongosh('JSON.stringify(db.items.find().sort({_id: 1}).toArray())');
      const file = join(toolDir(), 'mongo.archive');
      await dumpToFile('mongodb', context(db), file);
      expect([...readFileSync(file).subarray(0, 4)]).to.deep.equal([0x6d, 0xe2, 0x99, 0x81]);
      mongosh("db.items.deleteOne({ _id: 2 }); db.items.updateOne({ _id: 1 }, { $set: { name: 'changed' } })");
      await restoreFrom('mongodb', context(db), file);
      expect(mongosh('JSON.stringify(db.items.find().sort({_id: 1}).toArray())')).to.equal(before);
    });
  });
});
