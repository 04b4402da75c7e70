// A tenant's app, and a tenant's build, printing 16 KB lines as fast as they can: what Berth
// stores stays within its byte budget (per service, per deployment, and over a service's builds),
// a marker line says how much was dropped, the container Berth started has a bounded Docker log
// (json-file max-size), and a redeploy of an image with a VOLUME leaves no anonymous volume behind
// while a database's named volume stays.
import { expect } from 'chai';
import knexFactory, { type Knex } from 'knex';
import { join } from 'node:path';
import type { BerthClient } from '../../shared/client.js';
import { DB_FILE } from '../../daemon/store/open.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { docker, requireDocker } from '../helpers/docker.js';
import { requireDatabaseImages } from '../helpers/databases.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { expectHealthy } from '../helpers/hostile-checks.js';
import { until, waitForDeployment } from '../helpers/wait.js';

const MIB = 1024 * 1024;
/** BERTH_LOG_RETENTION_MB and BERTH_LOG_SERVICE_BUILD_MB below. */
const CAP = 1 * MIB;
/** What one written batch may add before it is trimmed (the rate's burst and one flush). */
const BATCH_SLACK = 1 * MIB;
/** 16,000-character lines, forever (a shell loop; the JSON form escapes its backslashes). */
const FLOOD = "while true; do head -c 16000 /dev/zero | tr '\\\\0' x; echo; done";
/** A RUN step printing 960 lines of 10,000 characters (9.6 MB) at once. */
const BUILD_FLOOD = "head -c 9600000 /dev/zero | tr '\\0' y | fold -w 10000";
const MARKER = /^berth: \d+ lines \(\d+ bytes\) dropped: this (service|build) writes logs faster than/;

describe('security: a flooding app or build', function () {
  this.timeout(400_000);
  let t: TestDaemon;
  let git: GitServer;
  let tenant: BerthClient;
  let projectId: string;
  let db: Knex;

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    git = await startGitServer();
    t = await startTestDaemon({
      BERTH_GIT_BASE_URL: git.baseUrl,
      BERTH_LOG_RETENTION_MB: '1',
      BERTH_LOG_SERVICE_BUILD_MB: '1',
      BERTH_LOG_RATE_KB: '256',
      ...requireDatabaseImages(),
    });
    projectId = (await t.admin.createProject({ name: uniq('flood') })).project.id;
    tenant = await t.clientWith('write', [projectId]);
    db = knexFactory({ client: 'sqlite3', connection: { filename: join(t.dataDir, DB_FILE) }, useNullAsDefault: true });
  });
  after(async () => {
    await db?.destroy();
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    await git?.stop();
  });

  async function stored(table: 'runtime_logs' | 'deployment_logs', column: string, owners: string[]): Promise<{ lines: number; bytes: number }> {
    return (await db(table).whereIn(column, owners).select(db.raw('count(*) as lines, coalesce(sum(length(CAST(line AS BLOB))), 0) as bytes')).first()) as { lines: number; bytes: number };
  }

  const containerOf = async (deploymentId: string) => ((await db('deployments').where('id', deploymentId).first()) as { container_id: string }).container_id;

  async function deploy(name: string, dockerfile: string): Promise<{ serviceId: string; deploymentId: string }> {
    const repo = `acme/${uniq(name)}` as const;
    await git.commit(repo, { Dockerfile: dockerfile });
    const { service } = await tenant.createService(projectId, { name, repoFullName: repo, runtimeMode: 'worker' });
    const { deployment } = await tenant.deploy(service.id);
    await waitForDeployment(tenant, service.id, deployment.id, ['running'], 180_000);
    return { serviceId: service.id, deploymentId: deployment.id };
  }

  it("an app printing 16 KB lines without pause: its stored log stays within the service's budget, a marker says what was dropped, and Docker's log of it is bounded", async () => {
    const { serviceId, deploymentId } = await deploy('flood', `FROM berth-test/busybox:latest\nCMD ["sh", "-c", "${FLOOD}"]\n`);
    let highest = 0;
    const started = Date.now();
    await until(
      'eight seconds of flooding',
      async () => {
        await expectHealthy(t.url);
        highest = Math.max(highest, (await stored('runtime_logs', 'service_id', [serviceId])).bytes);
        return Date.now() - started > 8000;
      },
      30_000,
      250,
    );
    expect(highest, 'stored bytes at most').to.be.at.most(CAP + BATCH_SLACK);
    const lines = (await db('runtime_logs').where('service_id', serviceId).select('line')) as { line: string }[];
    expect(
      lines.some((l) => MARKER.test(l.line)),
      'a drop marker line',
    ).to.equal(true);

    const info = JSON.parse(docker('inspect', await containerOf(deploymentId)))[0] as { HostConfig: { LogConfig: { Type: string; Config: Record<string, string> } } };
    expect(info.HostConfig.LogConfig.Type).to.equal('json-file');
    expect(info.HostConfig.LogConfig.Config).to.include({ 'max-size': '10m', 'max-file': '3' });
  });

  it("builds printing 9.6 MB each: each build log, and the service's build logs together, stay within budget, with a marker", async () => {
    const dockerfile = (n: number) => `FROM berth-test/busybox:latest\nRUN echo build ${n} && ${BUILD_FLOOD}\nCMD ["sleep", "3600"]\n`;
    const repo = `acme/${uniq('build-flood')}` as const;
    await git.commit(repo, { Dockerfile: dockerfile(1) });
    const { service } = await tenant.createService(projectId, { name: 'build-flood', repoFullName: repo, runtimeMode: 'worker' });
    const ids: string[] = [];
    for (const n of [1, 2]) {
      if (n > 1) await git.commit(repo, { Dockerfile: dockerfile(n) });
      const { deployment } = await tenant.deploy(service.id);
      await waitForDeployment(tenant, service.id, deployment.id, ['running'], 180_000);
      ids.push(deployment.id);
      expect((await stored('deployment_logs', 'deployment_id', [deployment.id])).bytes, `build ${n}`).to.be.at.most(CAP + BATCH_SLACK);
      const lines = (await tenant.deploymentLogs(deployment.id, { tail: true })).logs.map((l) => l.line);
      expect(
        lines.some((l) => MARKER.test(l)),
        `build ${n}: a drop marker`,
      ).to.equal(true);
    }
    expect((await stored('deployment_logs', 'deployment_id', ids)).bytes, 'both builds').to.be.at.most(CAP + BATCH_SLACK);
  });

  it('a redeploy of an image with a VOLUME leaves no anonymous volume behind; a database keeps its named volume', async () => {
    const repo = `acme/${uniq('vol')}` as const;
    await git.commit(repo, { Dockerfile: 'FROM berth-test/busybox:latest\nVOLUME /data\nCMD ["sleep", "3600"]\n' });
    const { service } = await tenant.createService(projectId, { name: 'vol', repoFullName: repo, runtimeMode: 'worker' });
    const volumesOf = (containerId: string) =>
      (JSON.parse(docker('inspect', containerId))[0] as { Mounts: { Type: string; Name?: string }[] }).Mounts.filter((m) => m.Type === 'volume').map((m) => m.Name!);

    const first = (await tenant.deploy(service.id)).deployment;
    await waitForDeployment(tenant, service.id, first.id, ['running'], 120_000);
    const firstContainer = await containerOf(first.id);
    const anonymous = volumesOf(firstContainer);
    expect(anonymous).to.have.length(1);
    const second = (await tenant.deploy(service.id)).deployment;
    await waitForDeployment(tenant, service.id, second.id, ['running'], 120_000);
    await until('the first container to be removed', async () => !docker('ps', '-aq', '--no-trunc').split('\n').includes(firstContainer), 30_000);
    expect(volumeGone(anonymous[0]!), `anonymous volume ${anonymous[0]} removed with its container`).to.equal(true);

    const redis = (await tenant.createService(projectId, { name: 'cache', repoFullName: 'database:redis' })).service;
    const d1 = (await tenant.deploy(redis.id)).deployment;
    await waitForDeployment(tenant, redis.id, d1.id, ['running'], 120_000);
    const named = volumesOf(await containerOf(d1.id));
    const d2 = (await tenant.deploy(redis.id)).deployment;
    await waitForDeployment(tenant, redis.id, d2.id, ['running'], 120_000);
    for (const v of named) expect(docker('volume', 'inspect', '--format', '{{.Name}}', v).trim()).to.equal(v);
    const dbInfo = JSON.parse(docker('inspect', await containerOf(d2.id)))[0] as { HostConfig: { LogConfig: { Config: Record<string, string> } } };
    expect(dbInfo.HostConfig.LogConfig.Config).to.include({ 'max-size': '10m' });
  });
});

function volumeGone(name: string): boolean {
  try {
    docker('volume', 'inspect', name);
    return false;
  } catch {
    return true;
  }
}
