// store/paged-read.ts: whole-table reads a page at a time (node-sqlite3 builds a whole result in C++
// first, and glibc's heap kept it), on a real SQLite file with the store's one connection.
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readPaged } from '../../daemon/store/paged-read.js';
import { stringSharer } from '../../daemon/store/shared-strings.js';

const ROWS = 2500;
const PAGE = 1000;

describe('store: reads a page at a time', () => {
  let dir: string;
  let knex: Knex;
  const ordered = (db: Knex) =>
    db('items')
      .select('*')
      .orderBy([{ column: 'created_at' }, { column: 'id' }]);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'berth-paged-'));
    knex = knexFactory({ client: 'sqlite3', connection: { filename: join(dir, 'x.sqlite') }, useNullAsDefault: true, pool: { min: 1, max: 1 } });
    await knex.schema.createTable('items', (t) => {
      t.integer('id').primary();
      t.string('created_at').notNullable();
    });
    const rows = Array.from({ length: ROWS }, (_, i) => ({ id: i + 1, created_at: `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}Z` }));
    for (let i = 0; i < rows.length; i += 200) await knex('items').insert(rows.slice(i, i + 200));
  });
  afterEach(async () => {
    await knex.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('returns every row once, in the query order, across pages and in one page', async () => {
    const expected = (await ordered(knex)) as { id: number }[];
    const paged = await readPaged<{ id: number }>(knex, ordered, PAGE);
    expect(paged.map((r) => r.id)).to.deep.equal(expected.map((r) => r.id));
    const small = await readPaged<{ id: number }>(knex, (db) => ordered(db).where('id', '<=', 10), PAGE);
    expect(small.map((r) => r.id)).to.have.length(10);
    const exact = await readPaged<{ id: number }>(knex, (db) => ordered(db).where('id', '<=', PAGE), PAGE);
    expect(exact).to.have.length(PAGE);
  });

  it('is one snapshot: deletes racing the read neither skip a row nor repeat one', async () => {
    const all = ((await ordered(knex)) as { id: number }[]).map((r) => r.id);
    // the first rows in the read's order, deleted one statement at a time while it runs: with pages read
    // outside one transaction, a delete between two pages would shift the next page by one row
    const victims = all.slice(0, 40);
    const reading = readPaged<{ id: number }>(knex, ordered, PAGE);
    const deleting = (async () => {
      for (const id of victims) {
        await knex('items').where({ id }).del();
        await new Promise((r) => setImmediate(r));
      }
    })();
    const [rows] = await Promise.all([reading, deleting]);
    const ids = rows.map((r) => r.id);
    expect(new Set(ids).size, 'no row twice').to.equal(ids.length);
    // what is missing is a prefix of the victims (those deleted before the snapshot), nothing else
    const missing = all.filter((id) => !ids.includes(id));
    expect(missing).to.deep.equal(victims.slice(0, missing.length));
    expect(ids).to.deep.equal(all.slice(missing.length));
  });
});

describe('store: one copy of each repeated string within a read', () => {
  it('hands back the first copy of an equal string, and other values as they are', () => {
    const share = stringSharer();
    const a = ['rol', 'ling'].join('');
    const b = ['roll', 'ing'].join('');
    expect(share(a)).to.equal('rolling');
    expect(share(b)).to.equal(a);
    expect(share(null)).to.equal(null);
    expect(share(7)).to.equal(7);
  });
});
