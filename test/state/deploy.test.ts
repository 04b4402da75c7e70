// Volumes, config files, the recreate strategy and the release command through real deployments
// (real Docker, the daemon's own Caddy). One daemon and one service, step by step: each test builds
// on the state the previous one left.
import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import type { Deployment, Service } from '../../shared/types.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDocker } from '../helpers/docker.js';
import { httpText, until, waitForDeployment } from '../helpers/wait.js';

/** A web app on busybox: answers $TEXT on /, records `start <host>` and (on SIGTERM) `stop <host>` in /data/markers. */
const APP_IMAGE = 'berth-test/state-app:latest';
const APP_DOCKERFILE = [
  'FROM berth-test/busybox:latest',
  `CMD ["sh", "-c", "H=$(hostname); echo \\"start $H\\" >> /data/markers; trap 'echo \\"stop $H\\" >> /data/markers; exit 0' TERM; mkdir -p /www; echo \\"$TEXT\\" > /www/index.html; httpd -f -p \${PORT} -h /www & wait"]`,
  '',
].join('\n');

function docker(...args: string[]): string {
  return execFileSync('docker', args, { encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] }).trim();
}

function dockerFails(...args: string[]): boolean {
  try {
    docker(...args);
    return false;
  } catch {
    return true;
  }
}

describe('service state: volumes, config files, recreate and release command (real deployments)', function () {
  this.timeout(180_000);
  let t: TestDaemon;
  let projectId: string;
  let svc: Service;
  let first: Deployment;
  let live: Deployment;

  async function deployed(start: Promise<{ deployment: Deployment }>, status = 'running'): Promise<Deployment> {
    const { deployment } = await start;
    return waitForDeployment(t.admin, deployment.serviceId, deployment.id, [status], 120_000);
  }
  async function logOf(deploymentId: string): Promise<string> {
    return (await t.admin.deploymentLogs(deploymentId, { limit: 1000 })).logs.map((l) => l.line).join('\n');
  }
  const inLive = (...cmd: string[]) => docker('exec', live.containerName!, ...cmd);

  before(async () => {
    requireDocker();
    execFileSync('docker', ['build', '-q', '-t', APP_IMAGE, '-'], { input: APP_DOCKERFILE, stdio: ['pipe', 'ignore', 'inherit'] });
    t = await startTestDaemon();
    projectId = (await t.admin.createProject({ name: 'state-deploy' })).project.id;
    svc = (
      await t.admin.createService(projectId, {
        name: 'app',
        dockerImage: APP_IMAGE,
        env: [{ key: 'TEXT', value: 'one' }],
        volumes: [{ name: 'data', mountPath: '/data' }],
        files: [{ path: '/etc/app/conf.txt', content: 'text=${TEXT} port=${PORT}\n', mode: '0640' }],
      })
    ).service;
    first = await deployed(t.admin.deploy(svc.id));
    live = first;
  });
  after(async () => {
    for (const p of (await t.admin.listProjects()).projects) await t.admin.deleteProject(p.id).catch(() => undefined);
    await t.stop();
  });

  it('mounts the volume and the config file: read-only, with its mode, references resolved', async () => {
    expect((await httpText(`http://127.0.0.1:${svc.hostPort}/`)).text.trim()).to.equal('one');
    expect(inLive('cat', '/etc/app/conf.txt')).to.equal('text=one port=80');
    expect(inLive('stat', '-c', '%a', '/etc/app/conf.txt')).to.equal('640');
    expect(dockerFails('exec', live.containerName!, 'sh', '-c', 'echo x > /etc/app/conf.txt')).to.equal(true);
    inLive('sh', '-c', 'echo kept > /data/keep');
    const volume = JSON.parse(docker('volume', 'inspect', `berth-vol-${projectId}-data`))[0] as { Labels: Record<string, string> };
    expect(volume.Labels).to.include({ 'dev.berth.project': projectId, 'dev.berth.volume': 'data' });
  });

  it('a release command that exits 1 fails the deploy with its output in the log (it saw the env and the volume), and the old release keeps serving', async () => {
    await t.admin.setEnv(svc.id, 'TEXT', 'two');
    await t.admin.patchService(svc.id, { releaseCommand: ['sh', '-c', 'echo "release sees $TEXT"; cat /data/keep; exit 1'] });
    const failed = await deployed(t.admin.deploy(svc.id), 'failed');
    const log = await logOf(failed.id);
    expect(log).to.include('release | release sees two');
    expect(log).to.include('release | kept');
    expect(log).to.include('release command exited 1');
    expect((await httpText(`http://127.0.0.1:${svc.hostPort}/`)).text.trim()).to.equal('one');
    expect((await t.admin.overview(svc.id)).service.status).to.equal('active');
  });

  it('a recreate deploy stops the old container before the new one starts, says the downtime, and keeps the volume', async () => {
    await t.admin.patchService(svc.id, { releaseCommand: ['sh', '-c', 'test -f /data/keep && echo migrated'], deployStrategy: 'recreate' });
    const old = live.containerName!;
    const oldHost = docker('inspect', '-f', '{{.Config.Hostname}}', old);
    live = await deployed(t.admin.deploy(svc.id));
    const newHost = docker('inspect', '-f', '{{.Config.Hostname}}', live.containerName!);
    const markers = inLive('cat', '/data/markers').split('\n');
    expect(markers.indexOf(`stop ${oldHost}`), markers.join(' | ')).to.be.greaterThan(-1);
    expect(markers.indexOf(`stop ${oldHost}`)).to.be.lessThan(markers.indexOf(`start ${newHost}`));
    const log = await logOf(live.id);
    expect(log).to.include('release | migrated');
    expect(log).to.match(/Recreate: the service was down for \d+\.\d s \(old container stopped at .+, new one answering at .+\)/);
    expect(inLive('cat', '/data/keep')).to.equal('kept');
    expect((await httpText(`http://127.0.0.1:${svc.hostPort}/`)).text.trim()).to.equal('two');
  });

  it('changing a config file redeploys, and the new content is visible', async () => {
    const before = new Set((await t.admin.listDeployments(svc.id)).deployments.map((d) => d.id));
    await t.admin.patchService(svc.id, { files: [{ path: '/etc/app/conf.txt', content: 'changed ${TEXT}\n' }] });
    const queued = (await t.admin.listDeployments(svc.id)).deployments.find((d) => !before.has(d.id));
    expect(queued, 'a deployment queued by the PATCH').to.not.equal(undefined);
    live = await waitForDeployment(t.admin, svc.id, queued!.id, ['running'], 120_000);
    expect(inLive('cat', '/etc/app/conf.txt')).to.equal('changed two');
    expect(inLive('stat', '-c', '%a', '/etc/app/conf.txt')).to.equal('644');
  });

  it('a rollback runs with the files of the deployment it goes back to, and keeps the volume', async () => {
    live = await deployed(t.admin.rollbackDeployment(first.id));
    expect(inLive('cat', '/etc/app/conf.txt')).to.equal('text=one port=80');
    expect(inLive('cat', '/data/keep')).to.equal('kept');
    expect(await logOf(live.id)).to.include('Recreate:');
  });

  it('a daemon restart keeps the volume data', async () => {
    await t.restart();
    expect(inLive('cat', '/data/keep')).to.equal('kept');
    // the rollback ran the first image with the service's current env (TEXT=two)
    await until('the app to answer after the restart', async () => (await httpText(`http://127.0.0.1:${svc.hostPort}/`).catch(() => ({ text: '' }))).text.trim() === 'two');
  });

  it('keepVolumes keeps the volume for another service of the project; another project has its own, empty volume of that name', async () => {
    await t.admin.deleteService(svc.id, { keepVolumes: true });
    const kept = (await t.admin.listVolumes(projectId)).volumes;
    expect(kept).to.have.length(1);
    expect(kept[0]).to.include({ name: 'data', serviceId: null, mountPath: null });
    docker('volume', 'inspect', `berth-vol-${projectId}-data`);

    const { service: second } = await t.admin.createService(projectId, {
      name: 'second',
      dockerImage: APP_IMAGE,
      env: [{ key: 'TEXT', value: 's' }],
      volumes: [{ name: 'data', mountPath: '/srv/data' }],
    });
    live = await deployed(t.admin.deploy(second.id));
    expect(inLive('cat', '/srv/data/keep')).to.equal('kept');

    const otherProject = (await t.admin.createProject({ name: 'state-deploy-other' })).project.id;
    const { service: foreign } = await t.admin.createService(otherProject, {
      name: 'foreign',
      dockerImage: APP_IMAGE,
      env: [{ key: 'TEXT', value: 'f' }],
      volumes: [{ name: 'data', mountPath: '/data' }],
    });
    live = await deployed(t.admin.deploy(foreign.id));
    expect(dockerFails('exec', live.containerName!, 'cat', '/data/keep')).to.equal(true);

    // without keepVolumes the volume goes with its service
    await t.admin.deleteService(second.id);
    expect((await t.admin.listVolumes(projectId)).volumes).to.deep.equal([]);
    expect(dockerFails('volume', 'inspect', `berth-vol-${projectId}-data`)).to.equal(true);
  });
});
