// A hostile tenant's import URLs: options that make a driver open a unix socket or read files
// (`redis://x/?path=/var/run/docker.sock`, libpq's `?host=/path`, a host that decodes to a path)
// are refused with 400 and start nothing; and a source that accepts the connection and never
// answers ends the import `failed` after BERTH_IMPORT_TIMEOUT (3 s here) instead of holding the
// database's busy lock forever. Real database containers, through the API.
import { expect } from 'chai';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { BerthClient } from '../../shared/client.js';
import type { Service } from '../../shared/types.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDatabaseImages } from '../helpers/databases.js';
import { docker, requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { snapshotStore } from '../helpers/snapshot.js';
import { until, waitForDeployment } from '../helpers/wait.js';
import { refusedWith, watchDaemon } from './data-watch.js';

describe('hostile tenant: import URLs and stuck imports', function () {
  this.timeout(300_000);
  let t: TestDaemon;
  let hostile: BerthClient;
  let projectId: string;
  let redis: Service;
  let postgres: Service;
  let silent: Server;
  const held: Socket[] = [];
  const containers: string[] = [];

  before(async function () {
    this.timeout(900_000);
    const images = requireDatabaseImages();
    requireDocker();
    t = await startTestDaemon({ ...images, BERTH_BUILD_CONCURRENCY: '2', BERTH_IMPORT_TIMEOUT: '3' });
    projectId = (await t.admin.createProject({ name: uniq('imports') })).project.id;
    hostile = await t.clientWith('write', [projectId]);
    [redis, postgres] = await Promise.all(
      (['redis', 'postgres'] as const).map(async (engine) => {
        const { service } = await hostile.createService(projectId, { name: `${engine}-db`, repoFullName: `database:${engine}` });
        const { deployment } = await hostile.deploy(service.id);
        const done = await waitForDeployment(hostile, service.id, deployment.id, ['running', 'failed'], 600_000);
        if (done.status !== 'running') throw new Error(`${engine} did not deploy`);
        return service;
      }),
    ) as [Service, Service];
    // Accepts connections and never says a word.
    silent = createServer((socket) => {
      held.push(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    for (const s of held) s.destroy();
    silent?.close();
    for (const name of containers) {
      try {
        docker('rm', '-f', name);
      } catch {
        // already gone
      }
    }
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
  });

  it('refuses URL options, socket paths and anything but host:port/database with 400, changing nothing', async () => {
    const refused: [Service, 'redis-url' | 'postgres-url', string][] = [
      [redis, 'redis-url', 'redis://x/?path=/var/run/docker.sock'],
      [redis, 'redis-url', 'redis://:pw@127.0.0.1:6379/0?path=/var/run/docker.sock'],
      [redis, 'redis-url', 'redis://127.0.0.1:6379/?db=2&tls=true'],
      [redis, 'redis-url', 'redis://127.0.0.1:6379/0#x'],
      [redis, 'redis-url', 'redis://127.0.0.1:6379/var/run/docker.sock'],
      [redis, 'redis-url', 'redis://%2Fvar%2Frun%2Fdocker.sock/0'],
      [postgres, 'postgres-url', 'postgresql://u:p@db.example.com/app?host=/var/run/postgresql'],
      [postgres, 'postgres-url', 'postgresql://u@db.example.com/app?sslkey=/etc/shadow&sslmode=require'],
      [postgres, 'postgres-url', 'postgresql://u@db.example.com/app?service=x'],
      [postgres, 'postgres-url', 'postgresql://%2Fvar%2Frun%2Fpostgresql/app'],
      [postgres, 'postgres-url', 'postgresql://u@a.example.com,b.example.com/app'],
      [postgres, 'postgres-url', 'postgresql://u@db.example.com/app/x'],
    ];
    const before = await snapshotStore(t.dataDir);
    const watch = watchDaemon(t.anonymous);
    for (const [service, source, url] of refused) {
      const err = await refusedWith(hostile.importFrom(service.id, source, url));
      expect(err.status, url).to.equal(400);
    }
    expect((await watch.stop()).slowestHealthMs).to.be.below(1000);
    expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
    expect((await hostile.listImports(redis.id)).imports).to.have.length(0);
    expect((await hostile.listImports(postgres.id)).imports).to.have.length(0);
  });

  it('still accepts user, password, host, port and database', async () => {
    // Port 1 on loopback refuses: the import is accepted, then fails quickly; the lock is released.
    const { result } = await hostile.importFrom(redis.id, 'redis-url', 'redis://default:secret@127.0.0.1:1/3');
    const done = await until('the import to end', async () => (await hostile.listImports(redis.id)).imports.find((i) => i.id === result.id && i.status !== 'running'), 60_000, 200);
    expect(done.status).to.equal('failed');
    expect(done.sourceLabel).to.equal('redis://***@127.0.0.1:1/3');
  });

  it('a redis source that accepts and never answers ends failed after the timeout, and frees the database', async () => {
    const port = (silent.address() as AddressInfo).port;
    const watch = watchDaemon(t.anonymous);
    const { result } = await hostile.importFrom(redis.id, 'redis-url', `redis://127.0.0.1:${port}/0`);
    const done = await until('the import to end', async () => (await hostile.listImports(redis.id)).imports.find((i) => i.id === result.id && i.status !== 'running'), 60_000, 200);
    expect((await watch.stop()).slowestHealthMs).to.be.below(1000);
    expect(done.status).to.equal('failed');
    expect(done.error).to.match(/did not finish within 3 s/);
    // the busy lock is free again: a backup of the same database starts
    const backup = await hostile.request('POST', `/api/services/${redis.id}/database/backups`, { storage: 'disk' });
    expect(backup.status, JSON.stringify(backup.body)).to.be.below(300);
    await until('the backup to end', async () => {
      const list = await hostile.request<{ backups: { status: string }[] }>('GET', `/api/services/${redis.id}/database/backups`);
      return list.body.backups.every((b) => b.status !== 'running');
    }, 60_000, 200);
  });

  it('a postgres source that accepts and never answers ends failed after the timeout, and frees the database', async () => {
    // pg_dump runs inside the database container: the silent server is a container on the project network.
    const name = uniq('berth-test-silent');
    containers.push(name);
    docker('run', '-d', '--name', name, '--network', `berth-${projectId}`, 'berth-test/busybox:latest', 'sh', '-c', 'sleep 3600 | nc -l -p 5432');
    const { result } = await hostile.importFrom(postgres.id, 'postgres-url', `postgresql://u:p@${name}:5432/app`);
    const done = await until('the import to end', async () => (await hostile.listImports(postgres.id)).imports.find((i) => i.id === result.id && i.status !== 'running'), 60_000, 200);
    expect(done.status).to.equal('failed');
    expect(done.error, JSON.stringify(done.log)).to.match(/did not finish within 3 s/);
    expect(JSON.stringify(done)).not.to.include(':p@');
    const again = await hostile.request('POST', `/api/services/${postgres.id}/database/import/postgres-url`, { sourceUrl: 'postgresql://u:p@127.0.0.1:1/app' });
    expect(again.status, JSON.stringify(again.body)).to.be.below(300);
    await until('the second import to end', async () => (await hostile.listImports(postgres.id)).imports.every((i) => i.status !== 'running'), 60_000, 200);
  });
});
