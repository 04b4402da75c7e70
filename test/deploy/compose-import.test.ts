// A compose file imported on real Docker with stand-in images: an app + postgres + redis with a
// named volume and health checks is created, deployed in dependency order (databases first, a
// service_healthy dependent only after the app's health check passed by exec), and the app reaches
// its database and cache through the env references the import wrote. A dependency whose first
// deployment fails leaves its dependents undeployed, and the log says why.
import { expect } from 'chai';
import type { Deployment, Service } from '../../shared/types.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDatabaseImage } from '../helpers/databases.js';
import { requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { httpText } from '../helpers/wait.js';

// Double quotes only (the script is quoted for sh -c) and no `$` (Compose would interpolate it).
const APP_SCRIPT = `
const net = require("net"), http = require("http"), fs = require("fs");
const db = new URL(process.env.DATABASE_URL);
const reach = (host, port) => new Promise((ok, no) => { const s = net.connect(Number(port), host, () => { s.end(); ok(); }); s.on("error", no); });
const tryReach = async (host, port) => {
  for (let i = 0; i < 60; i++) { try { return await reach(host, port); } catch { await new Promise((r) => setTimeout(r, 1000)); } }
  throw new Error("cannot reach " + host + ":" + port);
};
Promise.all([tryReach(db.hostname, db.port), tryReach(process.env.CACHE_HOST, 6379)]).then(() => {
  fs.writeFileSync("/data/seen", db.hostname);
  http.createServer((q, r) => r.end("connected to " + db.hostname + ":" + db.port + "/" + db.pathname.slice(1) + " as " + db.username + " and " + process.env.CACHE_HOST + "\\n")).listen(8080);
});
`;

const COMPOSE = `
services:
  app:
    image: berth-test/node:latest
    command:
      - node
      - -e
      - |
${APP_SCRIPT.replace(/^/gm, '        ')}
    ports: ["8080:8080"]
    environment:
      DATABASE_URL: postgresql://app:\${DB_PASSWORD}@db:5432/appdb
      CACHE_HOST: cache
    volumes: [appdata:/data]
    depends_on:
      db: { condition: service_healthy }
      cache: { condition: service_started }
    healthcheck:
      test: ["CMD", "node", "-e", "require('fs').accessSync('/data/seen')"]
      interval: 1s
      retries: 60
  worker:
    image: berth-test/busybox:latest
    command: exec sleep 100000
    depends_on:
      app: { condition: service_healthy }
  db:
    image: postgres:16
    environment: { POSTGRES_USER: app, POSTGRES_PASSWORD: "\${DB_PASSWORD}", POSTGRES_DB: appdb }
    volumes: [dbdata:/var/lib/postgresql/data]
    healthcheck: { test: ["CMD-SHELL", "pg_isready -U app"], interval: 2s }
  cache:
    image: redis:7
volumes:
  appdata:
  dbdata:
`;

describe('compose import on Docker', function () {
  this.timeout(300_000);
  let t: TestDaemon;
  let projectId: string;

  before(async () => {
    requireDocker();
    t = await startTestDaemon({ BERTH_IMAGE_POSTGRES: requireDatabaseImage('postgres'), BERTH_IMAGE_REDIS: requireDatabaseImage('redis'), BERTH_HEALTH_TIMEOUT: '90' });
    projectId = (await t.admin.createProject({ name: uniq('compose-live') })).project.id;
  });
  after(async () => {
    if (projectId) await t?.admin.deleteProject(projectId).catch(() => undefined);
    await t?.stop();
  });

  const liveOf = async (service: Service): Promise<Deployment | undefined> => (await t.admin.overview(service.id)).deployments.find((d) => d.status === 'running');

  it('creates app + postgres + redis + worker, deploys them in dependency order, and the app reaches its database through the reference', async () => {
    const result = await t.admin.importCompose(projectId, { compose: COMPOSE, env: 'DB_PASSWORD=s3cret-pw\n' });
    expect(result.unsupported).to.deep.equal([]);
    expect(result.order).to.deep.equal(['db', 'cache', 'app', 'worker']);
    const byName = new Map(result.created!.map((s) => [s.name, s]));
    expect([...byName.keys()]).to.deep.equal(['db', 'cache', 'app', 'worker']);
    expect(byName.get('app')!.volumes.map((v) => v.name)).to.deep.equal(['appdata']);
    const appEnv = (await t.admin.overview(byName.get('app')!.id)).env;
    expect(appEnv.find((e) => e.key === 'DATABASE_URL')!.value).to.equal('${db.DATABASE_URL}');

    await t.daemon.core.compose.settled();
    const live = new Map<string, Deployment>();
    for (const [name, service] of byName) {
      const d = await liveOf(service);
      expect(d, `${name} is live:\n${t.logs.join('\n')}`).to.not.equal(undefined);
      live.set(name, d!);
    }
    // each first deployment was queued only once what it depends on was live (and the app healthy)
    const queued = (name: string) => live.get(name)!.createdAt;
    const wentLive = (name: string) => live.get(name)!.finishedAt ?? live.get(name)!.createdAt;
    expect(queued('app') >= wentLive('db')).to.equal(true);
    expect(queued('app') >= wentLive('cache')).to.equal(true);
    expect(queued('worker') >= wentLive('app')).to.equal(true);

    const answer = await httpText(`http://127.0.0.1:${byName.get('app')!.hostPort}/`);
    expect(answer.text).to.equal('connected to db:5432/appdb as app and cache\n');
  });

  it('a dependency whose first deployment fails leaves its dependents undeployed, and the log says why', async () => {
    // busybox has no command of its own: its deployment fails
    const compose = 'services:\n  broken:\n    image: berth-test/busybox:latest\n  after:\n    image: berth-test/busybox:latest\n    command: exec sleep 1000\n    depends_on: [broken]\n';
    const result = await t.admin.importCompose(projectId, { compose });
    await t.daemon.core.compose.settled();
    const after = result.created!.find((s) => s.name === 'after')!;
    expect((await t.admin.overview(after.id)).deployments).to.deep.equal([]);
    expect(t.logs.join('\n')).to.include('compose import: after is not deployed: broken did not go live');
  });
});
