// A hostile tenant asks its own databases for answers far bigger than the daemon should hold:
// hundreds of 1 MB rows (under the 1000-row cap), one row bigger than the byte cap, a redis
// string and a redis list of hundreds of MB. Each answer stops at the daemon's byte cap (16 MB)
// with `truncated: true`, the daemon's memory grows by far less than the answer, and
// /api/health keeps answering within 1 s. Real database containers, through the API.
import { expect } from 'chai';
import type { BerthClient } from '../../shared/client.js';
import type { Service } from '../../shared/types.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDatabaseImages } from '../helpers/databases.js';
import { uniq } from '../helpers/fixtures.js';
import { snapshotStore, storeSettled } from '../helpers/snapshot.js';
import { until, waitForDeployment } from '../helpers/wait.js';
import { Redis } from 'ioredis';
import { refusedWith, watchDaemon } from './data-watch.js';

/** Far below what the uncapped answers need (each is 200-400 MB as JSON). */
const RSS_GROWTH_MAX = 160 * 1024 * 1024;
const ENGINES = ['postgres', 'mysql', 'redis', 'clickhouse'] as const;

describe('hostile tenant: database answers are capped by bytes', function () {
  this.timeout(300_000);
  let t: TestDaemon;
  let hostile: BerthClient;
  const services = new Map<string, Service>();

  before(async function () {
    this.timeout(900_000);
    const images = requireDatabaseImages();
    t = await startTestDaemon({ ...images, BERTH_BUILD_CONCURRENCY: '4' });
    const projectId = (await t.admin.createProject({ name: uniq('sizes') })).project.id;
    hostile = await t.clientWith('write', [projectId]);
    await Promise.all(
      ENGINES.map(async (engine) => {
        const { service } = await hostile.createService(projectId, { name: `${engine}-db`, repoFullName: `database:${engine}` });
        const { deployment } = await hostile.deploy(service.id);
        const done = await waitForDeployment(hostile, service.id, deployment.id, ['running', 'failed'], 600_000);
        if (done.status !== 'running') throw new Error(`${engine} did not deploy`);
        services.set(engine, service);
      }),
    );
    // what a deploy writes after it reads `running` (its last log lines) lands before the first
    // comparison of the store, which would otherwise see it as a change made by a query
    await storeSettled(t.dataDir);
  });
  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
  });

  /** Runs `work` while watching the daemon; checks health latency and memory growth; changes nothing stored. */
  async function underWatch<T>(work: () => Promise<T>): Promise<T> {
    const before = await snapshotStore(t.dataDir);
    global.gc?.();
    const watch = watchDaemon(t.anonymous);
    let result: T;
    try {
      result = await work();
    } finally {
      const seen = await watch.stop();
      expect(seen.slowestHealthMs, 'slowest /api/health answer (ms)').to.be.below(1000);
      expect(seen.healthChecks).to.be.greaterThan(0);
      expect(seen.rssGrowth, 'daemon RSS growth (bytes)').to.be.below(RSS_GROWTH_MAX);
    }
    expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
    return result;
  }

  it('postgres: 400 rows of 1 MB stop at the cap, truncated', async () => {
    const res = await underWatch(() => hostile.databaseQuery(services.get('postgres')!.id, "SELECT repeat('x', 1000000) AS big FROM generate_series(1, 400)"));
    expect(res.truncated).to.equal(true);
    expect(res.rows.length).to.be.within(1, 17);
    expect(JSON.stringify(res.rows).length).to.be.below(17 * 1024 * 1024);
  });

  it('postgres: one row bigger than the cap answers no rows, truncated, and the next query works', async () => {
    const id = services.get('postgres')!.id;
    const res = await underWatch(() => hostile.databaseQuery(id, "SELECT repeat('x', 40000000) AS big FROM generate_series(1, 1000)"));
    expect(res).to.deep.include({ rows: [], truncated: true });
    expect(res.columns).to.deep.equal([{ name: 'big', type: 'text' }]);
    expect((await hostile.databaseQuery(id, 'SELECT 1 AS one')).rows).to.deep.equal([{ one: 1 }]);
    // the server stopped the statement (its backend ended with the cut connection)
    await until(
      'the statement to stop on the server',
      async () => {
        const { rows } = await hostile.databaseQuery(id, "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE '%40000000%' AND pid <> pg_backend_pid()");
        return rows[0]!['n'] === 0;
      },
      15_000,
      250,
    );
  });

  it('postgres: a row page of 1 MB rows stops at the cap, truncated', async () => {
    const id = services.get('postgres')!.id;
    await hostile.databaseQuery(id, "CREATE TABLE big AS SELECT g AS id, repeat('y', 1000000) AS v FROM generate_series(1, 300) g");
    await hostile.databaseQuery(id, 'ALTER TABLE big ADD PRIMARY KEY (id)');
    const page = await underWatch(() => hostile.databaseRows(id, { table: 'public.big', limit: 300 }));
    expect(page.truncated).to.equal(true);
    expect(page.total).to.equal(300);
    expect(page.rows.length).to.be.within(1, 17);
    expect(page.rows[0]!['id']).to.equal(1);
    // the cursor points after the last row that fitted: the next page goes on from there
    const next = await underWatch(() => hostile.databaseRows(id, { table: 'public.big', limit: 300, after: page.nextCursor! }));
    expect(next.rows[0]!['id']).to.equal(page.rows.length + 1);
  });

  it('mysql: 400 rows of 1 MB stop at the cap, truncated', async () => {
    const sql = "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 400) SELECT n, REPEAT('x', 1000000) AS big FROM s";
    const res = await underWatch(() => hostile.databaseQuery(services.get('mysql')!.id, sql));
    expect(res.truncated).to.equal(true);
    expect(res.rows.length).to.be.within(1, 17);
    expect(res.rows[0]!['n']).to.equal(1);
    // the server stopped the statement (it failed writing to the cut connection)
    await until(
      'the statement to stop on the server',
      async () => {
        const { rows } = await hostile.databaseQuery(services.get('mysql')!.id, "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE '%REPEAT(%' AND ID <> CONNECTION_ID()");
        return rows[0]!['n'] === 0;
      },
      15_000,
      250,
    );
  });

  it('mysql: a row page of 1 MB rows stops at the cap, truncated', async () => {
    const id = services.get('mysql')!.id;
    await hostile.databaseQuery(id, 'CREATE TABLE big (id INT PRIMARY KEY, v LONGTEXT)');
    await hostile.databaseQuery(id, "INSERT INTO big WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 300) SELECT n, REPEAT('y', 1000000) FROM s");
    const table = (await hostile.databaseTables(id)).tables.find((x) => x.name === 'big')!.id;
    const page = await underWatch(() => hostile.databaseRows(id, { table, limit: 300 }));
    expect(page.truncated).to.equal(true);
    expect(page.rows.length).to.be.within(1, 17);
    const next = await underWatch(() => hostile.databaseRows(id, { table, limit: 300, after: page.nextCursor! }));
    expect(next.rows[0]!['id']).to.equal(page.rows.length + 1);
    expect((await hostile.databaseQuery(id, 'SELECT 1 AS one')).rows).to.deep.equal([{ one: 1 }]);
  });

  it('redis: GET and the page of a 200 MB string stop at the cap, truncated', async () => {
    const id = services.get('redis')!.id;
    await hostile.databaseQuery(id, 'SETRANGE huge 200000000 x');
    const res = await underWatch(() => hostile.databaseQuery(id, 'GET huge'));
    expect(res).to.deep.include({ rows: [], truncated: true });
    const page = await underWatch(() => hostile.databaseRows(id, { table: 'huge' }));
    expect(page).to.deep.include({ rows: [], truncated: true });
    expect((await hostile.databaseQuery(id, 'STRLEN huge')).rows).to.deep.equal([{ value: 200000001 }]);
  });

  it('redis: LRANGE k 0 -1 of a 20 MB list stops at the cap, truncated', async () => {
    const id = services.get('redis')!.id;
    const element = 'z'.repeat(45_000); // a statement is at most 100 000 characters
    for (let i = 0; i < 230; i++) await hostile.databaseQuery(id, `RPUSH long ${element} ${element}`);
    const res = await underWatch(() => hostile.databaseQuery(id, 'LRANGE long 0 -1'));
    expect(res).to.deep.include({ rows: [], truncated: true });
    const page = await underWatch(() => hostile.databaseRows(id, { table: 'long', limit: 500 }));
    expect(page).to.deep.include({ rows: [], truncated: true });
  });

  it('redis: listing keys whose names pass the cap answers 400 instead of reading them whole', async () => {
    const id = services.get('redis')!.id;
    const password = (await hostile.overview(id)).env.find((e) => e.key === 'REDIS_PASSWORD')!.value;
    // A statement is at most 100 000 characters: the long key names are written straight to the container's port.
    const direct = new Redis({ host: '127.0.0.1', port: services.get('redis')!.hostPort!, password, lazyConnect: true });
    try {
      await direct.connect();
      await direct.set(Buffer.alloc(9_000_000, 'k'), 'a');
      await direct.set(Buffer.alloc(9_000_000, 'm'), 'b');
    } finally {
      direct.disconnect();
    }
    const err = await underWatch(() => refusedWith(hostile.databaseTables(id)));
    expect(err.status).to.equal(400);
    expect(err.message).to.match(/key names .* more than 16 MB/);
  });

  it('clickhouse: 400 rows of 1 MB stop at the cap, truncated', async () => {
    const sql = "SELECT number, arrayStringConcat(arrayMap(x -> 'xxxxxxxxxx', range(100000))) AS big FROM system.numbers LIMIT 400";
    const res = await underWatch(() => hostile.databaseQuery(services.get('clickhouse')!.id, sql));
    expect(res.truncated).to.equal(true);
    expect(res.rows.length).to.be.below(17);
  });
});
