// Per-project quotas, played by a tenant holding a write key for its own project: it cannot create
// services, take backups or keep images beyond what the server's administrator allows, and cannot
// raise its own quotas. Real daemon, real Docker (a redis stand-in for backups, busybox builds).
import { expect } from 'chai';
import { ApiError, type BerthClient } from '../../shared/client.js';
import type { Backup, Service } from '../../shared/types.js';
import { webApp } from '../helpers/apps.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDatabaseImage } from '../helpers/databases.js';
import { docker, requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { until, waitForDeployment } from '../helpers/wait.js';

async function refusal(call: Promise<unknown>): Promise<ApiError> {
  const err = await call.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof ApiError)) throw new Error(`expected an API refusal, got ${err === null ? 'success' : String(err)}`);
  return err;
}

describe('security: per-project quotas', function () {
  this.timeout(240_000);
  let t: TestDaemon;
  let git: GitServer;
  let projectId: string;
  let tenant: BerthClient;
  let reader: BerthClient;

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    const redis = requireDatabaseImage('redis');
    git = await startGitServer();
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: git.baseUrl, BERTH_HEALTH_TIMEOUT: '20', BERTH_IMAGE_REDIS: redis });
    projectId = (await t.admin.createProject({ name: uniq('quota') })).project.id;
    tenant = await t.clientWith('write', [projectId]);
    reader = await t.clientWith('read', [projectId]);
  });
  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    await git?.stop();
  });

  async function serviceCount(id: string): Promise<number> {
    return (await t.admin.getProject(id)).project.serviceCount;
  }

  it("a project's keys read its quotas and usage, but cannot change them (403), nor the server's defaults", async () => {
    const before = await tenant.projectQuotas(projectId);
    expect(before.quotas.maxServices).to.be.a('number').above(0);
    expect(before.usage).to.deep.equal({ services: 0, backups: 0, backupBytes: 0 });
    expect((await reader.projectQuotas(projectId)).quotas).to.deep.equal(before.quotas);

    const own = await refusal(tenant.patchProjectQuotas(projectId, { maxServices: 100_000, maxBackups: 1_000_000 }));
    expect(own.status).to.equal(403);
    expect(own.message).to.match(/all projects/);
    expect((await refusal(reader.patchProjectQuotas(projectId, { maxServices: 5 }))).status).to.equal(403);
    expect((await refusal(tenant.patchDefaultQuotas({ maxServices: 100_000 }))).status).to.equal(403);
    expect((await refusal(tenant.defaultQuotas())).status).to.equal(403);
    expect(await tenant.projectQuotas(projectId)).to.deep.equal(before);

    // another project's quotas are not even visible
    const other = (await t.admin.createProject({ name: uniq('other') })).project.id;
    expect((await refusal(tenant.projectQuotas(other))).status).to.equal(404);
    expect((await refusal(tenant.patchProjectQuotas(other, { maxServices: 1 }))).status).to.equal(404);

    // bad values change nothing
    expect((await refusal(t.admin.patchProjectQuotas(projectId, { maxServices: 0 }))).status).to.equal(400);
    expect((await t.admin.request('PATCH', `/api/projects/${projectId}/quotas`, { maxservices: 3 })).status).to.equal(400);
    expect(await tenant.projectQuotas(projectId)).to.deep.equal(before);
  });

  it('creating services beyond maxServices is refused with 409 quota_exceeded saying how to raise it, and nothing is created', async () => {
    const { project } = await t.admin.createProject({ name: uniq('svc-quota') });
    const key = await t.clientWith('write', [project.id]);
    await t.admin.patchProjectQuotas(project.id, { maxServices: 2 });
    for (let i = 0; i < 2; i++) await key.createService(project.id, { name: uniq('s'), dockerImage: 'berth-test/busybox:latest', internalPort: 8080 });

    const err = await refusal(key.createService(project.id, { name: uniq('s'), dockerImage: 'berth-test/busybox:latest', internalPort: 8080 }));
    expect(err.status).to.equal(409);
    expect(err.code).to.equal('quota_exceeded');
    expect(err.message)
      .to.match(/maxServices is 2/)
      .and.match(/quotas/);
    // several at once cannot slip past it either
    const burst = await Promise.allSettled(Array.from({ length: 5 }, () => key.createService(project.id, { name: uniq('s'), dockerImage: 'berth-test/busybox:latest', internalPort: 8080 })));
    expect(burst.every((r) => r.status === 'rejected')).to.equal(true);
    expect(await serviceCount(project.id)).to.equal(2);

    // nor can a service be moved into the full project
    const { project: spare } = await t.admin.createProject({ name: uniq('spare') });
    const { service: mover } = await t.admin.createService(spare.id, { name: uniq('m'), dockerImage: 'berth-test/busybox:latest', internalPort: 8080 });
    const moved = await refusal(t.admin.transferService(mover.id, project.id));
    expect(moved.code).to.equal('quota_exceeded');
    expect(await serviceCount(project.id)).to.equal(2);

    // raised by the administrator: room again
    await t.admin.patchProjectQuotas(project.id, { maxServices: 3 });
    await key.createService(project.id, { name: uniq('s'), dockerImage: 'berth-test/busybox:latest', internalPort: 8080 });
    expect(await serviceCount(project.id)).to.equal(3);
    // the server-wide default applies to projects that set nothing
    await t.admin.patchDefaultQuotas({ maxServices: 1 });
    try {
      const { project: fresh } = await t.admin.createProject({ name: uniq('fresh') });
      const freshKey = await t.clientWith('write', [fresh.id]);
      await freshKey.createService(fresh.id, { name: uniq('s'), dockerImage: 'berth-test/busybox:latest', internalPort: 8080 });
      expect((await refusal(freshKey.createService(fresh.id, { name: uniq('s'), dockerImage: 'berth-test/busybox:latest', internalPort: 8080 }))).code).to.equal('quota_exceeded');
    } finally {
      await t.admin.patchDefaultQuotas({ maxServices: null });
    }
  });

  describe('backups of a database service', function () {
    let db: Service;

    before(async function () {
      this.timeout(300_000);
      db = (await tenant.createService(projectId, { name: uniq('cache'), repoFullName: 'database:redis' })).service;
      const { deployment } = await tenant.deploy(db.id);
      const done = await waitForDeployment(tenant, db.id, deployment.id, ['running', 'failed'], 240_000);
      if (done.status !== 'running') throw new Error((await tenant.deploymentLogs(deployment.id)).logs.map((l) => l.line).join('\n'));
      await tenant.databaseQuery(db.id, 'SET filler "some bytes to back up"');
    });

    async function finished(backupId: string): Promise<Backup> {
      return until('the backup to finish', async () => (await tenant.listBackups(db.id)).backups.find((b) => b.id === backupId && b.status !== 'running'), 120_000, 200);
    }

    it('a manual backup beyond maxBackups is refused (409 quota_exceeded) and records nothing', async () => {
      await t.admin.patchProjectQuotas(projectId, { maxBackups: 1, maxBackupBytes: null });
      const first = await finished((await tenant.createBackup(db.id)).backup.id);
      expect(first.status).to.equal('succeeded');
      const err = await refusal(tenant.createBackup(db.id));
      expect(err.status).to.equal(409);
      expect(err.code).to.equal('quota_exceeded');
      expect(err.message).to.match(/maxBackups is 1/);
      expect((await tenant.listBackups(db.id)).backups).to.have.length(1);
      const usage = (await tenant.projectQuotas(projectId)).usage;
      expect(usage.backups).to.equal(1);
      expect(usage.backupBytes).to.equal(first.sizeBytes);
    });

    it('a manual backup beyond maxBackupBytes is refused (409 quota_exceeded) and records nothing', async () => {
      await t.admin.patchProjectQuotas(projectId, { maxBackups: null, maxBackupBytes: 1 });
      const err = await refusal(tenant.createBackup(db.id));
      expect(err.status).to.equal(409);
      expect(err.code).to.equal('quota_exceeded');
      expect(err.message).to.match(/maxBackupBytes is 1\b/);
      expect((await tenant.listBackups(db.id)).backups).to.have.length(1);
      // deleting a backup makes room again
      const [old] = (await tenant.listBackups(db.id)).backups;
      await tenant.deleteBackup(db.id, old!.id);
      expect((await finished((await tenant.createBackup(db.id)).backup.id)).status).to.equal('succeeded');
    });

    it('a scheduled backup over the quota makes room within its own schedule, else records a failed backup saying why', async () => {
      for (const b of (await tenant.listBackups(db.id)).backups) await tenant.deleteBackup(db.id, b.id);
      await t.admin.patchProjectQuotas(projectId, { maxBackups: 1, maxBackupBytes: null });
      // the one backup the quota allows is a manual one: nothing of the schedule's own to remove
      await finished((await tenant.createBackup(db.id)).backup.id);
      await tenant.patchBackupSettings(db.id, { automaticEnabled: true, dailyEnabled: true, keepDaily: 7 });
      const tick = async (at: string) => {
        await t.daemon.backupScheduler.tick(new Date(at));
        await t.daemon.backups.settled();
      };
      await tick('2031-03-04T03:01:00.000Z');
      let all = (await tenant.listBackups(db.id)).backups;
      const refused = all.find((b) => b.trigger === 'daily')!;
      expect(refused.status).to.equal('failed');
      expect(refused.error)
        .to.match(/scheduled daily backup was not taken/)
        .and.match(/maxBackups is 1/);
      expect(all.filter((b) => b.status === 'succeeded')).to.have.length(1);

      // with two daily backups allowed, the next day's backup replaces the oldest daily one instead
      await t.admin.patchProjectQuotas(projectId, { maxBackups: 3 });
      await tick('2031-03-05T03:01:00.000Z');
      await tick('2031-03-06T03:01:00.000Z');
      await tick('2031-03-07T03:01:00.000Z');
      all = (await tenant.listBackups(db.id)).backups;
      const daily = all.filter((b) => b.trigger === 'daily' && b.status === 'succeeded');
      expect(daily.map((b) => b.createdAt)).to.deep.equal(['2031-03-07T03:01:00.000Z', '2031-03-06T03:01:00.000Z']);
      expect(all.filter((b) => b.status !== 'failed')).to.have.length(3);
      await tenant.patchBackupSettings(db.id, { automaticEnabled: false });
    });
  });

  it('kept images are pruned to maxImagesPerService after redeploys, oldest first, never the live one', async () => {
    const { project } = await t.admin.createProject({ name: uniq('images') });
    const key = await t.clientWith('write', [project.id]);
    await t.admin.patchProjectQuotas(project.id, { maxImagesPerService: 1 });
    const repo = `acme/${uniq('img')}` as const;
    const { service } = await key.createService(project.id, { name: uniq('web'), repoFullName: repo, internalPort: 8080 });
    const tags = () => {
      const out = docker('images', '--format', '{{.Repository}}:{{.Tag}}', `berth/${service.slug}`);
      return out ? out.split('\n').filter(Boolean) : [];
    };
    let live = '';
    for (const version of ['v1', 'v2', 'v3']) {
      await git.commit(repo, webApp(version));
      const { deployment } = await key.deploy(service.id);
      const done = await waitForDeployment(key, service.id, deployment.id, ['running', 'failed'], 120_000);
      expect(done.status, (await key.deploymentLogs(deployment.id)).logs.map((l) => l.line).join('\n')).to.equal('running');
      live = `berth/${service.slug}:${deployment.id.slice(0, 12)}`;
    }
    await until('older images to be pruned', async () => tags().length === 1, 60_000, 250);
    expect(tags()).to.deep.equal([live]);
  });
});
