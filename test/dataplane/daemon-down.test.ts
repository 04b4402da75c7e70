// Caddy is the data plane: apps keep answering while the daemon is killed, stopped, restarted or
// redeploying, and while Caddy itself restarts. The daemon runs as a real process (as in
// production) beside a real Caddy run with `--resume`; pollers send a request every 50 ms to a web
// service through its domain (Caddy's HTTP address with a Host header) and its host port, and a
// Redis PING to a database's host port (published by the Docker Engine), each on a new connection.
import { expect } from 'chai';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BerthClient } from '../../shared/client.js';
import type { Service } from '../../shared/types.js';
import { TestCaddy } from '../helpers/caddy.js';
import { DaemonProcess } from '../helpers/daemon-process.js';
import { requireDatabaseImages } from '../helpers/databases.js';
import { docker, requireDocker } from '../helpers/docker.js';
import { uniq } from '../helpers/fixtures.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { webApp } from '../helpers/apps.js';
import { httpProbe, pollAll, redisProbe, type Poller } from '../helpers/pollers.js';
import { until, waitForDeployment } from '../helpers/wait.js';
import { PORT_RANGES } from '../helpers/port-ranges.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the data plane while the daemon is down (daemon process, real Caddy)', function () {
  this.timeout(300_000);
  const secret = `dataplane-${uniq('key')}-0123456789`;
  let git: GitServer;
  let caddy: TestCaddy;
  let dataDir: string;
  let daemon: DaemonProcess | undefined;
  let client: BerthClient;
  let web: Service;
  let db: Service;
  let repo: `${string}/${string}`;
  let hostname: string;
  let current = 'dataplane v1';

  const probes = () => ({
    domain: httpProbe(caddy.httpPort, hostname),
    hostPort: httpProbe(web.hostPort!),
    database: redisProbe(db.hostPort!),
  });

  function expectNoFailures(pollers: Poller[]): void {
    for (const p of pollers) {
      expect(p.failures, `${p.name}: failed requests`).to.deep.equal([]);
      expect(p.answers.length, `${p.name}: answers`).to.be.greaterThan(10);
    }
  }

  /** What must not change when a daemon restarts: the live containers (ids, start times) and Caddy's configuration. */
  async function snapshot(): Promise<{ containers: string; caddyConfig: unknown; autosaveMtime: number }> {
    const containers = docker('ps', '-a', '--no-trunc', '--filter', `label=dev.berth.project=${web.projectId}`, '--format', '{{.ID}} {{.Status}}')
      .split('\n')
      .map((l) => `${l.split(' ')[0]} ${docker('inspect', '-f', '{{.State.StartedAt}}', l.split(' ')[0]!)}`)
      .sort()
      .join('\n');
    return { containers, caddyConfig: await caddy.config(), autosaveMtime: statSync(caddy.autosaveFile).mtimeMs };
  }

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    requireDatabaseImages();
    git = await startGitServer();
    caddy = await TestCaddy.create();
    await caddy.start();
    dataDir = mkdtempSync(join(tmpdir(), 'berth-dataplane-'));
    daemon = await DaemonProcess.create({
      ...requireDatabaseImages(),
      ...caddy.env,
      BERTH_DATA_DIR: dataDir,
      BERTH_BOOTSTRAP_KEY: secret,
      BERTH_GIT_BASE_URL: git.baseUrl,
      BERTH_PORT_RANGE: PORT_RANGES.daemonDown,
      BERTH_HEALTH_TIMEOUT: '20',
    });
    client = daemon.client(secret);
    await daemon.start();
    await client.patchSystemSettings({ httpsMode: 'http' });
    const { project } = await client.createProject({ name: uniq('dataplane') });
    repo = `acme/${uniq('dp-web')}`;
    await git.commit(repo, webApp(current));
    web = (await client.createService(project.id, { name: uniq('web'), repoFullName: repo, internalPort: 8080 })).service;
    db = (await client.createService(project.id, { name: uniq('cache'), repoFullName: 'database:redis' })).service;
    const deployments = [(await client.deploy(web.id)).deployment, (await client.deploy(db.id)).deployment];
    await waitForDeployment(client, web.id, deployments[0]!.id, ['running']);
    await waitForDeployment(client, db.id, deployments[1]!.id, ['running'], 200_000);
    hostname = `${uniq('app')}.berth.test`;
    expect((await client.addDomain(web.id, hostname)).proxy.ok).to.equal(true);
    for (const [name, probe] of Object.entries(probes())) await until(`${name} to answer`, async () => (await probe()).ok, 30_000);
  });

  after(async () => {
    if (daemon && !daemon.running) await daemon.start().catch(() => undefined);
    if (!caddy?.running) await caddy?.start().catch(() => undefined);
    for (const p of (await client?.listProjects().catch(() => null))?.projects ?? []) await client.deleteProject(p.id);
    await daemon?.stop();
    await caddy?.dispose();
    await git?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('SIGKILL under load: 0 failed requests while the daemon is down and while it starts; the restarted daemon adopts everything and changes nothing', async () => {
    const before = await snapshot();
    const load = pollAll(probes());
    await sleep(500);
    await daemon!.stop('SIGKILL');
    await sleep(2000);
    await daemon!.start();
    await until('the web service to be adopted (reachable)', async () => (await client.overview(web.id)).service.reachable, 30_000);
    await sleep(2000);
    const pollers = await load.stop();
    expectNoFailures(pollers);
    expect(pollers.map((p) => p.answers.at(-1))).to.include(current);
    const after = await snapshot();
    expect(after.containers, 'live containers (ids and start times)').to.equal(before.containers);
    expect(after.caddyConfig, "Caddy's configuration").to.deep.equal(before.caddyConfig);
    expect(after.autosaveMtime, 'no load at all (Caddy autosaves every load)').to.equal(before.autosaveMtime);
  });

  it('a redeploy under the same pollers: 0 failed requests through the domain and on the host port', async () => {
    await git.commit(repo, webApp('dataplane v2'));
    const load = pollAll(probes());
    const { deployment } = await client.deploy(web.id);
    await waitForDeployment(client, web.id, deployment.id, ['running']);
    await until(
      'v2 on the host port',
      async () => {
        const r = await httpProbe(web.hostPort!)();
        return r.ok && r.text === 'dataplane v2';
      },
      20_000,
      100,
    );
    await sleep(1000);
    const pollers = await load.stop();
    current = 'dataplane v2';
    // the v1 container is stopped and removed once Caddy's connections to it are gone (idle ones
    // close after 3 s; 30 s of grace at most); the next tests compare snapshots of every
    // container, so wait for the removal
    const containers = () => docker('ps', '-a', '-q', '--filter', `label=dev.berth.service=${web.id}`).split('\n').filter(Boolean).length;
    await until('the previous container to be retired (removed)', async () => containers() === 1, 40_000, 250);
    expectNoFailures(pollers);
    const [domain, hostPort] = pollers;
    for (const p of [domain!, hostPort!]) {
      expect(p.answers, p.name).to.include('dataplane v1');
      expect(p.answers.at(-1), p.name).to.equal('dataplane v2');
    }
  });

  it('SIGTERM then start (a restart or an upgrade): 0 failed requests', async () => {
    const before = await snapshot();
    const load = pollAll(probes());
    await sleep(500);
    await daemon!.stop('SIGTERM');
    await sleep(1500);
    await daemon!.start();
    await sleep(2000);
    const pollers = await load.stop();
    expectNoFailures(pollers);
    const after = await snapshot();
    expect(after.containers).to.equal(before.containers);
    expect(after.caddyConfig).to.deep.equal(before.caddyConfig);
  });

  it("Caddy restarted while the daemon is down: its routes come back from Caddy's autosave, before the daemon starts", async () => {
    const configBefore = await caddy.config();
    await daemon!.stop('SIGTERM');
    await caddy.stop();
    expect((await httpProbe(web.hostPort!)()).ok, 'nothing answers the host port without Caddy').to.equal(false);
    await caddy.start();
    // the daemon is still down: only Caddy's resumed configuration can answer
    expect(await httpProbe(web.hostPort!)()).to.deep.equal({ ok: true, text: current });
    expect(await httpProbe(caddy.httpPort, hostname)()).to.deep.equal({ ok: true, text: current });
    const resumed = await snapshot();
    expect(resumed.caddyConfig).to.deep.equal(configBefore);
    await daemon!.start();
    await sleep(1000);
    const after = await snapshot();
    expect(after.caddyConfig).to.deep.equal(resumed.caddyConfig);
    expect(after.autosaveMtime, 'the daemon found nothing to load').to.equal(resumed.autosaveMtime);
  });

  it('a container restarted while the daemon is down (as after a reboot) comes back on the same port, and Caddy serves it without the daemon', async () => {
    const id = docker('ps', '-q', '--no-trunc', '--filter', `label=dev.berth.service=${web.id}`);
    const published = docker('port', id, '8080/tcp');
    await daemon!.stop('SIGTERM');
    docker('restart', '-t', '1', id);
    expect(docker('port', id, '8080/tcp')).to.equal(published);
    await until(
      'the host port to answer again, through Caddy alone',
      async () => {
        const [viaPort, viaDomain] = [await httpProbe(web.hostPort!)(), await httpProbe(caddy.httpPort, hostname)()];
        return viaPort.ok && viaDomain.ok && viaPort.text === current;
      },
      20_000,
      100,
    );
    await daemon!.start();
  });

  it('with no Caddy running, the daemon says so loudly and host ports do not answer (no fallback)', async () => {
    await daemon!.stop('SIGTERM');
    await caddy.stop();
    try {
      await daemon!.start();
      await until('the daemon to log that Caddy is missing', async () => /ERROR: Caddy is not reachable at .*no app's host port or domain answers/.test(daemon!.stderr), 10_000, 100);
      expect((await httpProbe(web.hostPort!)()).ok).to.equal(false);
    } finally {
      await caddy.start();
    }
    await until('the host port to answer again', async () => (await httpProbe(web.hostPort!)()).ok, 20_000);
  });
});
