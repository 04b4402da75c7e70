// Running a replicated service day to day, on a real swarm on this machine (the host's dockerd is
// the manager; two Docker-in-Docker workers join with the REAL join command): a service placed on
// labelled workers reaches the project's containers by name over the overlay, and they reach it; a
// redeploy of an app that takes seconds to boot keeps answering; a drained worker's tasks move to
// the other one while requests keep answering; an aborted rolling update leaves the previous
// release serving; a postgres database keeps its data through a redeploy with Swarm on and stays
// reachable by name from the tasks; turning Swarm off again leaves single-server Berth as it was.
// Run under `flock /tmp/berth-host-swarm.lock` (the host's Swarm mode is host-wide).
import { expect } from 'chai';
import type { Service } from '../../shared/types.js';
import { freePort } from '../helpers/caddy.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDatabaseImage } from '../helpers/databases.js';
import { docker, requireDocker } from '../helpers/docker.js';
import { httpProbe, pollAll, type Poller } from '../helpers/pollers.js';
import {
  bridgeAddress,
  deploymentLogText,
  hostSwarm,
  hostSwarmState,
  joinWithCommand,
  removeAllWorkers,
  removeSwarmLeftovers,
  requireSwarmImages,
  startWorker,
  type SwarmWorker,
} from '../helpers/swarm-nodes.js';
import { until, waitForDeployment } from '../helpers/wait.js';

const REGISTRY_PORT = 5443;
/** An app that needs a few seconds before it answers, as most real ones do. */
const SLOW_BOOT = 'sleep 3; exec httpd -f -p ${PORT} -h /www';

/** Caddy's whole configuration with every upstream's port masked: what routes where, not which port a container got. */
async function caddyRoutes(adminUrl: string): Promise<string> {
  const config = await (await fetch(`${adminUrl}/config/`)).text();
  return config.replace(/"dial":"127\.0\.0\.1:\d+"/g, '"dial":"127.0.0.1:<port>"');
}

/** Berth's Docker objects of a project, by kind and name. */
function projectObjects(projectId: string): string[] {
  const out: string[] = [];
  for (const kind of ['network', 'volume', 'service'] as const) {
    if (kind === 'service' && hostSwarmState() !== 'active') continue;
    const names = docker(kind, 'ls', '--filter', `label=dev.berth.project=${projectId}`, '--format', '{{.Name}}');
    out.push(
      ...names
        .split('\n')
        .filter(Boolean)
        .map((n) => `${kind} ${n}`),
    );
  }
  const containers = docker('ps', '--filter', `label=dev.berth.project=${projectId}`, '--format', '{{.Label "dev.berth.service"}}');
  out.push(
    ...containers
      .split('\n')
      .filter(Boolean)
      .map((s) => `container of ${s}`),
  );
  return out.sort();
}

describe('replicated services day to day: placement, names across nodes, redeploys, drains, aborts, a database, Swarm off again', function () {
  this.timeout(240_000);
  let t: TestDaemon;
  let projectId: string;
  let manager: string;
  let workers: SwarmWorker[] = [];
  let nodeIdOf: Map<string, string>;
  let plain: Service;
  let db: Service;
  let web: Service;
  let asBefore: { routes: string; objects: string[] };
  const domain = 'day-to-day.swarm.test';

  async function deploy(serviceId: string, statuses = ['running']) {
    const { deployment } = await t.admin.deploy(serviceId);
    return waitForDeployment(t.admin, serviceId, deployment.id, statuses, 200_000);
  }
  const deployLog = (deploymentId: string) => deploymentLogText(t.admin, deploymentId);
  const running = async (serviceId: string) => (await t.admin.listInstances(serviceId)).instances.filter((i) => i.state === 'running');
  /** Runs `sh -c script` in a running task container of `web` on `worker`. */
  async function inTask(worker: SwarmWorker, script: string) {
    const ids = (await worker.docker('ps', '-q', '--filter', `label=dev.berth.service=${web.id}`)).stdout.trim().split('\n').filter(Boolean);
    expect(ids, `a task of web on ${worker.name}`).to.not.deep.equal([]);
    return worker.docker('exec', ids[0]!, 'sh', '-c', script);
  }
  const failuresOf = (results: Poller[]) => results.flatMap((r) => r.failures);

  before(async function () {
    this.timeout(600_000);
    requireDocker();
    const { registry, nodeJs } = requireSwarmImages();
    const postgres = requireDatabaseImage('postgres');
    hostSwarm.assertOff();
    removeSwarmLeftovers();
    manager = bridgeAddress();
    t = await startTestDaemon({
      BERTH_IMAGE_REGISTRY: registry,
      // the engine relay a database created on a worker is driven through
      BERTH_IMAGE_NODE: nodeJs,
      BERTH_REGISTRY_PORT: String(REGISTRY_PORT),
      BERTH_JOIN_TLS_ADDR: `${manager}:${await freePort()}`,
      BERTH_IMAGE_POSTGRES: postgres,
      BERTH_HEALTH_TIMEOUT: '60',
    });
    await t.admin.patchSystemSettings({ httpsMode: 'http' });
    projectId = (await t.admin.createProject({ name: `ops-${Date.now()}` })).project.id;
    // single-server Berth first: a container service and a database
    plain = (await t.admin.createService(projectId, { name: 'plain', repoUrl: 'docker-image', dockerImage: 'berth-test/httpd:latest', internalPort: 8080 })).service;
    db = (await t.admin.createService(projectId, { name: 'db', repoFullName: 'database:postgres' })).service;
    await Promise.all([deploy(plain.id), deploy(db.id)]);
    await t.admin.databaseQuery(db.id, 'CREATE TABLE kept (note text)');
    await t.admin.databaseQuery(db.id, "INSERT INTO kept VALUES ('written before Swarm')");
    asBefore = { routes: await caddyRoutes(t.caddy!.adminUrl), objects: projectObjects(projectId) };

    await t.admin.enableSwarm({ advertiseAddress: manager });
    workers = await Promise.all(['a', 'b'].map((s) => startWorker(`op-${s}`)));
    for (const w of workers) await joinWithCommand(t.admin, w);
    const nodes = await until('both workers ready', async () => {
      const all = (await t.admin.listNodes()).nodes;
      return all.filter((n) => n.role === 'worker' && n.state === 'ready').length === 2 ? all : null;
    });
    nodeIdOf = new Map(nodes.map((n) => [n.hostname, n.id]));
    for (const w of workers) await t.admin.patchNode(nodeIdOf.get(w.hostname)!, { labels: { tier: 'app' } });
  });

  after(async function () {
    this.timeout(120_000);
    removeAllWorkers();
    try {
      await t?.stop();
    } finally {
      removeSwarmLeftovers(manager, REGISTRY_PORT);
    }
  });

  it('runs a service placed on labelled nodes only there, and it reaches the project containers by name over the overlay', async function () {
    this.timeout(300_000);
    web = (
      await t.admin.createService(projectId, {
        name: 'web',
        repoUrl: 'docker-image',
        dockerImage: 'berth-test/httpd:latest',
        internalPort: 8080,
        replicas: 2,
        placement: { nodeLabels: { tier: 'app' } },
        startCommand: SLOW_BOOT,
      })
    ).service;
    await t.admin.addDomain(web.id, domain);
    const dep = await deploy(web.id);
    expect(await deployLog(dep.id)).to.include('on nodes with node.labels.tier==app');
    const tasks = await running(web.id);
    expect(tasks).to.have.length(2);
    expect(tasks.map((i) => i.nodeHostname).sort()).to.deep.equal(workers.map((w) => w.hostname).sort());
    await until('Caddy routes the domain to the tasks', async () => (await httpProbe(t.caddy!.httpPort, domain)()).ok, 20_000);
    // a task on a worker reaches a container on the manager by its name, and the database's port
    const byName = await inTask(workers[0]!, 'wget -qO- http://plain:8080/');
    expect(byName.stdout + byName.stderr).to.equal('image ok\n');
    const db5432 = await inTask(workers[0]!, 'nc -w 3 db 5432 </dev/null && echo db-reached');
    expect(db5432.stdout + db5432.stderr).to.include('db-reached');
  });

  it('keeps answering through a redeploy of an app that takes seconds to boot: Caddy sends traffic only to tasks that answer', async function () {
    this.timeout(300_000);
    const pollers = pollAll({ hostPort: httpProbe(web.hostPort!), domain: httpProbe(t.caddy!.httpPort, domain) });
    const dep = await deploy(web.id);
    await new Promise((r) => setTimeout(r, 2000));
    const results = await pollers.stop();
    const answered = results.reduce((n, r) => n + r.answers.length, 0);
    console.log(`      through a rolling update of 2 tasks booting 3 s each: ${failuresOf(results).length} failed of ${answered + failuresOf(results).length} requests`);
    expect(failuresOf(results), await deployLog(dep.id)).to.deep.equal([]);
  });

  it('moves a drained worker tasks to the other worker while requests keep answering, and counts tasks per node', async function () {
    this.timeout(300_000);
    const [a, b] = workers as [SwarmWorker, SwarmWorker];
    const pollers = pollAll({ hostPort: httpProbe(web.hostPort!), domain: httpProbe(t.caddy!.httpPort, domain) });
    const { node } = await t.admin.patchNode(nodeIdOf.get(a.hostname)!, { availability: 'drain' });
    expect(node.availability).to.equal('drain');
    await until(
      'both tasks running on the other worker',
      async () => {
        const tasks = await running(web.id);
        return tasks.length === 2 && tasks.every((i) => i.nodeHostname === b.hostname);
      },
      120_000,
      500,
    );
    await until('Caddy routes only to the moved tasks', async () => (await httpProbe(t.caddy!.httpPort, domain)()).ok, 20_000);
    await new Promise((r) => setTimeout(r, 3000));
    const results = await pollers.stop();
    const failures = failuresOf(results);
    console.log(`      draining a worker under 50 ms pollers: ${failures.length} failed request(s)${failures.length ? `: ${failures.slice(0, 3).join('; ')}` : ''}`);
    const recent = failures.filter((f) => Date.parse(f.slice(0, 24)) > Date.now() - 3000);
    expect(recent, 'failures in the last 3 s').to.deep.equal([]);
    const counts = new Map((await t.admin.listNodes()).nodes.map((n) => [n.hostname, n.tasks]));
    expect(counts.get(a.hostname)).to.equal(0);
    expect(counts.get(b.hostname)).to.equal(2);
    await t.admin.patchNode(nodeIdOf.get(a.hostname)!, { availability: 'active' });
  });

  it('aborts a rolling update: the deployment ends aborted, the Swarm service is back on the previous image, and it keeps serving', async function () {
    this.timeout(300_000);
    const live = (await t.admin.listDeployments(web.id)).deployments.find((d) => d.status === 'running')!;
    await t.admin.patchService(web.id, { startCommand: 'sleep 600' });
    const { deployment } = await t.admin.deploy(web.id);
    // its check keeps it `starting`: Swarm does not stop an old task for it
    await until('a task of the new image starting on a node', async () => /task \d\/2 starting on/.test(await deployLog(deployment.id)), 120_000, 500);
    await new Promise((r) => setTimeout(r, 3000));
    expect(await running(web.id)).to.have.length(2);
    expect(await t.admin.abortDeployment(deployment.id)).to.deep.equal({ accepted: true });
    const ended = await waitForDeployment(t.admin, web.id, deployment.id, ['aborted', 'failed', 'running'], 150_000);
    expect(ended.status, await deployLog(deployment.id)).to.equal('aborted');
    const image = docker('service', 'inspect', '--format', '{{.Spec.TaskTemplate.ContainerSpec.Image}}', ended.containerName!);
    expect(image).to.include(`/berth/${web.id}:${live.id}`);
    await until('both previous tasks running', async () => (await running(web.id)).length === 2, 60_000, 500);
    expect(await httpProbe(t.caddy!.httpPort, domain)()).to.deep.equal({ ok: true, text: 'image ok' });
    expect((await t.admin.listDeployments(web.id)).deployments.find((d) => d.id === live.id)!.status).to.equal('running');
    await t.admin.patchService(web.id, { startCommand: SLOW_BOOT });
  });

  it('keeps a postgres database data through a redeploy with Swarm on; the new container is reachable by name from the tasks; its node cannot be drained', async function () {
    this.timeout(300_000);
    await deploy(db.id);
    const rows = await t.admin.databaseQuery(db.id, 'SELECT note FROM kept');
    expect(JSON.stringify(rows)).to.include('written before Swarm');
    const reached = await inTask(workers[1]!, 'nc -w 3 db 5432 </dev/null && echo db-reached');
    expect(reached.stdout + reached.stderr).to.include('db-reached');
    const self = (await t.admin.listNodes()).nodes.find((n) => n.role === 'manager')!;
    const refused = await t.admin.request<{ error: { message: string } }>('PATCH', `/api/nodes/${self.id}`, { availability: 'drain' });
    expect(refused.status).to.equal(409);
    expect(refused.body.error.message).to.include('db');
  });

  it('runs a postgres database created on a worker: data kept through a redeploy, a backup restored, reached by name, logs, refusals, removed with it', async function () {
    this.timeout(400_000);
    const nodeA = nodeIdOf.get(workers[0]!.hostname)!;
    const create = (body: Record<string, unknown>) => t.admin.request<{ service: Service; error: { message: string } }>('POST', `/api/projects/${projectId}/services`, body);
    // bad input first: nothing is created
    const notDb = await create({ name: 'nodeweb', repoUrl: 'docker-image', dockerImage: 'berth-test/httpd:latest', nodeId: nodeA });
    expect(notDb.status, JSON.stringify(notDb.body)).to.equal(400);
    const unknown = await create({ name: 'nodedb', repoFullName: 'database:postgres', nodeId: 'no-such-node' });
    expect(unknown.status).to.equal(400);
    const projectKey = await t.clientWith('write', [projectId]);
    const asProject = await projectKey.request<{ error: { message: string } }>('POST', `/api/projects/${projectId}/services`, { name: 'nodedb', repoFullName: 'database:postgres', nodeId: nodeA });
    expect(asProject.status, 'a key over one project does not choose a node').to.equal(403);
    const pub = await create({ name: 'nodedb', repoFullName: 'database:postgres', nodeId: nodeA, databasePublicEnabled: true });
    expect(pub.status).to.equal(400);
    expect(pub.body.error.message).to.include('manager');

    const made = await create({ name: 'nodedb', repoFullName: 'database:postgres', nodeId: nodeA });
    expect(made.status, JSON.stringify(made.body)).to.equal(200);
    const ndb = made.body.service;
    try {
      await onWorkerDatabase(ndb);
    } finally {
      // the next test drains the workers: a database left on one would refuse it
      await t.admin.deleteService(ndb.id).catch(() => undefined);
    }
  });

  /** The runtime log's snapshot (its last lines, as JSON) of a service. */
  async function runtimeSnapshot(serviceId: string): Promise<string> {
    const ac = new AbortController();
    for await (const ev of t.admin.runtimeLogStream(serviceId, { signal: ac.signal })) {
      if (ev.event !== 'snapshot') continue;
      ac.abort();
      return ev.data;
    }
    return '';
  }

  /** The part of the test above that runs with the database created on worker a. */
  async function onWorkerDatabase(ndb: Service): Promise<void> {
    const nodeA = ndb.nodeId!;
    expect(nodeA).to.equal(nodeIdOf.get(workers[0]!.hostname));
    const first = await deploy(ndb.id).catch(async (err: Error) => {
      throw new Error(`${err.message}\nits runtime log: ${await runtimeSnapshot(ndb.id)}`);
    });
    const log = await deployLog(first.id);
    expect(log).to.include("Berth's registry");
    expect(log).to.include('on the node');
    const onWorker = async () => (await workers[0]!.docker('ps', '-q', '--filter', `label=dev.berth.service=${ndb.id}`)).stdout.trim();
    expect(await onWorker(), 'its container runs on the worker it was created on').to.not.equal('');
    expect(docker('ps', '-q', '--filter', `label=dev.berth.service=${ndb.id}`).trim(), 'and not on the manager').to.equal('');

    // browsing and data across a redeploy (the volume stays on the node)
    await t.admin.databaseQuery(ndb.id, 'CREATE TABLE on_node (note text)');
    await t.admin.databaseQuery(ndb.id, "INSERT INTO on_node VALUES ('kept on node a')");
    await deploy(ndb.id);
    expect(JSON.stringify(await t.admin.databaseQuery(ndb.id, 'SELECT note FROM on_node'))).to.include('kept on node a');

    // the project's container on the manager and a task on the other worker reach it by its slug
    const plainId = docker('ps', '-q', '--filter', `label=dev.berth.service=${plain.id}`).trim().split('\n')[0]!;
    expect(docker('exec', plainId, 'sh', '-c', `nc -w 3 ${ndb.slug} 5432 </dev/null && echo reached`)).to.include('reached');
    const fromTask = await inTask(workers[1]!, `nc -w 3 ${ndb.slug} 5432 </dev/null && echo reached`);
    expect(fromTask.stdout + fromTask.stderr).to.include('reached');

    // a backup, a change, the restore: the change is gone
    const { backup: started } = await t.admin.createBackup(ndb.id, 'disk');
    const backup = await until('the backup to finish', async () => (await t.admin.listBackups(ndb.id)).backups.find((b) => b.id === started.id && b.status !== 'running'), 120_000, 250);
    expect(backup.status, JSON.stringify(backup)).to.equal('succeeded');
    await t.admin.databaseQuery(ndb.id, "INSERT INTO on_node VALUES ('after the backup')");
    await t.admin.restoreBackup(ndb.id, backup.id);
    const restored = JSON.stringify(await t.admin.databaseQuery(ndb.id, 'SELECT note FROM on_node'));
    expect(restored).to.include('kept on node a');
    expect(restored).to.not.include('after the backup');

    // a daemon restart adopts it through the node's Engine: still live, answering, the same data
    const live = (await t.admin.listDeployments(ndb.id)).deployments.find((x) => x.status === 'running')!;
    await t.restart();
    await until(
      'the database adopted and answering',
      async () => {
        const { service } = await t.admin.overview(ndb.id);
        return service.status === 'active' && service.reachable;
      },
      60_000,
      500,
    );
    expect((await t.admin.listDeployments(ndb.id)).deployments.find((x) => x.id === live.id)!.status).to.equal('running');
    expect(JSON.stringify(await t.admin.databaseQuery(ndb.id, 'SELECT note FROM on_node'))).to.include('kept on node a');

    // its CPU and memory come from the node's Engine too
    await until('its container in the server metrics', async () => ((await t.admin.systemMetrics()).services ?? []).some((m) => m.serviceId === ndb.id), 30_000, 1000);

    // its runtime log comes from the node's Engine
    const snapshot = await runtimeSnapshot(ndb.id);
    expect(snapshot.length, 'the runtime log holds lines of the container on the node').to.be.above(10);

    // its node cannot be drained (without force) or removed, and its node never changes
    const drain = await t.admin.request<{ error: { message: string } }>('PATCH', `/api/nodes/${nodeA}`, { availability: 'drain' });
    expect(drain.status).to.equal(409);
    expect(drain.body.error.message).to.include(ndb.slug);
    expect((await t.admin.listNodes()).nodes.find((n) => n.id === nodeA)!.availability).to.equal('active');
    const move = await t.admin.request('PATCH', `/api/services/${ndb.id}`, { nodeId: nodeIdOf.get(workers[1]!.hostname) });
    expect(move.status).to.equal(400);

    // deleting it removes its container and its volume on the node
    await t.admin.deleteService(ndb.id);
    await until('its container gone from the node', async () => (await onWorker()) === '', 30_000, 500);
    const volumes = (await workers[0]!.docker('volume', 'ls', '-q', '--filter', `label=dev.berth.service=${ndb.id}`)).stdout.trim();
    expect(volumes).to.equal('');
  }

  it('turns Swarm off again: the same routes and Docker objects as before it was on, and the services keep serving', async function () {
    this.timeout(300_000);
    await t.admin.deleteService(web.id);
    for (const w of workers) {
      const id = nodeIdOf.get(w.hostname)!;
      await t.admin.patchNode(id, { availability: 'drain' });
      await w.docker('swarm', 'leave');
      await until(`${w.hostname} down`, async () => (await t.admin.listNodes()).nodes.find((n) => n.id === id)?.state === 'down', 60_000, 500);
      expect((await t.admin.request('DELETE', `/api/nodes/${id}`)).status).to.equal(200);
    }
    expect((await t.admin.disableSwarm()).swarm).to.deep.equal({ enabled: false, managerAddress: null, nodeCount: 0 });
    expect(hostSwarmState()).to.equal('inactive');
    expect((await t.admin.listNodes()).nodes).to.deep.equal([]);
    await until('Caddy routes as before Swarm was on', async () => (await caddyRoutes(t.caddy!.adminUrl)) === asBefore.routes, 20_000, 500);
    expect(projectObjects(projectId)).to.deep.equal(asBefore.objects);
    // the database kept its data and still answers; a redeploy is a plain container again
    expect(JSON.stringify(await t.admin.databaseQuery(db.id, 'SELECT note FROM kept'))).to.include('written before Swarm');
    const dep = await deploy(plain.id);
    expect(docker('inspect', '--format', '{{len .NetworkSettings.Networks}}', dep.containerName!)).to.equal('1');
    expect(await httpProbe(plain.hostPort!)()).to.deep.equal({ ok: true, text: 'image ok' });
  });
});
