// A tenant after another tenant's images. Project A builds a "victim" image holding a secret;
// project B's selected-projects key names it every way the Docker Engine would resolve it: an ID
// prefix, a bare digest, the full ID, Berth's berth/ tag, an ARG that expands to a prefix, COPY
// --from a prefix, and a normal name the operator tagged onto the victim's image. Every one is
// refused (400 for dockerImage, a failed deployment with a clear build-log line for a Dockerfile),
// the victim's secret never reaches B's logs, and the log never tells B whether the name exists.
import { expect } from 'chai';
import { ApiError, type BerthClient } from '../../shared/client.js';
import type { Project, Service } from '../../shared/types.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { docker, requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { waitForDeployment } from '../helpers/wait.js';

async function apiError(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected the request to be refused');
}

describe("security: image references (IDs, digests, berth/ tags, other services' images)", function () {
  this.timeout(180_000);
  const SECRET = uniq('victim-secret');
  let t: TestDaemon;
  let git: GitServer;
  let a: Project;
  let b: Project;
  let attacker: BerthClient;
  let victimId: string; // sha256:<64 hex> of the victim's built image
  let victimTag: string; // berth/<slug>:<deployment>
  let alias: string; // a normal name tagged onto the victim's image
  const hex = (): string => victimId.replace(/^sha256:/, '');

  before(async function () {
    this.timeout(180_000);
    requireDocker();
    git = await startGitServer();
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: git.baseUrl, BERTH_HEALTH_TIMEOUT: '15' });
    ({ project: a } = await t.admin.createProject({ name: uniq('victim') }));
    ({ project: b } = await t.admin.createProject({ name: uniq('attacker') }));
    attacker = await t.clientWith('write', [b.id]);
    const repo = `victim/${uniq('app')}` as const;
    await git.commit(repo, {
      Dockerfile: ['FROM berth-test/busybox:latest', `RUN mkdir -p /www && echo ${SECRET} > /secret.txt && echo ok > /www/index.html`, 'CMD ["sh", "-c", "exec httpd -f -p ${PORT} -h /www"]', ''].join(
        '\n',
      ),
    });
    const owner = await t.clientWith('write', [a.id]);
    const { service } = await owner.createService(a.id, { name: 'victim', repoFullName: repo });
    const { deployment } = await owner.deploy(service.id);
    const done = await waitForDeployment(owner, service.id, deployment.id, ['running', 'failed']);
    expect(done.status, 'the victim deploys').to.equal('running');
    victimTag = (await owner.overview(service.id)).deployments[0]!.imageTag!;
    victimId = docker('image', 'inspect', '--format', '{{.Id}}', victimTag);
    alias = `${uniq('sec-alias')}:v1`;
    docker('tag', victimId, alias);
  });

  after(async () => {
    if (alias) docker('rmi', alias);
    for (const p of (await t?.admin.listProjects())?.projects ?? []) await t.admin.deleteProject(p.id);
    await t?.stop();
    await git?.stop();
  });

  async function deployAndWait(service: Service): Promise<{ status: string; log: string }> {
    const { deployment } = await attacker.deploy(service.id);
    const done = await waitForDeployment(attacker, service.id, deployment.id, ['running', 'failed'], 120_000);
    const log = (await attacker.deploymentLogs(deployment.id)).logs.map((l) => l.line).join('\n');
    return { status: done.status, log };
  }

  describe('dockerImage', () => {
    const REFUSED = (): [string, RegExp][] => [
      [hex().slice(0, 6), /names an image by its ID or an ID prefix/],
      [hex().slice(0, 12), /names an image by its ID or an ID prefix/],
      [hex(), /names an image by its ID or an ID prefix/],
      [`sha256:${hex().slice(0, 8)}`, /is an image ID \(a digest without a repository\)/],
      [victimId, /is an image ID \(a digest without a repository\)/],
      [victimTag, /is in berth\/, where Berth keeps the images it builds for services/],
      [`docker.io/${victimTag}`, /is in berth\/, where Berth keeps the images it builds for services/],
    ];

    it('an ID prefix, a bare digest, the full ID or a berth/ tag is refused with 400 at create, and nothing is created', async () => {
      const before = (await t.admin.getProject(b.id)).project.services.length;
      for (const [dockerImage, reason] of REFUSED()) {
        const err = await apiError(attacker.createService(b.id, { name: uniq('img'), repoUrl: 'docker-image', dockerImage }));
        expect([err.status, err.code], dockerImage).to.deep.equal([400, 'invalid_image_reference']);
        expect(err.message, dockerImage).to.match(reason);
      }
      expect((await t.admin.getProject(b.id)).project.services.length).to.equal(before);
    });

    it('and with 400 in a patch, which changes nothing', async () => {
      const { service } = await attacker.createService(b.id, { name: uniq('img'), repoUrl: 'docker-image', dockerImage: 'berth-test/busybox:latest' });
      const before = await t.admin.overview(service.id);
      for (const [dockerImage] of REFUSED()) {
        const err = await apiError(attacker.patchService(service.id, { dockerImage } as never));
        expect(err.status, dockerImage).to.equal(400);
      }
      expect(await t.admin.overview(service.id)).to.deep.equal(before);
    });

    it('a row stored before the rule fails its deployment with the reason, before looking the image up', async () => {
      const { service } = await attacker.createService(b.id, { name: uniq('old'), repoUrl: 'docker-image', dockerImage: 'berth-test/busybox:latest', runtimeMode: 'worker' });
      await t.daemon.store.services.update(service.id, { dockerImage: hex().slice(0, 8) });
      const { status, log } = await deployAndWait(service);
      expect(status).to.equal('failed');
      expect(log).to.match(/names an image by its ID or an ID prefix/);
      expect(log).not.to.include('present locally');
      expect(log).not.to.include('Pulling');
    });

    it("a normal name on another service's image is never used, and the log reads as for a name that is not here", async () => {
      const missing = `${uniq('sec-missing')}:v1`;
      const lines: string[] = [];
      for (const dockerImage of [alias, missing]) {
        const { service } = await attacker.createService(b.id, { name: uniq('alias'), repoUrl: 'docker-image', dockerImage, runtimeMode: 'worker' });
        const { status, log } = await deployAndWait(service);
        expect(status, dockerImage).to.equal('failed');
        expect(log, `${dockerImage}\n${log}`).not.to.include('(present locally)');
        expect(log, dockerImage).to.include(`Pulling ${dockerImage}`);
        lines.push(
          log
            .split('\n')
            .filter((l) => l.startsWith('Pulling') || l.startsWith('Deployment failed'))
            .map((l) =>
              l
                .split(dockerImage)
                .join('NAME')
                .replace(/deployment \S+/g, ''),
            )
            .join('\n'),
        );
      }
      expect(lines[0]).to.equal(lines[1]);
    });
  });

  describe('Dockerfiles', () => {
    async function buildWith(dockerfile: string): Promise<{ status: string; log: string }> {
      const repo = `attacker/${uniq('build')}` as const;
      await git.commit(repo, { Dockerfile: dockerfile, 'index.html': 'hi\n' });
      const { service } = await attacker.createService(b.id, { name: uniq('build'), repoFullName: repo, runtimeMode: 'worker' });
      return deployAndWait(service);
    }
    const steal = ['RUN cat /secret.txt /stolen.txt 2>&1; ls -la /', 'CMD ["sleep", "3600"]', ''];

    it('FROM an ID prefix, a digest or berth/ fails the deployment with a line naming the instruction, and nothing of the victim is read', async () => {
      const cases: [string, RegExp][] = [
        [hex().slice(0, 8), /the Dockerfile's FROM [0-9a-f]{8} on line 1 names an image by its ID or an ID prefix/],
        [`sha256:${hex().slice(0, 10)}`, /the Dockerfile's FROM sha256:[0-9a-f]{10} on line 1 is an image ID/],
        [victimTag, /the Dockerfile's FROM berth\/\S+ on line 1 is in berth\//],
      ];
      for (const [from, line] of cases) {
        const { status, log } = await buildWith([`FROM ${from}`, ...steal].join('\n'));
        expect(status, from).to.equal('failed');
        expect(log, from).to.match(line);
        expect(log, from).to.include('the build was not started');
        expect(log, from).not.to.include(SECRET);
        expect(log, from).not.to.match(/^Step \d/m);
      }
    });

    it('an ARG default that expands to an ID prefix in FROM is refused the same way', async () => {
      const { status, log } = await buildWith([`ARG BASE=${hex().slice(0, 8)}`, 'FROM ${BASE}', ...steal].join('\n'));
      expect(status).to.equal('failed');
      expect(log).to.match(/the Dockerfile's FROM \$\{BASE\} on line 2 \([0-9a-f]{8} after ARG expansion\) names an image by its ID/);
      expect(log).not.to.include(SECRET);
    });

    it("COPY --from an ID prefix, a digest or a name on the victim's image fails, and the victim's file never reaches the log", async () => {
      const cases: [string, RegExp][] = [
        [hex().slice(0, 8), /the Dockerfile's COPY --from [0-9a-f]{8} on line 2 names an image by its ID/],
        [`sha256:${hex().slice(0, 10)}`, /the Dockerfile's COPY --from sha256:[0-9a-f]{10} on line 2 is an image ID/],
        [alias, /image \S+ is not present locally and could not be pulled/],
      ];
      for (const [from, line] of cases) {
        const { status, log } = await buildWith(['FROM berth-test/busybox:latest', `COPY --from=${from} /secret.txt /stolen.txt`, ...steal].join('\n'));
        expect(status, from).to.equal('failed');
        expect(log, from).to.match(line);
        expect(log, from).not.to.include(SECRET);
        expect(log, from).not.to.include('present locally (COPY');
      }
    });

    it('multi-stage names declared with AS, and plain local images, still build', async () => {
      const { status, log } = await buildWith(
        [
          'ARG BASE=berth-test/busybox:latest',
          'FROM ${BASE} AS first',
          'RUN echo staged > /staged.txt',
          'FROM berth-test/busybox:latest',
          'COPY --from=first /staged.txt /staged.txt',
          'COPY --from=0 /staged.txt /again.txt',
          'CMD ["sleep", "3600"]',
          '',
        ].join('\n'),
      );
      expect(status, log).to.equal('running');
      expect(log).to.include('Using image berth-test/busybox:latest (present locally) (FROM on line 2)');
    });
  });
});
