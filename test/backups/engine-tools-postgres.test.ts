// PostgreSQL's backup tool against a real database container started from the stand-in image the
// way the daemon starts it: write data (unicode and binary values), dump through the tool, check the
// file's magic, change the data, restore, and find exactly the dumped data. Shared set-up:
// test/helpers/engine-tools.ts.
// Also: failures that must not pass for success (a garbage and a truncated file, an abort and a
// container stopped mid-dump) and the import from a postgres URL.
import { expect } from 'chai';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importPostgresUrl } from '../../daemon/databases/postgres/import.js';
import { docker } from '../helpers/docker.js';
import { until } from '../helpers/wait.js';
import { context, dockerApi, dumpToFile, psql, rejection, restoreFrom, startDb, toolBedHooks, toolDir, tryOr, UNICODE, type Db } from '../helpers/engine-tools.js';

describe('engine backup tools (real containers)', function () {
  this.timeout(300_000);
  toolBedHooks();

  describe('postgres', function () {
    let db: Db;
    let source: Db;
    before(async function () {
      [db, source] = await Promise.all([
        startDb('postgres', { POSTGRES_USER: 'app', POSTGRES_PASSWORD: 'pw-\'"$`\\ target', POSTGRES_DB: 'app' }),
        startDb('postgres', { POSTGRES_USER: 'src', POSTGRES_PASSWORD: 'src-pw', POSTGRES_DB: 'srcdb' }),
      ]);
      for (const d of [db, source]) await until('postgres to accept TCP connections', async () => tryOr(() => psql(d, 'SELECT 1')) === '1', 90_000, 300);
      psql(
        db,
        `CREATE TABLE items (id int PRIMARY KEY, name text, data bytea); INSERT INTO items VALUES (1, '${UNICODE}', '\\x00ff10fe'::bytea), (2, 'two', NULL), (3, E'line\\nbreak\\ttab', '\\x'::bytea)`,
      );
    });

    const snapshot = () => psql(db, "SELECT id, name, encode(data, 'hex') FROM items ORDER BY id");

    it('dumps a custom-format archive and restores exactly the dumped data', async function () {
      const before = snapshot();
      const file = join(toolDir(), 'pg.dump');
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
      const garbage = join(toolDir(), 'garbage.dump');
      writeFileSync(garbage, 'this is not a dump at all\n');
      const err = await rejection(restoreFrom('postgres', context(db), garbage));
      expect(err.message).to.match(/not a pg_dump custom-format archive/);
      const empty = join(toolDir(), 'empty.dump');
      writeFileSync(empty, '');
      expect((await rejection(restoreFrom('postgres', context(db), empty))).message).to.match(/empty/);
      expect(snapshot()).to.equal(before);
    });

    it('fails a truncated dump in pg_restore and leaves the data unchanged (one transaction)', async function () {
      psql(db, 'CREATE TABLE filler AS SELECT g, md5(g::text) AS s FROM generate_series(1, 20000) g');
      const file = join(toolDir(), 'pg-full.dump');
      await dumpToFile('postgres', context(db), file);
      const whole = readFileSync(file);
      const cut = join(toolDir(), 'pg-cut.dump');
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
        psql(source, 'CREATE TABLE big AS SELECT g, md5(g::text) || md5((g * 7)::text) || md5((g * 13)::text) AS s FROM generate_series(1, 2500000) g');
      });

      it('stops pg_dump in the container when the signal aborts', async function () {
        const ac = new AbortController();
        const file = join(toolDir(), 'aborted.dump');
        // rejection() attaches its handler now: the dump must not reject unobserved while we wait
        const failing = rejection(dumpToFile('postgres', context(source, { signal: ac.signal }), file));
        await until('the dump to start writing', async () => tryOr(() => statSync(file).size > 100_000), 30_000, 50);
        ac.abort();
        const err = await failing;
        expect(err.name).to.equal('AbortError');
        await until('pg_dump to be gone from the container', async () => !docker('top', source.name).includes('pg_dump'), 10_000, 200);
      });

      it('rejects when the container stops in the middle of the dump', async function () {
        const file = join(toolDir(), 'stopped.dump');
        const failing = rejection(dumpToFile('postgres', context(source), file));
        await until('the dump to start writing', async () => tryOr(() => statSync(file).size > 100_000), 30_000, 50);
        await dockerApi.getContainer(source.id).stop({ t: 1 });
        const err = await failing;
        expect(err.message).to.match(/^pg_dump (exited with code|ended without an exit code)/);
      });
    });
  });
});
