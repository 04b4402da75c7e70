// One contract, every engine that runs here: database services deployed by the daemon on the real
// Docker Engine (stand-in images with the official images' contracts), then browsed and edited
// only through the HTTP API. MongoDB runs the same suite when a MongoDB image is present and is
// reported as skipped, with the reason, when none is.
import { expect } from 'chai';
import { ApiError, type BerthClient } from '../../shared/client.js';
import type { DbCell, DbRow, Service } from '../../shared/types.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDatabaseImages } from '../helpers/databases.js';
import { uniq } from '../helpers/fixtures.js';
import { waitForDeployment } from '../helpers/wait.js';
import { ENGINE_CASES } from './engine-cases.js';

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected the API to refuse the request');
}

function firstValue(rows: Record<string, DbCell>[]): DbCell | undefined {
  return Object.values(rows[0] ?? {})[0];
}

describe('database contract', function () {
  this.timeout(300_000);
  let t: TestDaemon;
  let reader: BerthClient;
  let projectId: string;
  const services = new Map<string, Service>();
  const deployFailures = new Map<string, string>();
  let images: Record<string, string>;

  before(async function () {
    this.timeout(1_200_000);
    images = requireDatabaseImages();
    t = await startTestDaemon({ ...images, BERTH_BUILD_CONCURRENCY: '6' });
    reader = await t.clientWith('read', 'all');
    projectId = (await t.admin.createProject({ name: uniq('dbs') })).project.id;
    // every engine deploys at once; each suite below waits for its own
    await Promise.all(
      ENGINE_CASES.filter((c) => images[`BERTH_IMAGE_${c.engine.toUpperCase()}`]).map(async (c) => {
        const { service } = await t.admin.createService(projectId, { name: `${c.engine}-db`, repoFullName: `database:${c.engine}` });
        services.set(c.engine, service);
        const { deployment } = await t.admin.deploy(service.id);
        const done = await waitForDeployment(t.admin, service.id, deployment.id, ['running', 'failed'], 600_000);
        if (done.status !== 'running') {
          const { logs } = await t.admin.deploymentLogs(deployment.id);
          deployFailures.set(c.engine, logs.map((l) => l.line).join('\n'));
          return;
        }
        for (const statement of [...c.setup, ...(c.composite?.setup ?? [])]) await t.admin.databaseQuery(service.id, statement);
      }),
    );
  });
  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
  });

  for (const c of ENGINE_CASES) {
    describe(c.engine, function () {
      let id: string;
      before(function () {
        if (!images[`BERTH_IMAGE_${c.engine.toUpperCase()}`]) {
          // mocha reports these tests as pending ("skipped" in the summary line)
          console.log(`      skipped: no ${c.engine} image on this machine (none is packaged for Debian and no registry is reachable); the adapter is production code, compiled but not run here`);
          this.skip();
        }
        const failure = deployFailures.get(c.engine);
        if (failure) throw new Error(`the ${c.engine} service did not deploy:\n${failure}`);
        id = services.get(c.engine)!.id;
      });

      it('inserts rows with every kind of value and answers with the primary key', async () => {
        for (const i of [1, 2, 3]) {
          const res = await t.admin.insertDatabaseRow(id, { table: c.table, values: c.row(i) });
          expect(res).to.include({ ok: true, table: c.table });
          expect(res.id).to.deep.equal(c.pk(i)[c.primary[0]!]);
        }
      });

      it('lists its tables, the strangely named one included, with row counts', async () => {
        const res = await reader.databaseTables(id);
        expect(res.engine).to.equal(c.engine);
        const items = res.tables.find((x) => x.id === c.table);
        expect(items, JSON.stringify(res.tables)).to.not.equal(undefined);
        expect(items!.rowCount).to.equal(3);
        expect(Object.keys(items!)).to.include.members(['id', 'name', 'schema', 'rowCount']);
        expect(res.tables.map((x) => x.id)).to.include(c.weirdTable);
      });

      it('reads pages with columns, primary flags and a total', async () => {
        const first = await reader.databaseRows(id, { table: c.table, limit: 2, offset: 0 });
        expect(first).to.include({ engine: c.engine, table: c.table, limit: 2, offset: 0, total: 3 });
        expect(first.rows).to.have.length(2);
        expect(first.columns.filter((col) => col.primary).map((col) => col.name)).to.deep.equal(c.primary);
        for (const col of Object.keys(c.row(1))) expect(first.columns.map((x) => x.name)).to.include(col);
        const second = await reader.databaseRows(id, { table: c.table, limit: 2, offset: 2 });
        expect(second.rows).to.have.length(1);
        const all = [...first.rows, ...second.rows];
        for (const i of [1, 2, 3]) {
          const row = all.find((r) => JSON.stringify(r[c.primary[0]!]) === JSON.stringify(c.pk(i)[c.primary[0]!]));
          expect(row, `row ${i} in ${JSON.stringify(all)}`).to.not.equal(undefined);
          expect(row).to.deep.include(c.readBack ? c.readBack(i) : c.row(i));
        }
      });

      it('walks a table by cursor: every row exactly once, in key order, and no cursor after the last page', async () => {
        const seen: DbRow[] = [];
        let after: string | undefined;
        for (let pages = 0; pages < 10; pages++) {
          const page = await reader.databaseRows(id, { table: c.table, limit: 2, ...(after ? { after } : {}) });
          expect(page.offset).to.equal(0);
          seen.push(...page.rows);
          if (page.nextCursor === null) break;
          expect(page.nextCursor).to.be.a('string');
          after = page.nextCursor;
        }
        expect(seen.map((r) => r[c.primary[0]!])).to.deep.equal([1, 2, 3].map((i) => c.pk(i)[c.primary[0]!]));
        // an offset page answers a cursor too, and the two ways agree
        const byOffset = await reader.databaseRows(id, { table: c.table, limit: 1, offset: 1 });
        expect(byOffset.rows.map((r) => r[c.primary[0]!])).to.deep.equal([c.pk(2)[c.primary[0]!]]);
        const rest = await reader.databaseRows(id, { table: c.table, limit: 5, after: byOffset.nextCursor! });
        expect(rest.rows.map((r) => r[c.primary[0]!])).to.deep.equal([c.pk(3)[c.primary[0]!]]);
        expect(rest.nextCursor).to.equal(null);
      });

      it('walks a table with a two-column key by cursor, in key order', async function () {
        if (!c.composite) this.skip();
        const { table, order } = c.composite!;
        const seen: DbRow[] = [];
        let after: string | undefined;
        for (let pages = 0; pages < 10; pages++) {
          const page = await reader.databaseRows(id, { table, limit: 2, ...(after ? { after } : {}) });
          seen.push(...page.rows);
          if (page.nextCursor === null) break;
          after = page.nextCursor;
        }
        const keys = Object.keys(order[0]!);
        expect(seen.map((r) => Object.fromEntries(keys.map((k) => [k, r[k]])))).to.deep.equal(order);
      });

      it('refuses a malformed cursor, or one of another table, with 400 invalid_cursor, and a cursor with an offset', async () => {
        const good = (await reader.databaseRows(id, { table: c.table, limit: 1 })).nextCursor!;
        const other = (await reader.databaseRows(id, { table: c.weirdTable, limit: 1 })).rows.length;
        expect(other).to.equal(1);
        const forged = (wire: unknown) => Buffer.from(JSON.stringify(wire)).toString('base64url');
        const bad = [
          'not a cursor',
          '%%%',
          good.slice(0, -3),
          forged([1, 2]),
          forged({ t: c.table, k: c.primary, v: [] }),
          forged({ t: c.table, k: ['nope"; DROP TABLE items; --'], v: [1] }),
          forged({ t: c.weirdTable, k: c.primary, v: ['x'] }),
          forged({ t: c.table, k: c.primary, v: [{ $bigint: 'twelve' }] }),
          forged({ t: c.table, k: c.primary, v: [{ $where: 'sleep(1000)' }] }),
          'A'.repeat(12_500),
        ];
        for (const after of bad) {
          const res = await reader.request('GET', `/api/services/${id}/database/rows?table=${encodeURIComponent(c.table)}&after=${encodeURIComponent(after)}`);
          expect(res.status, `${after.slice(0, 80)}: ${JSON.stringify(res.body)}`).to.equal(400);
        }
        // a real cursor of one table given for another table
        const elsewhere = await reader.request('GET', `/api/services/${id}/database/rows?table=${encodeURIComponent(c.weirdTable)}&after=${encodeURIComponent(good)}`);
        expect(elsewhere.status).to.equal(400);
        expect((elsewhere.body as { error: { code: string } }).error.code).to.equal('invalid_cursor');
        // a key value made to break out of a statement is a value: a page or a 400, never a 500
        const spliced = forged({ t: c.table, k: c.primary, v: ['1) OR 1=1; DROP TABLE items; --'] });
        const res = await reader.request('GET', `/api/services/${id}/database/rows?table=${encodeURIComponent(c.table)}&after=${encodeURIComponent(spliced)}`);
        expect([200, 400]).to.include(res.status);
        const both = await reader.request('GET', `/api/services/${id}/database/rows?table=${encodeURIComponent(c.table)}&offset=1&after=${encodeURIComponent(good)}`);
        expect(both.status).to.equal(400);
        expect((await reader.databaseRows(id, { table: c.table })).total).to.equal(3);
      });

      it('defaults the page size and refuses one above the maximum', async () => {
        expect((await reader.databaseRows(id, { table: c.table })).limit).to.equal(50);
        const err = await refusal(reader.databaseRows(id, { table: c.table, limit: 501 }));
        expect(err.status).to.equal(400);
      });

      it('runs a query and answers columns, rows and rowCount', async () => {
        const res = await t.admin.databaseQuery(id, c.count);
        expect(res.rowCount).to.be.at.least(1);
        expect(res.columns[0]).to.have.keys(['name', 'type']);
        expect(firstValue(res.rows)).to.equal(3);
      });

      it('answers an engine refusal with 400 and the engine message', async () => {
        const syntax = await refusal(t.admin.databaseQuery(id, c.syntaxError));
        expect(syntax.status).to.equal(400);
        expect(syntax.code).to.equal('database_error');
        expect(syntax.message.length).to.be.greaterThan(5);
        if (c.refusedWrite) {
          const refused = await refusal(t.admin.databaseQuery(id, c.refusedWrite));
          expect(refused.status).to.equal(400);
          expect(refused.code).to.equal('database_error');
        }
        expect(firstValue((await t.admin.databaseQuery(id, c.count)).rows)).to.equal(3);
      });

      it('updates a row by its primary key, and answers 404 for a key that matches nothing', async () => {
        await t.admin.updateDatabaseRow(id, { table: c.table, primaryKey: c.pk(2), values: c.patch });
        const { rows } = await reader.databaseRows(id, { table: c.table });
        const row = rows.find((r) => JSON.stringify(r[c.primary[0]!]) === JSON.stringify(c.pk(2)[c.primary[0]!]));
        expect(row).to.deep.include(c.patch);
        const missing = await refusal(t.admin.updateDatabaseRow(id, { table: c.table, primaryKey: c.pk(999), values: c.patch }));
        expect(missing.status).to.equal(404);
      });

      it('deletes a row by its primary key; a second delete answers 404', async () => {
        await t.admin.deleteDatabaseRow(id, { table: c.table, primaryKey: c.pk(3) });
        expect((await reader.databaseRows(id, { table: c.table })).total).to.equal(2);
        const again = await refusal(t.admin.deleteDatabaseRow(id, { table: c.table, primaryKey: c.pk(3) }));
        expect(again.status).to.equal(404);
      });

      it('treats a table named `x; DROP TABLE items` as a name, and refuses injection through names and keys', async () => {
        const weird = await reader.databaseRows(id, { table: c.weirdTable });
        expect(JSON.stringify(weird.rows)).to.include('still here');
        // a table id with a statement appended is just an unknown table
        const unknown = await refusal(reader.databaseRows(id, { table: `${c.table}; DROP TABLE items` }));
        expect(unknown.status).to.equal(404);
        // a primary-key value that would widen a spliced WHERE clause matches nothing
        const widened = await refusal(t.admin.updateDatabaseRow(id, { table: c.table, primaryKey: { [c.primary[0]!]: '1 OR 1=1' }, values: c.patch }));
        expect([400, 404]).to.include(widened.status);
        // a primary key naming a column that is not the key is refused
        const wrongKey = await refusal(t.admin.deleteDatabaseRow(id, { table: c.table, primaryKey: { ...c.pk(1), 'nope"; DROP TABLE items; --': 1 } }));
        expect(wrongKey.status).to.equal(400);
        if (c.fixedColumns) {
          const badColumn = await refusal(t.admin.insertDatabaseRow(id, { table: c.table, values: { ...c.row(7), 'name"; DROP TABLE items; --': 'x' } }));
          expect(badColumn.status).to.equal(400);
        }
        expect((await reader.databaseRows(id, { table: c.table })).total).to.equal(2);
        expect((await reader.databaseTables(id)).tables.map((x) => x.id)).to.include.members([c.table, c.weirdTable]);
      });

      it('refuses a malformed tagged value with 400 and writes nothing', async () => {
        const err = await refusal(t.admin.insertDatabaseRow(id, { table: c.table, values: { ...c.row(8), [Object.keys(c.patch)[0]!]: { $bigint: 'twelve' } } }));
        expect(err.status).to.equal(400);
        expect((await reader.databaseRows(id, { table: c.table })).total).to.equal(2);
      });

      it('lets a read key browse but not query or write', async () => {
        expect((await refusal(reader.databaseQuery(id, c.count))).status).to.equal(403);
        expect((await refusal(reader.insertDatabaseRow(id, { table: c.table, values: c.row(9) }))).status).to.equal(403);
        expect((await refusal(reader.deleteDatabaseRow(id, { table: c.table, primaryKey: c.pk(1) }))).status).to.equal(403);
      });
    });
  }

  describe('redis logical databases', function () {
    let id: string;
    before(function () {
      if (deployFailures.has('redis')) throw new Error(deployFailures.get('redis'));
      id = services.get('redis')!.id;
    });

    it('lists and reads the keys of the database asked for', async () => {
      await t.admin.databaseQuery(id, 'SET only-in-one here', { database: 1 });
      expect((await reader.databaseTables(id, { database: 1 })).tables.map((x) => x.id)).to.include('only-in-one');
      expect((await reader.databaseTables(id, { database: 0 })).tables.map((x) => x.id)).not.to.include('only-in-one');
      const page = await reader.databaseRows(id, { table: 'only-in-one', database: 1 });
      expect(JSON.stringify(page.rows)).to.include('here');
    });

    it('refuses a database parameter that is not a plain number in range', async () => {
      for (const bad of ['1; FLUSHALL', '-1', '99', '1.5']) {
        const res = await reader.request('GET', `/api/services/${id}/database/tables?database=${encodeURIComponent(bad)}`);
        expect(res.status, bad).to.equal(400);
      }
      expect((await reader.databaseTables(id)).tables.map((x) => x.id)).to.include('items');
    });

    it('refuses commands that would block, wipe or switch databases', async () => {
      for (const cmd of ['FLUSHALL', 'flushdb', 'SELECT 2', 'SHUTDOWN', 'BLPOP items 0', 'CONFIG SET dir /tmp']) {
        expect((await refusal(t.admin.databaseQuery(id, cmd))).status, cmd).to.equal(400);
      }
      expect((await reader.databaseTables(id)).tables.map((x) => x.id)).to.include('items');
    });
  });

  describe('bad input to the database endpoints', function () {
    it('answers 400 for malformed bodies and queries, and changes nothing', async () => {
      const id = services.get('postgres')!.id;
      const before = (await reader.databaseRows(id, { table: 'public.items' })).total;
      const cases: [string, string, unknown][] = [
        ['POST', 'query', { sql: 5 }],
        ['POST', 'query', { sql: '' }],
        ['POST', 'query', {}],
        ['POST', 'rows', { table: 'public.items', values: [1, 2] }],
        ['POST', 'rows', { table: 'public.items' }],
        ['POST', 'rows', { values: { id: 50 } }],
        ['PATCH', 'rows', { table: 'public.items', primaryKey: { id: 1 } }],
        ['PATCH', 'rows', { table: 'public.items', primaryKey: { id: 1 }, values: {} }],
        ['DELETE', 'rows', { table: 'public.items', primaryKey: 'id=1' }],
        ['DELETE', 'rows', { table: 'public.items', primaryKey: {} }],
      ];
      for (const [method, path, body] of cases) {
        const res = await t.admin.request(method, `/api/services/${id}/database/${path}`, body);
        expect(res.status, `${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`).to.equal(400);
      }
      for (const q of ['', '?table=', '?table=public.items&limit=0', '?table=public.items&limit=abc', '?table=public.items&offset=-1', '?table=public.items&table=x']) {
        const res = await reader.request('GET', `/api/services/${id}/database/rows${q}`);
        expect(res.status, q).to.equal(400);
      }
      expect((await reader.databaseRows(id, { table: 'public.items' })).total).to.equal(before);
    });
  });

  describe('database endpoints on services that cannot answer', function () {
    it('a service that is not a database answers 400; a database not deployed answers 409', async () => {
      const { service: web } = await t.admin.createService(projectId, { name: uniq('img'), dockerImage: 'berth-test/httpd:latest', internalPort: 8080 });
      expect((await refusal(reader.databaseTables(web.id))).status).to.equal(400);
      const { service: idle } = await t.admin.createService(projectId, { name: uniq('idle-db'), repoFullName: 'database:redis' });
      const err = await refusal(reader.databaseTables(idle.id));
      expect(err.status).to.equal(409);
      expect(err.code).to.equal('database_unavailable');
      expect((await refusal(reader.databaseTls(idle.id))).status).to.equal(400);
    });
  });
});
