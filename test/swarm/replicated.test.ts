// Services on Swarm, end to end on a real swarm on one machine: the host's dockerd is the manager,
// two Docker-in-Docker containers are workers (test/helpers/swarm-nodes.ts). An image service that
// exists only on the manager, scaled to 3 replicas, is pushed to Berth's registry, runs tasks on
// the workers and serves through Caddy (host port and a domain) from every task; losing a worker
// under 50 ms pollers leaves a failed-request window that closes; an image that cannot be pulled
// fails the deployment with the task's error and node in the log while the previous release keeps
// serving; scaling back to 1 returns to a container; replicas 2 with Swarm off is refused (409).
// Each worker loses the images of deployments older than a rollback needs (the pruning job runs
// the stand-in docker CLI image, berth-test/docker-cli, on every node).
// Run under `flock /tmp/berth-host-swarm.lock` (the host's Swarm mode is host-wide).
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { connect as tlsConnect } from 'node:tls';
import { join } from 'node:path';
import { BerthCa } from '../../daemon/databases/tls.js';
import { RegistryApi } from '../../daemon/docker/registry-api.js';
import type { Service } from '../../shared/types.js';
import { openTerminalSocket } from '../../shared/terminal-socket.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { docker, requireDocker } from '../helpers/docker.js';
import { httpProbe, pollAll } from '../helpers/pollers.js';
import { bridgeAddress, deploymentLogText, hostSwarm, removeSwarmLeftovers, requireSwarmImages, startWorker, type SwarmWorker } from '../helpers/swarm-nodes.js';
import { until, waitForDeployment } from '../helpers/wait.js';

const REGISTRY_PORT = 5443;
const ENGINE_PORT = 5444;

describe('replicated services on Swarm', function () {
  this.timeout(240_000);
  let t: TestDaemon;
  let projectId: string;
  let workers: SwarmWorker[] = [];
  let service: Service;
  const domain = 'replicated.swarm.test';

  async function deploy(serviceId: string, statuses = ['running']) {
    const { deployment } = await t.admin.deploy(serviceId);
    return waitForDeployment(t.admin, serviceId, deployment.id, statuses, 200_000);
  }
  const deployLog = (deploymentId: string) => deploymentLogText(t.admin, deploymentId);

  before(async function () {
    this.timeout(300_000);
    requireDocker();
    const images = requireSwarmImages();
    hostSwarm.assertOff();
    // the registry: the stand-in for registry:2 that test/setup/swarm-images.sh builds
    t = await startTestDaemon({
      BERTH_REGISTRY_PORT: String(REGISTRY_PORT),
      BERTH_IMAGE_REGISTRY: images.registry,
      BERTH_IMAGE_DOCKER_CLI: images.dockerCli,
      BERTH_IMAGE_NODE: images.nodeJs,
      BERTH_NODE_ENGINE_PORT: String(ENGINE_PORT),
      // the live image and one to roll back to: a third deployment makes the first one's image go
      BERTH_KEEP_IMAGES: '1',
      BERTH_HEALTH_TIMEOUT: '60',
    });
    await t.admin.patchSystemSettings({ httpsMode: 'http' });
    projectId = (await t.admin.createProject({ name: `swarm-${Date.now()}` })).project.id;
  });

  after(async function () {
    this.timeout(120_000);
    try {
      await t?.stop();
    } finally {
      removeSwarmLeftovers(bridgeAddress(), REGISTRY_PORT);
    }
  });

  it('refuses replicas above 1 while Swarm is off (409)', async () => {
    const err = await t.admin.createService(projectId, { name: 'two', repoUrl: 'docker-image', dockerImage: 'berth-test/httpd:latest', internalPort: 8080, replicas: 2 }).catch((e: unknown) => e);
    expect((err as { status?: number }).status).to.equal(409);
    expect((err as Error).message).to.match(/Swarm/);
  });

  it('runs 3 replicas pushed to Berth registry, on the workers, behind Caddy', async function () {
    this.timeout(300_000);
    const manager = bridgeAddress();
    hostSwarm.on(manager);
    const token = docker('swarm', 'join-token', '-q', 'worker');
    // the workers trust Berth's CA for its registry, as the join script makes a node do
    const caPem = await new BerthCa(join(t.dataDir, 'tls')).caPem();
    workers = await Promise.all(['a', 'b'].map((s) => startWorker(`rt-${s}`)));
    for (const w of workers) {
      const dir = `/etc/docker/certs.d/${manager}:${REGISTRY_PORT}`;
      spawnSync('docker', ['exec', '-i', w.name, 'sh', '-c', `mkdir -p ${dir} && cat > ${dir}/ca.crt`], { input: caPem });
      const joined = await w.docker('swarm', 'join', '--token', token, `${manager}:2377`);
      expect(joined.status, joined.stderr).to.equal(0);
    }
    // the workers run every task: the manager only builds, pushes and routes
    docker('node', 'update', '--availability', 'drain', docker('info', '--format', '{{.Swarm.NodeID}}'));

    service = (await t.admin.createService(projectId, { name: 'web', repoUrl: 'docker-image', dockerImage: 'berth-test/httpd:latest', internalPort: 8080, replicas: 3 })).service;
    await t.admin.addDomain(service.id, domain);
    const dep = await deploy(service.id);
    const log = await deployLog(dep.id);
    expect(log).to.match(new RegExp(`Pushing berth-test/httpd:latest to Berth's registry as ${manager}:${REGISTRY_PORT}/berth/${service.id}:${dep.id}`));
    expect(log).to.match(/task [123]\/3 running on berth-test-node-rt-[ab]/);
    expect(dep.containerName).to.match(/^berth-web-/);

    const { instances } = await t.admin.listInstances(service.id);
    const running = instances.filter((i) => i.state === 'running');
    expect(running).to.have.length(3);
    expect(new Set(running.map((i) => i.nodeHostname))).to.satisfy((hosts: Set<string>) => [...hosts].every((h) => h.startsWith('berth-test-node-rt-')));
    expect(Object.keys(instances[0]!).sort()).to.deep.equal(['desiredState', 'error', 'id', 'nodeHostname', 'nodeId', 'startedAt', 'state']);

    const port = t.caddy!.httpPort;
    await until('Caddy routes to the pool', async () => (await httpProbe(service.hostPort!)()).ok, 20_000);
    for (let i = 0; i < 6; i++) {
      expect(await httpProbe(service.hostPort!)()).to.deep.equal({ ok: true, text: 'image ok' });
      expect(await httpProbe(port, domain)()).to.deep.equal({ ok: true, text: 'image ok' });
    }
  });

  it("runs a command and a terminal in a task on a worker, through that node's engine relay; the relay takes no client without Berth's certificate", async function () {
    this.timeout(180_000);
    const workerContainers = async () => (await Promise.all(workers.map((w) => w.docker('ps', '-q', '--no-trunc', '--filter', `label=dev.berth.service=${service.id}`)))).map((r) => r.stdout);
    let out = '';
    const done = await t.admin.exec(service.id, { command: ['sh', '-c', 'cat /etc/hostname; echo oops >&2; exit 7'] }, (o) => o.stream === 'stdout' && (out += o.line));
    expect(done, JSON.stringify(done)).to.deep.equal({ exitCode: 7 });
    expect((await t.admin.listExecs(service.id)).execs[0]).to.include({ exitCode: 7 });
    // it ran in one of the tasks' containers, on a worker (the manager is drained): its hostname is the container's short id
    const onWorkers = (await workerContainers()).join('\n');
    expect(out.trim()).to.match(/^[0-9a-f]{12}$/);
    expect(onWorkers).to.include(out.trim());

    // `run`: a new container from the image the Swarm service names, here on the manager
    let ran = '';
    expect(await t.admin.exec(service.id, { command: ['sh', '-c', 'echo "ran with PORT=$PORT"'], mode: 'run' }, (o) => (ran += o.line))).to.deep.equal({ exitCode: 0 });
    expect(ran).to.equal('ran with PORT=8080');

    const { token } = await t.admin.createKey({ name: 'terminal on a worker', access: 'write', projects: [projectId] });
    const sock = await openTerminalSocket({ baseUrl: t.url, token, serviceId: service.id, cols: 80, rows: 24 });
    let screen = '';
    sock.onData((b) => (screen += b.toString('utf8')));
    const closed = new Promise<{ code: number; reason: string }>((resolve) => sock.onClose((code, reason) => resolve({ code, reason })));
    sock.write('echo te""rm-$(cat /etc/hostname)\n');
    await until('the terminal echo', async () => /term-[0-9a-f]{12}/.test(screen), 15_000, 50);
    expect(onWorkers).to.include(/term-([0-9a-f]{12})/.exec(screen)![1]!);
    sock.write('exit\n');
    expect((await closed).reason).to.match(/exited with code 0/);

    // one relay per worker used, pinned to it, published in host mode; no client certificate: refused
    const relays = docker('service', 'ls', '--filter', 'label=dev.berth.role=node-engine', '--format', '{{.Name}}').split('\n').filter(Boolean);
    expect(relays.length).to.be.within(1, 2);
    const relayNode = docker('service', 'ps', '--filter', 'desired-state=running', '--format', '{{.Node}}', relays[0]!);
    const relayWorker = workers.find((w) => w.hostname === relayNode)!;
    expect(relayWorker, relayNode).to.not.equal(undefined);
    const ask = (cert: { cert?: string; key?: string }) =>
      new Promise<string>((resolve) => {
        let answer = '';
        const sock = tlsConnect({ host: relayWorker.address, port: ENGINE_PORT, rejectUnauthorized: false, ...cert }, () => sock.write('GET /_ping HTTP/1.1\r\nHost: docker\r\n\r\n'));
        sock.on('data', (d: Buffer) => ((answer += d.toString()), answer.includes('OK') && sock.end()));
        sock.on('error', (err) => (answer += `error: ${err.message}`));
        sock.on('close', () => resolve(answer));
        sock.setTimeout(10_000, () => sock.destroy());
      });
    const client = await new BerthCa(join(t.dataDir, 'tls')).client('berth-daemon');
    expect(await ask(client)).to.match(/^HTTP\/1.1 200 OK[\s\S]*OK$/);
    const refused = await ask({});
    expect(refused).to.not.match(/HTTP/);
    expect(refused).to.match(/certificate required|handshake/i);
  });

  it('prunes old images on every worker: the live one and the rollback one stay, older digests go, no pruning job is left', async function () {
    this.timeout(420_000);
    // four deployments of four images (the same content with another label each: another digest)
    const image = 'berth-test/prune-web:latest';
    const rebuild = (generation: number) => {
      const build = spawnSync('docker', ['build', '-q', '-t', image, '-'], {
        input: `FROM berth-test/httpd:latest\nLABEL dev.berth.test.generation=${generation}-${Date.now()}\n`,
        encoding: 'utf8',
        env: { ...process.env, DOCKER_BUILDKIT: '0' },
      });
      expect(build.status, build.stderr).to.equal(0);
    };
    rebuild(0);
    const pruned = (await t.admin.createService(projectId, { name: 'pruned', repoUrl: 'docker-image', dockerImage: image, internalPort: 8080, replicas: 3 })).service;
    const repo = `${bridgeAddress()}:${REGISTRY_PORT}/berth/${pruned.id}`;
    const digests: string[] = [];
    const deploymentIds: string[] = [];
    for (let generation = 0; generation < 4; generation++) {
      if (generation > 0) rebuild(generation);
      const dep = await deploy(pruned.id);
      deploymentIds.push(dep.id);
      // the manager's pushed tag of the live deployment names the digest in Berth's registry
      const repoDigests = docker('image', 'inspect', '-f', '{{range .RepoDigests}}{{println .}}{{end}}', `${repo}:${dep.id}`).split('\n');
      digests.push(repoDigests.find((l) => l.startsWith(`${repo}@`))!.slice(repo.length + 1));
    }
    expect(new Set(digests).size, 'four different digests').to.equal(4);
    const [first, second, rollback, live] = digests as [string, string, string, string];
    const onWorker = async (w: SwarmWorker) => {
      const out = await w.docker('image', 'ls', '--digests', '--format', '{{.Repository}} {{.Tag}} {{.Digest}}');
      return out.stdout.split('\n').filter((l) => l.startsWith(`${repo} `));
    };
    const pruneDone = async () => {
      if (docker('service', 'ls', '-q', '--filter', 'name=berth-prune-')) return false;
      for (const w of workers) {
        const held = (await onWorker(w)).map((l) => l.split(' ')[2]);
        if (held.includes(first) || held.includes(second) || !held.includes(rollback) || !held.includes(live)) return false;
      }
      return true;
    };
    const show = async () => {
      for (const w of workers) console.log(`      ${w.hostname} holds of the service's repository:\n${(await onWorker(w)).map((l) => `        ${l}`).join('\n')}`);
    };
    await until('old images gone from every worker, the live and rollback ones kept, no pruning job left', pruneDone, 150_000, 1000).catch(async (err: unknown) => {
      await show();
      console.log(t.logs.filter((l) => /prun/.test(l)).join('\n'));
      throw err;
    });
    await show();
    console.log(
      t.logs
        .filter((l) => l.startsWith(`pruning ${repo} on `))
        .map((l) => `        ${l.slice(`pruning ${repo} on `.length).trim()}`)
        .join('\n'),
    );
    const logs = t.logs.join('\n');
    // each worker removed the second image itself, by the digest that deployment was pushed with
    for (const w of workers) expect(logs).to.match(new RegExp(`on ${w.hostname}: removed ${repo}[:@]\\S+`));
    expect(t.logs.filter((l) => /Swarm nodes|: task (failed|rejected)/.test(l))).to.deep.equal([]);

    // Berth's registry keeps by the same rule: the rollback and live tags stay, the older two go,
    // and every tag of the service goes once it is deleted
    const address = `${bridgeAddress()}:${REGISTRY_PORT}`;
    const password = (await t.daemon.store.settings.getSealed('registryPassword'))!;
    const registryApi = new RegistryApi(address, { username: 'berth', password, serveraddress: address }, await new BerthCa(join(t.dataDir, 'tls')).caPem());
    const tagsNow = async () => (await registryApi.tags(`berth/${pruned.id}`)).sort();
    expect((await tagsNow()).length).to.equal(4);
    const collected = await t.daemon.engine.collectRegistryGarbage();
    expect(collected?.deletedManifests).to.equal(2);
    expect(await tagsNow()).to.deep.equal([...deploymentIds.slice(2)].sort());
    await t.admin.deleteService(pruned.id);
    await t.daemon.engine.collectRegistryGarbage();
    expect(await tagsNow()).to.deep.equal([]);
  });

  it('keeps serving when a worker dies: the failed-request window closes once Swarm reschedules', async function () {
    this.timeout(180_000);
    const pollers = pollAll({ hostPort: httpProbe(service.hostPort!), domain: httpProbe(t.caddy!.httpPort, domain) });
    const gone = workers[0]!;
    const killedAt = Date.now();
    gone.remove();
    // Swarm marks the node down after its heartbeat period and starts the lost tasks elsewhere
    await until(
      'three tasks running again on the remaining worker',
      async () => (await t.admin.listInstances(service.id)).instances.filter((i) => i.state === 'running' && i.nodeHostname === workers[1]!.hostname).length === 3,
      120_000,
      1000,
    );
    await new Promise((r) => setTimeout(r, 5000));
    const [hostPort, dom] = await pollers.stop();
    const after = (p: { failures: string[] }) => p.failures.filter((f) => Date.parse(f.slice(0, 24)) > Date.now() - 4000);
    const window = [...hostPort!.failures, ...dom!.failures].map((f) => Date.parse(f.slice(0, 24))).sort();
    const span = window.length > 0 ? `${window.length} failed request(s) from +${window[0]! - killedAt} ms to +${window.at(-1)! - killedAt} ms after the kill` : '0 failed requests';
    console.log(`      failed-request window while a worker died: ${span} (${hostPort!.answers.length + dom!.answers.length} answered)`);
    expect(after(hostPort!), 'failures in the last 4 s (host port)').to.deep.equal([]);
    expect(after(dom!), 'failures in the last 4 s (domain)').to.deep.equal([]);
    workers = workers.slice(1);
  });

  it('fails a deployment whose image cannot be pulled, with the task error and node in the log, and the previous release keeps serving', async function () {
    this.timeout(180_000);
    // the remaining worker stops trusting Berth's registry: its pull of the new tag fails (x509)
    const survivor = workers[0]!;
    const certs = `/etc/docker/certs.d/${bridgeAddress()}:${REGISTRY_PORT}`;
    await survivor.exec(['mv', certs, `${certs}.off`]);
    const { deployment } = await t.admin.deploy(service.id);
    const dep = await waitForDeployment(t.admin, service.id, deployment.id, ['failed', 'running'], 200_000);
    const log = await deployLog(dep.id);
    console.log(
      log
        .split('\n')
        .filter((l) => /task|roll|fail/i.test(l))
        .slice(0, 12)
        .map((l) => `        ${l}`)
        .join('\n'),
    );
    expect(dep.status, log).to.equal('failed');
    expect(log).to.match(/task \d\/3 (rejected|failed) on berth-test-node-rt-b: \S/);
    expect(log).to.match(/previous release/);
    expect(await httpProbe(service.hostPort!)()).to.deep.equal({ ok: true, text: 'image ok' });
    expect((await t.admin.listInstances(service.id)).instances.filter((i) => i.state === 'running')).to.have.length(3);
    await survivor.exec(['mv', `${certs}.off`, certs]);
  });

  it('returns to a single container when scaled back to 1', async function () {
    this.timeout(180_000);
    await t.admin.patchService(service.id, { replicas: 1 });
    const dep = await deploy(service.id);
    expect(dep.containerName).to.not.equal(null);
    await until('the Swarm service is gone', async () => !docker('service', 'ls', '-q', '--filter', `label=dev.berth.service=${service.id}`), 30_000, 500);
    await until('Caddy routes to the container', async () => (await httpProbe(service.hostPort!)()).ok, 20_000);
    const { instances } = await t.admin.listInstances(service.id);
    expect(instances.filter((i) => i.state === 'running')).to.have.length(1);
  });
});
