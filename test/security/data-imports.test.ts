// A hostile tenant's import URLs: options that make a driver open a unix socket or read files
// (`redis://x/?path=/var/run/docker.sock`, libpq's `?host=/path`, a host that decodes to a path)
// are refused with 400 and start nothing; and a source that accepts the connection and never
// answers ends the import `failed` after BERTH_IMPORT_TIMEOUT (3 s here) instead of holding the
// database's busy lock forever. A redis import connects from the daemon, on the host: a key over
// selected projects reaches there only its own projects' databases, never another tenant's host
// port or container. Real database containers, through the API.
import { expect } from 'chai';
import { createServer, type Server, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
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
  /** A second redis of the hostile tenant's project, and another tenant's redis. */
  let source: Service;
  let sourceContainer: string;
  let other: Service;
  let otherContainer: string;
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
    const otherProjectId = (await t.admin.createProject({ name: uniq('imports-other') })).project.id;
    const database = async (client: BerthClient, project: string, engine: 'redis' | 'postgres', name: string): Promise<[Service, string]> => {
      const { service } = await client.createService(project, { name, repoFullName: `database:${engine}` });
      const { deployment } = await client.deploy(service.id);
      const done = await waitForDeployment(client, service.id, deployment.id, ['running', 'failed'], 600_000);
      if (done.status !== 'running') throw new Error(`${engine} did not deploy`);
      return [(await client.overview(service.id)).service, done.containerName!];
    };
    [[redis], [postgres], [source, sourceContainer], [other, otherContainer]] = await Promise.all([
      database(hostile, projectId, 'redis', 'redis-db'),
      database(hostile, projectId, 'postgres', 'postgres-db'),
      database(hostile, projectId, 'redis', 'redis-source'),
      database(t.admin, otherProjectId, 'redis', 'other-tenant'),
    ]);
    // Accepts connections and never says a word.
    silent = createServer((socket) => {
      held.push(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  });
  const redisPassword = (container: string) =>
    docker('inspect', '-f', '{{range .Config.Env}}{{println .}}{{end}}', container)
      .split('\n')
      .find((l) => l.startsWith('REDIS_PASSWORD='))!
      .slice('REDIS_PASSWORD='.length);

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
    // A wrong password for the tenant's own database: the import is accepted, then fails quickly; the lock is released.
    const { result } = await hostile.importFrom(redis.id, 'redis-url', `redis://default:secret@127.0.0.1:${source.hostPort}/3`);
    const done = await until('the import to end', async () => (await hostile.listImports(redis.id)).imports.find((i) => i.id === result.id && i.status !== 'running'), 60_000, 200);
    expect(done.status).to.equal('failed');
    expect(done.sourceLabel).to.equal(`redis://***@127.0.0.1:${source.hostPort}/3`);
  });

  it("a redis import cannot reach this host or its containers: another tenant's database by its host port or bridge address, loopback in any spelling, link-local (refused, nothing changes)", async () => {
    const port = other.hostPort!;
    const password = redisPassword(otherContainer);
    await t.admin.databaseQuery(other.id, 'SET secret-of-another-tenant x');
    const bridge = docker('inspect', '-f', '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}', otherContainer);
    const lan = Object.values(networkInterfaces())
      .flat()
      .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
    const addresses = [
      `redis://default:${password}@127.0.0.1:${port}/0`,
      `redis://default:${password}@[::1]:${port}`,
      `redis://default:${password}@[::ffff:127.0.0.1]:${port}`,
      `redis://default:${password}@0.0.0.0:${port}`,
      `redis://default:${password}@${bridge}:6379`,
      ...(lan ? [`redis://default:${password}@${lan}:${port}`] : []),
      'redis://169.254.169.254:6379',
    ];
    // names are asked of DNS (not /etc/hosts, not inet_aton's spellings): loopback, or no answer at all
    const names = ['localhost', '0x7f.1', '2130706433'].map((host) => `redis://default:${password}@${host}:${port}`);
    const before = await snapshotStore(t.dataDir);
    for (const url of [...addresses, ...names]) {
      const err = await refusedWith(hostile.importFrom(redis.id, 'redis-url', url));
      if (addresses.includes(url)) {
        expect(err.status, url).to.equal(403);
        expect(err.message, url).to.match(/imports only from another server/);
      } else {
        expect(err.status, url).to.be.oneOf([400, 403]);
      }
      expect(err.message, 'the password is not echoed').not.to.include(password);
    }
    expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
    const exists = async () => (await t.admin.databaseQuery(redis.id, 'EXISTS secret-of-another-tenant')).rows;
    expect(await exists(), "the other tenant's key did not arrive").to.deep.equal([{ value: 0 }]);
    // the server's owner (a key over all projects) still may, e.g. to move a database between projects
    const { result } = await t.admin.importFrom(redis.id, 'redis-url', `redis://default:${password}@127.0.0.1:${port}/0`);
    const done = await until("the owner's import to end", async () => (await t.admin.listImports(redis.id)).imports.find((i) => i.id === result.id && i.status !== 'running'), 60_000, 200);
    expect(done.status, JSON.stringify(done.log)).to.equal('succeeded');
    expect(await exists()).to.deep.equal([{ value: 1 }]);
    await t.admin.databaseQuery(redis.id, 'DEL secret-of-another-tenant');
  });

  it("a redis import from a database of the key's own projects on this host's host port works", async () => {
    const password = redisPassword(sourceContainer);
    await hostile.databaseQuery(source.id, 'SET moved along');
    const { result } = await hostile.importFrom(redis.id, 'redis-url', `redis://default:${password}@127.0.0.1:${source.hostPort}/0`);
    const done = await until('the import to end', async () => (await hostile.listImports(redis.id)).imports.find((i) => i.id === result.id && i.status !== 'running'), 60_000, 200);
    expect(done.status, JSON.stringify(done.log)).to.equal('succeeded');
    expect((await hostile.databaseQuery(redis.id, 'GET moved')).rows).to.deep.equal([{ value: 'along' }]);
  });

  it('a redis source that accepts and never answers ends failed after the timeout, and frees the database', async () => {
    const port = (silent.address() as AddressInfo).port;
    const watch = watchDaemon(t.anonymous);
    // the silent server listens on this host's loopback, where only the server's owner may import from
    const { result } = await t.admin.importFrom(redis.id, 'redis-url', `redis://127.0.0.1:${port}/0`);
    const done = await until('the import to end', async () => (await hostile.listImports(redis.id)).imports.find((i) => i.id === result.id && i.status !== 'running'), 60_000, 200);
    expect((await watch.stop()).slowestHealthMs).to.be.below(1000);
    expect(done.status).to.equal('failed');
    expect(done.error).to.match(/did not finish within 3 s/);
    // the busy lock is free again: a backup of the same database starts
    const backup = await hostile.request('POST', `/api/services/${redis.id}/database/backups`, { storage: 'disk' });
    expect(backup.status, JSON.stringify(backup.body)).to.be.below(300);
    await until(
      'the backup to end',
      async () => {
        const list = await hostile.request<{ backups: { status: string }[] }>('GET', `/api/services/${redis.id}/database/backups`);
        return list.body.backups.every((b) => b.status !== 'running');
      },
      60_000,
      200,
    );
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
