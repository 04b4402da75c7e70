// A hostile redis import source answers DUMP with huge values. The daemon reads every answer of
// the source under the byte budget of database answers (16 MB): many big values are copied in
// batches bounded by bytes, with the daemon's memory growing by far less than what was copied,
// and one value over the cap ends the import `failed` with a message naming the key, the lock on
// the database released. The source is a tiny RESP server on this host's loopback: a key over
// selected projects may import only from another server (data-imports.test.ts), which a test here
// cannot have, so the server's owner starts these imports; the tenant's key then watches them.
// A real redis container is the target. (PostgreSQL imports run pg_dump | pg_restore inside the
// tenant's own container: the daemon holds only the last 4 KB of stderr, see docker/exec.ts.)
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { BerthClient } from '../../shared/client.js';
import type { Service } from '../../shared/types.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDatabaseImages } from '../helpers/databases.js';
import { docker, requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startHostileRedis, type HostileRedis } from '../helpers/hostile-redis.js';
import { until, waitForDeployment } from '../helpers/wait.js';
import { watchDaemon } from './data-watch.js';

const MB = 1024 * 1024;
/**
 * Far below the 300 MB the source sends (the old code held all 150 values of a batch at once);
 * the same bound as the capped database answers (data-result-sizes.test.ts).
 */
const RSS_GROWTH_MAX = 160 * MB;

describe('hostile redis import source: answers are read under the byte budget', function () {
  this.timeout(300_000);
  let t: TestDaemon;
  let tenant: BerthClient;
  let redis: Service;
  let target: Redis;
  const fakes: HostileRedis[] = [];

  before(async function () {
    this.timeout(900_000);
    const images = requireDatabaseImages();
    requireDocker();
    t = await startTestDaemon({ ...images, BERTH_IMPORT_TIMEOUT: '120' });
    const projectId = (await t.admin.createProject({ name: uniq('import-budget') })).project.id;
    tenant = await t.clientWith('write', [projectId]);
    const { service } = await tenant.createService(projectId, { name: 'redis-db', repoFullName: 'database:redis' });
    const { deployment } = await tenant.deploy(service.id);
    const done = await waitForDeployment(tenant, service.id, deployment.id, ['running', 'failed'], 600_000);
    if (done.status !== 'running') throw new Error('redis did not deploy');
    redis = (await tenant.overview(service.id)).service;
    const password = docker('inspect', '-f', '{{range .Config.Env}}{{println .}}{{end}}', done.containerName!)
      .split('\n')
      .find((l) => l.startsWith('REDIS_PASSWORD='))!
      .slice('REDIS_PASSWORD='.length);
    target = new Redis({ host: '127.0.0.1', port: redis.hostPort!, password, lazyConnect: true });
    await target.connect();
  });
  after(async () => {
    target?.disconnect();
    for (const f of fakes) await f.close();
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
  });

  async function importFrom(fake: HostileRedis) {
    global.gc?.();
    const watch = watchDaemon(t.anonymous);
    const { result } = await t.admin.importFrom(redis.id, 'redis-url', `redis://127.0.0.1:${fake.port}/0`);
    const done = await until('the import to end', async () => (await tenant.listImports(redis.id)).imports.find((i) => i.id === result.id && i.status !== 'running'), 240_000, 200);
    const seen = await watch.stop();
    return { done, rssGrowth: seen.rssGrowth, slowestHealthMs: seen.slowestHealthMs };
  }

  it('copies 150 values of 2 MB (300 MB) in batches bounded by bytes, the daemon growing by far less', async () => {
    // a real DUMP payload (incompressible), served 150 times by the hostile source
    await target.set('seed', randomBytes(2 * MB));
    const payload = (await target.dumpBuffer('seed'))!;
    await target.del('seed');
    const keys = new Map<string, Buffer>();
    for (let i = 0; i < 150; i++) keys.set(`big:${i}`, payload);
    const fake = await startHostileRedis(keys);
    fakes.push(fake);
    const { done, rssGrowth, slowestHealthMs } = await importFrom(fake);
    expect(rssGrowth, 'daemon RSS growth (bytes)').to.be.below(RSS_GROWTH_MAX);
    expect(done.status, JSON.stringify(done.log)).to.equal('succeeded');
    // the daemon keeps answering (2 s: these machines' two cores are shared with other suites)
    expect(slowestHealthMs, 'slowest /api/health answer (ms)').to.be.below(2000);
    expect(await target.exists([...keys.keys()])).to.equal(150);
    expect(await target.strlen('big:149')).to.equal(2 * MB);
    await target.flushall();
  });

  it('one value over the 16 MB cap fails the import cleanly, naming the key, and frees the database', async () => {
    const keys = new Map<string, Buffer>([['huge-value', Buffer.alloc(40 * MB, 7)]]);
    const fake = await startHostileRedis(keys);
    fakes.push(fake);
    const { done, rssGrowth } = await importFrom(fake);
    expect(rssGrowth, 'daemon RSS growth (bytes)').to.be.below(RSS_GROWTH_MAX);
    expect(done.status).to.equal('failed');
    expect(done.error).to.match(/"huge-value" in database 0 is over 16 MB/);
    // the busy lock is free again: the tenant's next import starts
    const again = await t.admin.importFrom(redis.id, 'redis-url', `redis://127.0.0.1:${fake.port}/0`);
    expect(again.result.status).to.equal('running');
    await until('the second import to end', async () => (await tenant.listImports(redis.id)).imports.every((i) => i.status !== 'running'), 240_000, 200);
  });
});
