// The free disk threshold: with the threshold set above the free space (as a full disk looks), a
// tenant's deploy, build and manual backup are refused with a clear reason, and work again once it
// is lowered. The disk state is visible to every key (volumes and threshold only to keys over all
// projects), and only a write key over all projects changes the threshold. Real daemon and Docker.
import { expect } from 'chai';
import type { ApiError, BerthClient } from '../../shared/client.js';
import type { Service } from '../../shared/types.js';
import { webApp } from '../helpers/apps.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDatabaseImage } from '../helpers/databases.js';
import { requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { until, waitForDeployment } from '../helpers/wait.js';

/** Far above any disk's free space here: the disk reads as low. */
const ABOVE_ANY_DISK = 2 ** 50;

describe('security: new work waits while free disk is below the threshold', function () {
  this.timeout(240_000);
  let t: TestDaemon;
  let git: GitServer;
  let projectId: string;
  let tenant: BerthClient;
  let db: Service;

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    const redis = requireDatabaseImage('redis');
    git = await startGitServer();
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: git.baseUrl, BERTH_HEALTH_TIMEOUT: '20', BERTH_IMAGE_REDIS: redis });
    projectId = (await t.admin.createProject({ name: uniq('disk') })).project.id;
    tenant = await t.clientWith('write', [projectId]);
    db = (await tenant.createService(projectId, { name: uniq('cache'), repoFullName: 'database:redis' })).service;
    const { deployment } = await tenant.deploy(db.id);
    const done = await waitForDeployment(tenant, db.id, deployment.id, ['running', 'failed'], 240_000);
    if (done.status !== 'running') throw new Error((await tenant.deploymentLogs(deployment.id)).logs.map((l) => l.line).join('\n'));
  });
  afterEach(async () => {
    await t?.admin.patchSystemDisk({ minFreeBytes: null });
  });
  after(async () => {
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    await git?.stop();
  });

  async function logOf(deploymentId: string): Promise<string> {
    return (await tenant.deploymentLogs(deploymentId)).logs.map((l) => l.line).join('\n');
  }

  it('shows every key whether disk is low; volumes and threshold only to keys over all projects; only they change it', async () => {
    const all = (await t.admin.systemDisk()).disk;
    expect(all.low).to.equal(false);
    expect(all.message).to.equal(null);
    expect(all.minFreeBytes).to.equal(2048 * 1024 * 1024);
    expect(all.volumes!.map((v) => v.role)).to.include.members(['data', 'docker']);
    expect(all.volumes!.find((v) => v.role === 'data')!.path).to.equal(t.dataDir);
    for (const v of all.volumes!) expect(v.freeBytes).to.be.above(0).and.at.most(v.totalBytes);

    const reader = await t.clientWith('read', [projectId]);
    expect((await tenant.systemDisk()).disk).to.deep.equal({ low: false, message: null });
    expect((await reader.systemDisk()).disk).to.deep.equal({ low: false, message: null });
    for (const client of [tenant, reader, await t.clientWith('read', 'all')]) {
      const err = await client.patchSystemDisk({ minFreeBytes: 0 }).then(
        () => null,
        (e: unknown) => e as ApiError,
      );
      expect(err?.status).to.equal(403);
    }
    expect((await t.admin.request('PATCH', '/api/system/disk', { minFreeBytes: -1 })).status).to.equal(400);
    expect((await t.admin.systemDisk()).disk.minFreeBytes).to.equal(2048 * 1024 * 1024);

    await t.admin.patchSystemDisk({ minFreeBytes: ABOVE_ANY_DISK });
    const low = (await tenant.systemDisk()).disk;
    expect(low.low).to.equal(true);
    expect(low.message)
      .to.match(/low disk/)
      .and.match(/paused/);
    expect(low.message).not.to.include(t.dataDir);
    expect(low).not.to.have.property('volumes');
  });

  it('refuses a deploy, a build and a manual backup with the reason while disk is low, and takes them once it is lowered', async () => {
    const repo = `acme/${uniq('app')}` as const;
    await git.commit(repo, webApp('built'));
    const built = (await tenant.createService(projectId, { name: uniq('web'), repoFullName: repo, internalPort: 8080 })).service;
    const image = (await tenant.createService(projectId, { name: uniq('img'), dockerImage: 'berth-test/httpd:latest', internalPort: 8080 })).service;

    await t.admin.patchSystemDisk({ minFreeBytes: ABOVE_ANY_DISK });
    const build = (await tenant.deploy(built.id)).deployment;
    const failedBuild = await waitForDeployment(tenant, built.id, build.id, ['running', 'failed'], 60_000);
    expect(failedBuild.status).to.equal('failed');
    expect(await logOf(build.id)).to.match(/the build was refused: low disk/);
    expect(await logOf(build.id)).not.to.match(/Building with|Cloning/);

    const deploy = (await tenant.deploy(image.id)).deployment;
    expect((await waitForDeployment(tenant, image.id, deploy.id, ['running', 'failed'], 60_000)).status).to.equal('failed');
    expect(await logOf(deploy.id)).to.match(/the deployment was refused: low disk/);

    const backup = await tenant.createBackup(db.id).then(
      () => null,
      (e: unknown) => e as ApiError,
    );
    expect(backup?.status).to.equal(409);
    expect(backup?.code).to.equal('disk_low');
    expect(backup?.message).to.match(/the backup was refused: low disk/);
    expect((await tenant.listBackups(db.id)).backups).to.have.length(0);

    // a scheduled backup records its refusal instead of claiming a backup it did not take
    await tenant.patchBackupSettings(db.id, { automaticEnabled: true, dailyEnabled: true });
    await t.daemon.backupScheduler.tick(new Date('2032-06-01T03:01:00.000Z'));
    await t.daemon.backups.settled();
    const scheduled = (await tenant.listBackups(db.id)).backups;
    expect(scheduled.map((b) => [b.trigger, b.status])).to.deep.equal([['daily', 'failed']]);
    expect(scheduled[0]!.error).to.match(/the scheduled daily backup was refused: low disk/);
    await tenant.patchBackupSettings(db.id, { automaticEnabled: false });

    await t.admin.patchSystemDisk({ minFreeBytes: 0 });
    const again = (await tenant.deploy(built.id)).deployment;
    expect((await waitForDeployment(tenant, built.id, again.id, ['running', 'failed'], 120_000)).status, await logOf(again.id)).to.equal('running');
    const imageAgain = (await tenant.deploy(image.id)).deployment;
    expect((await waitForDeployment(tenant, image.id, imageAgain.id, ['running', 'failed'], 60_000)).status, await logOf(imageAgain.id)).to.equal('running');
    const taken = (await tenant.createBackup(db.id)).backup;
    const done = await until('the backup to finish', async () => (await tenant.listBackups(db.id)).backups.find((b) => b.id === taken.id && b.status !== 'running'), 120_000, 200);
    expect(done.status).to.equal('succeeded');
  });
});
