// Deployments that really run: git and image services built and run on the Docker Engine, served
// on their host port, swapped without dropping a request, failing and aborting truthfully.
import { expect } from 'chai';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { builtImagesOf, containersWithLabel, danglingImages, docker, requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { silentApp, slowBuildApp, webApp } from '../helpers/apps.js';
import { httpText, until, waitForDeployment } from '../helpers/wait.js';
import { httpProbe } from '../helpers/pollers.js';
import type { Service } from '../../shared/types.js';

describe('deployments on Docker', function () {
  this.timeout(180_000);
  let t: TestDaemon;
  let git: GitServer;
  let projectId: string;

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    git = await startGitServer({ token: 'git-token-123' });
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: git.baseUrl, BERTH_HEALTH_TIMEOUT: '8', BERTH_REACHABILITY_INTERVAL: '1' });
    projectId = (await t.admin.createProject({ name: uniq('deploy') })).project.id;
  });
  after(async () => {
    // deleting the projects removes their containers, images and networks through the engine
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    await git?.stop();
  });

  async function gitService(files: Record<string, string>, extra: Record<string, unknown> = {}): Promise<Service> {
    const repo = `acme/${uniq('app')}` as const;
    await git.commit(repo, files);
    const { service } = await t.admin.createService(projectId, {
      name: uniq('web'),
      repoFullName: repo,
      githubToken: 'git-token-123',
      internalPort: 8080,
      ...extra,
    });
    return service;
  }

  async function deployAndWait(service: Service, statuses = ['running']) {
    const { deployment } = await t.admin.deploy(service.id);
    return waitForDeployment(t.admin, service.id, deployment.id, statuses);
  }

  it('deploys a git repository by owner/name (private, with a token) and serves it on hostPort', async () => {
    const service = await gitService(webApp('hello from v1'));
    const { deployment } = await t.admin.deploy(service.id);
    expect(deployment).to.include({ status: 'queued', trigger: 'manual', commitSha: null, imageTag: null, containerName: null, startedAt: null, finishedAt: null });
    const done = await waitForDeployment(t.admin, service.id, deployment.id, ['running']);
    expect(done.commitSha).to.match(/^[0-9a-f]{40}$/);
    expect(done.imageTag).to.be.a('string');
    expect(builtImagesOf({ deploymentId: deployment.id }), 'the built image carries its owner label').to.have.length(1);
    expect(done.containerName).to.be.a('string');
    expect(done.startedAt).to.be.a('string');
    expect(done.finishedAt).to.be.a('string');
    expect((await httpText(`http://127.0.0.1:${service.hostPort}/`)).text).to.equal('hello from v1\n');
    const { service: after } = await t.admin.overview(service.id);
    expect(after).to.include({ status: 'active', reachable: true, detectedBuildMethod: 'dockerfile' });
    expect(after.lastDeployedAt).to.be.a('string');
    const authorized = git.requests.filter((r) => r.authorization);
    expect(authorized.length).to.be.greaterThan(0);
    const { logs } = await t.admin.deploymentLogs(deployment.id);
    expect(logs.map((l) => l.line).join('\n')).to.include('build step: preparing the site');
    expect(JSON.stringify(logs)).not.to.include('git-token-123');
    const ids = logs.map((l) => l.id);
    expect(ids).to.deep.equal([...ids].sort((a, b) => a - b));
  });

  it('a build adds one step to the Dockerfile, the ownership labels after FROM, cached from the second build; the image carries them', async () => {
    const service = await gitService(webApp('labels v1'));
    await deployAndWait(service);
    await git.commit(service.repoFullName as `${string}/${string}`, webApp('labels v2'));
    const second = await deployAndWait(service);
    const lines = (await t.admin.deploymentLogs(second.id)).logs.map((l) => l.line);
    const steps = lines.filter((l) => /^Step \d+\/\d+ : /.test(l));
    // webApp's Dockerfile has 4 instructions; no label step is appended at the end (the build API's labels would be)
    expect(steps.map((l) => /^Step (\d+\/\d+) : (\w+)/.exec(l)!.slice(1).join(' '))).to.deep.equal(['1/5 FROM', '2/5 LABEL', '3/5 COPY', '4/5 RUN', '5/5 CMD']);
    expect(steps[1]).to.match(new RegExp(`^Step 2/5 : LABEL dev\\.berth\\.image-owner="[0-9a-f-]+/${projectId}/${service.id}" dev\\.berth\\.build="[0-9a-f-]+/${service.id}"$`));
    expect(lines[lines.indexOf(steps[1]!) + 1]).to.equal(' ---> Using cache');
    const labels = JSON.parse(docker('image', 'inspect', '--format', '{{json .Config.Labels}}', second.imageTag!)) as Record<string, string>;
    expect(labels['dev.berth.image-owner']).to.match(new RegExp(`^[0-9a-f-]+/${projectId}/${service.id}$`));
    expect(labels['dev.berth.build']).to.match(new RegExp(`^[0-9a-f-]+/${service.id}$`));
    expect(builtImagesOf({ deploymentId: second.id })).to.have.length(1);
  });

  it("a Dockerfile that changes Berth's ownership labels fails its build and leaves no image behind", async () => {
    const app = webApp('forged');
    app.Dockerfile = app.Dockerfile!.replace('COPY www /www', 'COPY www /www\nLABEL dev.berth.image-owner="someone/else/entirely"');
    const service = await gitService(app);
    const dep = await deployAndWait(service, ['failed', 'running']);
    expect(dep.status).to.equal('failed');
    const { logs } = await t.admin.deploymentLogs(dep.id);
    expect(logs.at(-1)!.line).to.equal('Deployment failed: the Dockerfile sets dev.berth.image-owner, labels Berth keeps for itself; remove them from the Dockerfile');
    expect(docker('images', '-q', `berth/${service.slug}`)).to.equal('');
    expect(docker('images', '-q', '--filter', 'label=dev.berth.image-owner=someone/else/entirely')).to.equal('');
  });

  it('deploys a git repository by direct URL', async () => {
    const repo = `acme/${uniq('byurl')}` as const;
    await git.commit(repo, webApp('by url'));
    const { service } = await t.admin.createService(projectId, { name: uniq('url'), repoUrl: git.urlOf(repo), githubToken: 'git-token-123', internalPort: 8080 });
    await deployAndWait(service);
    expect((await httpText(`http://127.0.0.1:${service.hostPort}/`)).text).to.equal('by url\n');
  });

  it('runs an image service from a local image without pulling it', async () => {
    const { service } = await t.admin.createService(projectId, {
      name: uniq('img'),
      repoUrl: 'docker-image',
      dockerImage: 'berth-test/httpd:latest',
      internalPort: 8080,
    });
    const dep = await deployAndWait(service);
    expect(dep.imageTag).to.equal('berth-test/httpd:latest');
    expect((await httpText(`http://127.0.0.1:${service.hostPort}/`)).text).to.equal('image ok\n');
  });

  it('redeploys without a single failed request while a client polls every 50 ms', async () => {
    const repo = `acme/${uniq('swap')}` as const;
    await git.commit(repo, webApp('version 1'));
    const { service } = await t.admin.createService(projectId, { name: uniq('swap'), repoFullName: repo, githubToken: 'git-token-123', internalPort: 8080 });
    await deployAndWait(service);
    await git.commit(repo, webApp('version 2'));

    const seen: string[] = [];
    const failures: string[] = [];
    let polling = true;
    // one request per fresh connection, as the data-plane suites poll (helpers/pollers.ts): a
    // keep-alive socket that Caddy closes while idle across a config reload is the client's to
    // retry, not a request the data plane failed
    const probe = httpProbe(service.hostPort!);
    const poller = (async () => {
      while (polling) {
        const answer = await probe();
        if (answer.ok) seen.push(answer.text);
        else failures.push(answer.error);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const first = (await t.admin.listDeployments(service.id)).deployments[0]!;
    const second = await deployAndWait(service);
    await until('version 2 to be served', async () => seen.at(-1) === 'version 2');
    // keep polling across the retirement of the old container
    await new Promise((r) => setTimeout(r, 3000));
    polling = false;
    await poller;
    expect(failures).to.deep.equal([]);
    expect(seen).to.include('version 1');
    expect(seen.at(-1)).to.equal('version 2');
    const list = (await t.admin.listDeployments(service.id)).deployments;
    expect(list.find((d) => d.id === first.id)!.status).to.equal('superseded');
    expect(list.find((d) => d.id === second.id)!.status).to.equal('running');
    await until('the old container to be removed', async () => containersWithLabel(`dev.berth.deployment=${first.id}`).length === 0, 40_000);
  });

  it('a deployment whose app never listens fails, and the previous one keeps answering', async () => {
    const repo = `acme/${uniq('silent')}` as const;
    await git.commit(repo, webApp('still here'));
    const { service } = await t.admin.createService(projectId, { name: uniq('silent'), repoFullName: repo, githubToken: 'git-token-123', internalPort: 8080 });
    await deployAndWait(service);
    await git.commit(repo, silentApp());
    const failed = await deployAndWait(service, ['failed', 'running']);
    expect(failed.status).to.equal('failed');
    const { logs } = await t.admin.deploymentLogs(failed.id);
    expect(logs.at(-1)!.line).to.match(/never answered on port 8080/);
    expect((await httpText(`http://127.0.0.1:${service.hostPort}/`)).text).to.equal('still here\n');
    expect((await t.admin.overview(service.id)).service).to.include({ status: 'active', reachable: true });
    expect(containersWithLabel(`dev.berth.deployment=${failed.id}`)).to.deep.equal([]);
  });

  it('a first deployment that fails leaves the service failed', async () => {
    const service = await gitService(silentApp());
    const dep = await deployAndWait(service, ['failed', 'running']);
    expect(dep.status).to.equal('failed');
    expect((await t.admin.overview(service.id)).service).to.include({ status: 'failed', reachable: false });
  });

  it('abort during a build stops it and leaves no container and no dangling image; a second abort is 409', async () => {
    const service = await gitService(slowBuildApp(60));
    const danglingBefore = danglingImages();
    const { deployment } = await t.admin.deploy(service.id);
    await until('the slow build step to start', async () => (await t.admin.deploymentLogs(deployment.id)).logs.some((l) => l.line.includes('tick 2')));
    expect(await t.admin.abortDeployment(deployment.id)).to.deep.equal({ accepted: true });
    const done = await waitForDeployment(t.admin, service.id, deployment.id, ['aborted', 'failed', 'running'], 30_000);
    expect(done.status).to.equal('aborted');
    expect(done.finishedAt).to.be.a('string');
    expect(containersWithLabel(`dev.berth.deployment=${deployment.id}`)).to.deep.equal([]);
    expect(builtImagesOf({ deploymentId: deployment.id })).to.deep.equal([]);
    await until('no new dangling images', async () => danglingImages().every((id) => danglingBefore.includes(id)), 15_000);
    const again = await t.admin.request('POST', `/api/deployments/${deployment.id}/abort`);
    expect(again.status).to.equal(409);
    // the build container of the aborted step is gone too
    expect(docker('ps', '-a', '-q', '--filter', 'status=running', '--filter', `ancestor=berth-test/busybox:latest`)).not.to.match(/tick/);
  });

  it('aborting a queued deployment marks it aborted; a newer queued one supersedes an older', async () => {
    const service = await gitService(slowBuildApp(20));
    const first = (await t.admin.deploy(service.id)).deployment;
    await until('the first to build', async () => (await t.admin.listDeployments(service.id)).deployments.find((d) => d.id === first.id)?.status === 'building');
    const second = (await t.admin.deploy(service.id)).deployment;
    const third = (await t.admin.deploy(service.id)).deployment;
    const list = async () => (await t.admin.listDeployments(service.id)).deployments;
    expect((await list()).find((d) => d.id === second.id)!.status).to.equal('superseded');
    await t.admin.abortDeployment(third.id);
    expect((await list()).find((d) => d.id === third.id)!.status).to.equal('aborted');
    await t.admin.abortDeployment(first.id);
    await waitForDeployment(t.admin, service.id, first.id, ['aborted'], 30_000);
  });

  it('buildMethod dockerfile without a Dockerfile fails with the reason in the logs', async () => {
    const service = await gitService({ 'README.md': 'no dockerfile here\n' }, { buildMethod: 'dockerfile' });
    const dep = await deployAndWait(service, ['failed', 'running']);
    expect(dep.status).to.equal('failed');
    const { logs } = await t.admin.deploymentLogs(dep.id);
    expect(logs.map((l) => l.line).join('\n')).to.match(/buildMethod is dockerfile, but there is no Dockerfile at Dockerfile/);
  });

  it('auto without a Dockerfile runs autobuild, which fails clearly on a repository it cannot place, and records detectedBuildMethod', async () => {
    const service = await gitService({ 'README.md': 'nothing to build\n' });
    const dep = await deployAndWait(service, ['failed', 'running']);
    expect(dep.status).to.equal('failed');
    const { logs } = await t.admin.deploymentLogs(dep.id);
    expect(logs.at(-1)!.line).to.match(/autobuild could not tell what kind of project this is: it looked for/);
    expect((await t.admin.overview(service.id)).service.detectedBuildMethod).to.equal('autobuild');
  });

  it('<SERVICE>_DOCKERFILE_PATH beats dockerfilePath, both relative to rootDir', async () => {
    const a = webApp('built from A');
    const b = webApp('built from B');
    const files: Record<string, string> = {
      'apps/site/docker/A.Dockerfile': a.Dockerfile!.replace('COPY www /www', 'COPY a /www'),
      'apps/site/docker/B.Dockerfile': b.Dockerfile!.replace('COPY www /www', 'COPY b /www'),
      'apps/site/a/index.html': 'built from A\n',
      'apps/site/b/index.html': 'built from B\n',
    };
    const service = await gitService(files, { rootDir: 'apps/site', dockerfilePath: 'docker/A.Dockerfile', buildMethod: 'dockerfile' });
    await deployAndWait(service);
    expect((await httpText(`http://127.0.0.1:${service.hostPort}/`)).text).to.equal('built from A\n');
    await t.admin.setEnv(service.id, `${service.slug.toUpperCase().replace(/-/g, '_')}_DOCKERFILE_PATH`, 'docker/B.Dockerfile');
    await deployAndWait(service);
    expect((await httpText(`http://127.0.0.1:${service.hostPort}/`)).text).to.equal('built from B\n');
  });

  it('resolves ${service.VAR} references inside the container at deploy time', async () => {
    const { service: source } = await t.admin.createService(projectId, {
      name: uniq('src'),
      repoUrl: 'docker-image',
      dockerImage: 'berth-test/httpd:latest',
      internalPort: 8080,
      env: [{ key: 'WORD', value: 'bonjour' }],
    });
    const service = await gitService(webApp('refs'));
    await t.admin.setEnv(service.id, 'GREETING', `\${${source.name}.WORD} from \${${source.name}.PRIVATE_HOST}`);
    await deployAndWait(service);
    expect((await httpText(`http://127.0.0.1:${service.hostPort}/cgi-bin/env`)).text.trim()).to.equal(`greeting=bonjour from ${source.slug}`);
  });

  it('services of a project reach each other by name on the project network', async () => {
    const { service: backend } = await t.admin.createService(projectId, { name: uniq('backend'), repoUrl: 'docker-image', dockerImage: 'berth-test/httpd:latest', internalPort: 8080 });
    await deployAndWait(backend);
    const files = webApp('frontend');
    files['www/cgi-bin/peer#x'] = '#!/bin/sh\necho "Content-Type: text/plain"\necho\nwget -q -O - "http://$BACKEND_HOST:8080/"\n';
    const frontend = await gitService(files, { env: [{ key: 'BACKEND_HOST', value: `\${${backend.name}.PRIVATE_HOST}` }] });
    await deployAndWait(frontend);
    expect((await httpText(`http://127.0.0.1:${frontend.hostPort}/cgi-bin/peer`)).text.trim()).to.equal('image ok');
  });

  it('reachable follows the live container: false once it stops answering', async () => {
    const service = await gitService(webApp('mortal'));
    const dep = await deployAndWait(service);
    expect((await t.admin.overview(service.id)).service.reachable).to.equal(true);
    docker('stop', '-t', '0', dep.containerName!);
    await until('reachable to turn false', async () => (await t.admin.overview(service.id)).service.reachable === false, 15_000);
    docker('start', dep.containerName!);
    await until('reachable to turn true again', async () => (await t.admin.overview(service.id)).service.reachable === true, 15_000);
    // the restarted container is on a new ephemeral port, and the host port follows it
    expect((await httpText(`http://127.0.0.1:${service.hostPort}/`)).text).to.equal('mortal\n');
  });

  it('a worker runs with no port', async () => {
    const service = await gitService({ Dockerfile: 'FROM berth-test/busybox:latest\nCMD ["sh", "-c", "while true; do echo working; sleep 1; done"]\n' }, { runtimeMode: 'worker' });
    const dep = await deployAndWait(service);
    expect(dep.status).to.equal('running');
    expect((await t.admin.overview(service.id)).service).to.include({ status: 'active', hostPort: null });
  });

  it('deleting a service removes its containers and images; deleting the project removes its network', async () => {
    const { project } = await t.admin.createProject({ name: uniq('gone') });
    const repo = `acme/${uniq('gone')}` as const;
    await git.commit(repo, webApp('bye'));
    const { service } = await t.admin.createService(project.id, { name: 'gone', repoFullName: repo, githubToken: 'git-token-123', internalPort: 8080 });
    await deployAndWait(service);
    expect(containersWithLabel(`dev.berth.service=${service.id}`)).to.have.length(1);
    expect(builtImagesOf({ serviceId: service.id })).to.have.length(1);
    await t.admin.deleteService(service.id);
    expect(containersWithLabel(`dev.berth.service=${service.id}`)).to.deep.equal([]);
    expect(builtImagesOf({ serviceId: service.id })).to.deep.equal([]);
    const failed = await httpText(`http://127.0.0.1:${service.hostPort}/`).catch((e: Error) => ({ status: 0, text: e.message }));
    expect(failed.status).to.equal(0);
    expect(docker('network', 'ls', '-q', '--filter', `name=berth-${project.id}`)).not.to.equal('');
    await t.admin.deleteProject(project.id);
    expect(docker('network', 'ls', '-q', '--filter', `name=berth-${project.id}`)).to.equal('');
  });

  it('a branch given for one deployment builds that branch once', async () => {
    const repo = `acme/${uniq('branch')}` as const;
    await git.commit(repo, webApp('main branch'));
    await git.commit(repo, webApp('feature branch'), { branch: 'feature' });
    const { service } = await t.admin.createService(projectId, { name: uniq('br'), repoFullName: repo, githubToken: 'git-token-123', internalPort: 8080 });
    const { deployment } = await t.admin.deploy(service.id, { branch: 'feature', force: true });
    await waitForDeployment(t.admin, service.id, deployment.id, ['running']);
    expect((await httpText(`http://127.0.0.1:${service.hostPort}/`)).text).to.equal('feature branch\n');
    expect((await t.admin.overview(service.id)).service.branch).to.equal('main');
  });
});
