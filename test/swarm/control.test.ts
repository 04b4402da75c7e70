// Swarm mode's control plane through the real API, on a real swarm on this machine: the host's
// dockerd becomes the manager, Docker-in-Docker workers join by running the REAL join command the
// API hands out. Turning Swarm on starts Berth's registry; nodes are listed in their closed shape,
// labelled, drained and removed under the rules (a ready worker is not removed; the manager is not
// drained under a database); Swarm is not turned off while a worker remains; the `node` event is
// heard by keys over all projects only; bad input changes nothing.
// Run under `flock /tmp/berth-host-swarm.lock` (the host's Swarm mode is host-wide).
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import type { BerthClient } from '../../shared/client.js';
import type { SwarmNode } from '../../shared/types/swarm.js';
import { freePort } from '../helpers/caddy.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDocker } from '../helpers/docker.js';
import { listenToEvents, type EventListener } from '../helpers/event-listener.js';
import { makeProjectWorld, type ProjectWorld } from '../helpers/fixtures.js';
import { bridgeAddress, hostSwarm, hostSwarmState, removeAllWorkers, removeSwarmLeftovers, requireSwarmImages, startWorker, type SwarmWorker } from '../helpers/swarm-nodes.js';
import { until } from '../helpers/wait.js';

const REGISTRY_PORT = 5443;
const NODE_KEYS = ['address', 'availability', 'cpus', 'hostname', 'id', 'labels', 'memoryBytes', 'role', 'state', 'tasks'];

function registryStatus(host: string, ca: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port: REGISTRY_PORT, path: '/v2/', ca, timeout: 5000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('Swarm mode: turning it on, joining nodes with the real command, node rules, turning it off', function () {
  this.timeout(240_000);
  let t: TestDaemon;
  let world: ProjectWorld;
  let projectKey: BerthClient;
  let manager: string;
  let adminEvents: EventListener;
  let projectEvents: EventListener;
  let first: SwarmWorker;
  let second: SwarmWorker;
  let command: string;
  let workerId: string;

  const nodes = async () => (await t.admin.listNodes()).nodes;
  const status = async (method: string, path: string, body?: unknown, client: BerthClient = t.admin) => (await client.request(method, path, body)).status;
  const errorOf = async (method: string, path: string, body?: unknown) => {
    const res = await t.admin.request<{ error: { message: string } }>(method, path, body);
    return { status: res.status, message: res.body.error?.message ?? '' };
  };

  before(async () => {
    requireDocker();
    const { registry } = requireSwarmImages();
    hostSwarm.assertOff();
    removeSwarmLeftovers();
    manager = bridgeAddress();
    t = await startTestDaemon({
      BERTH_IMAGE_REGISTRY: registry,
      BERTH_REGISTRY_PORT: String(REGISTRY_PORT),
      // the development daemon's own HTTPS listener, on the address the workers reach the host at
      BERTH_JOIN_TLS_ADDR: `${manager}:${await freePort()}`,
    });
    world = await makeProjectWorld(t.admin, 'swarm');
    projectKey = await t.clientWith('write', [world.project.id]);
    adminEvents = listenToEvents(t.admin);
    projectEvents = listenToEvents(projectKey);
  });

  after(async () => {
    adminEvents?.stop();
    projectEvents?.stop();
    removeAllWorkers();
    if (t) {
      await t.admin.request('DELETE', '/api/swarm').catch(() => undefined);
      await t.stop();
    }
    removeSwarmLeftovers(manager, REGISTRY_PORT);
  });

  it('is off at start: no manager, no nodes', async () => {
    expect((await t.admin.getSwarm()).swarm).to.deep.equal({ enabled: false, managerAddress: null, nodeCount: 0 });
    expect(await nodes()).to.deep.equal([]);
  });

  it('refuses a key over selected projects on every swarm and node route (403)', async () => {
    for (const [method, path, body] of [
      ['GET', '/api/swarm'],
      ['POST', '/api/swarm', { advertiseAddress: manager }],
      ['DELETE', '/api/swarm'],
      ['GET', '/api/nodes'],
      ['POST', '/api/nodes/join', {}],
      ['PATCH', '/api/nodes/some-node', { availability: 'drain' }],
      ['DELETE', '/api/nodes/some-node'],
    ] as [string, string, unknown?][]) {
      expect(await status(method, path, body, projectKey), `${method} ${path}`).to.equal(403);
    }
    expect(hostSwarmState()).to.equal('inactive');
  });

  it('turns on with POST: this server is the manager at the given address, and the registry answers 401 without credentials', async () => {
    const { swarm } = await t.admin.enableSwarm({ advertiseAddress: manager });
    expect(swarm).to.deep.equal({ enabled: true, managerAddress: manager, nodeCount: 1 });
    expect(hostSwarmState()).to.equal('active');
    const ca = readFileSync(join(t.dataDir, 'tls', 'ca.crt'), 'utf8');
    expect(await registryStatus(manager, ca)).to.equal(401);
    // on again: the same status, nothing new
    expect((await t.admin.enableSwarm({ advertiseAddress: manager })).swarm).to.deep.equal(swarm);
    const [self] = await nodes();
    expect(self).to.include({ role: 'manager', state: 'ready', availability: 'active', address: manager });
  });

  it('joins a worker that runs the real join command, listed in the closed node shape', async () => {
    const made = await t.admin.createJoinCommand();
    expect(made.token).to.match(/^[A-Za-z0-9_-]{32,}$/);
    expect(Date.parse(made.expiresAt) - Date.now()).to.be.within(29 * 60_000, 30 * 60_000 + 5000);
    expect(made.command).to.match(/^bash -o pipefail -c "curl -fsSk --pinnedpubkey 'sha256\/\/[A-Za-z0-9+/=]{44}' https:\/\/\S+\/api\/nodes\/join\/\S+\/script \| bash"$/);
    command = made.command;
    [first, second] = await Promise.all([startWorker('a'), startWorker('b')]);
    const ran = await first.exec(['bash', '-c', command], 120_000);
    expect(ran.status, ran.stderr).to.equal(0);
    expect(ran.stdout, ran.stderr).to.include('joined');
    const listed = await until('the worker to be ready', async () => {
      const all = await nodes();
      return all.length === 2 && all[1]!.state === 'ready' ? all : null;
    });
    for (const n of listed) expect(Object.keys(n).sort()).to.deep.equal(NODE_KEYS);
    const worker = listed[1]!;
    workerId = worker.id;
    expect(worker).to.deep.include({ hostname: first.hostname, role: 'worker', availability: 'active', state: 'ready', address: first.address, labels: {}, tasks: 0 });
    expect(worker.cpus).to.be.greaterThan(0);
    expect(worker.memoryBytes).to.be.greaterThan(0);
    expect((await t.admin.getSwarm()).swarm.nodeCount).to.equal(2);
    // what the script set up: Berth's CA for the registry, and published ports only for the manager
    expect((await first.exec(['cat', `/etc/docker/certs.d/${manager}:${REGISTRY_PORT}/ca.crt`])).stdout).to.equal(readFileSync(join(t.dataDir, 'tls', 'ca.crt'), 'utf8'));
    expect((await first.exec(['iptables', '-S', 'DOCKER-USER'])).stdout).to.match(new RegExp(`! -s ${manager.replace(/\./g, '\\.')}/32 .*berth-only-manager.* -j DROP`));
  });

  it('publishes the `node` event to a key over all projects, never to a project key', async () => {
    await until('the node event', async () => adminEvents.heard().find((e) => e.event === 'node' && (e.json as { nodeId?: string }).nodeId === workerId), 15_000);
    const heard = adminEvents.heard().find((e) => e.event === 'node' && (e.json as { nodeId?: string }).nodeId === workerId)!;
    expect(heard.json).to.deep.include({ nodeId: workerId, hostname: first.hostname, action: 'created' });
    expect(adminEvents.heard().some((e) => e.event === 'swarm')).to.equal(true);
    expect(projectEvents.heard().filter((e) => e.event === 'node' || e.event === 'swarm')).to.deep.equal([]);
  });

  it('says `no change` when the command runs again on the node that used it, and restores the firewall rule a reboot emptied', async () => {
    // a reboot empties iptables: without systemd (these workers), running the command again brings the rule back
    const rules = async () => (await first.exec(['iptables', '-S', 'DOCKER-USER'])).stdout;
    const line = (await rules()).split('\n').find((l) => l.includes('berth-only-manager'))!;
    expect((await first.exec(['sh', '-c', `iptables ${line.replace(/^-A /, '-D ')}`])).status).to.equal(0);
    expect(await rules()).to.not.include('berth-only-manager');
    const again = await first.exec(['bash', '-c', command], 60_000);
    expect(again.status, again.stderr).to.equal(0);
    expect(again.stdout).to.include('no change');
    expect(await rules()).to.include('berth-only-manager');
    // what a systemd boot unit runs after Docker starts
    expect((await first.exec(['test', '-x', '/usr/local/sbin/berth-worker-firewall'])).status).to.equal(0);
  });

  it('fails (not exit 0 on an empty script) when the fetch fails: an unknown token', async () => {
    const unknown = command.replace(/\/join\/[^/]+\/script/, `/join/${'x'.repeat(32)}/script`);
    const ran = await second.exec(['bash', '-c', unknown], 60_000);
    expect(ran.status, ran.stdout).to.not.equal(0);
    expect(ran.stderr).to.match(/curl: \(22\)/);
    expect((await second.docker('info', '--format', '{{.Swarm.LocalNodeState}}')).stdout.trim()).to.equal('inactive');
  });

  it('refuses the same command on another server with a clear message', async () => {
    const other = await second.exec(['bash', '-c', command], 60_000);
    expect(other.status).to.not.equal(0);
    expect(other.stderr).to.include(`this join command was already used by ${first.hostname}: create a new one with \`berth nodes join-command\``);
    expect((await second.docker('info', '--format', '{{.Swarm.LocalNodeState}}')).stdout.trim()).to.equal('inactive');
    expect(await nodes()).to.have.length(2);
  });

  it('sets labels and drains and activates a worker with PATCH', async () => {
    const labelled = await t.admin.patchNode(workerId, { labels: { zone: 'eu-1', 'dev.example.disk': 'ssd' } });
    expect(labelled.node).to.deep.include({ id: workerId, labels: { zone: 'eu-1', 'dev.example.disk': 'ssd' }, availability: 'active' });
    expect((await t.admin.patchNode(workerId, { availability: 'drain' })).node).to.deep.include({ availability: 'drain', labels: { zone: 'eu-1', 'dev.example.disk': 'ssd' } });
    expect((await t.admin.patchNode(workerId, { availability: 'active' })).node.availability).to.equal('active');
    expect((await nodes())[1]).to.deep.include({ availability: 'active', labels: { zone: 'eu-1', 'dev.example.disk': 'ssd' } });
    await until('the availability events', async () => adminEvents.heard().filter((e) => e.event === 'node' && (e.json as { availability?: string }).availability === 'drain').length > 0, 10_000);
  });

  it('refuses to remove a ready, active worker (409 saying why)', async () => {
    const res = await errorOf('DELETE', `/api/nodes/${workerId}`);
    expect(res.status).to.equal(409);
    expect(res.message).to.include(first.hostname).and.include('drain it first');
  });

  it('refuses to drain the manager while a database runs there (409 naming it)', async () => {
    const self = (await nodes())[0]!;
    const res = await errorOf('PATCH', `/api/nodes/${self.id}`, { availability: 'drain' });
    expect(res.status).to.equal(409);
    expect(res.message).to.include(`${world.project.slug}/${world.db.slug}`).and.include('force');
    expect((await nodes())[0]!.availability).to.equal('active');
  });

  it('refuses to turn Swarm off while a worker remains (409 naming it)', async () => {
    const res = await errorOf('DELETE', '/api/swarm');
    expect(res.status).to.equal(409);
    expect(res.message).to.include(first.hostname);
    expect(hostSwarmState()).to.equal('active');
  });

  it('changes nothing on bad input: unknown node 404, bad availability 400, bad labels 400', async () => {
    const before = await nodes();
    expect(await status('PATCH', '/api/nodes/no-such-node', { availability: 'drain' })).to.equal(404);
    expect(await status('DELETE', '/api/nodes/no-such-node')).to.equal(404);
    expect(await status('PATCH', `/api/nodes/${workerId}`, { availability: 'asleep' })).to.equal(400);
    expect(await status('PATCH', `/api/nodes/${workerId}`, { labels: { 'not a name': 'x' } })).to.equal(400);
    expect(await status('PATCH', `/api/nodes/${workerId}`, { labels: { zone: 'a==b' } })).to.equal(400);
    expect(await status('PATCH', `/api/nodes/${workerId}`, { labels: ['zone'] })).to.equal(400);
    expect(await status('PATCH', `/api/nodes/${workerId}`, { availability: 'drain', colour: 'red' })).to.equal(400);
    expect(await status('POST', '/api/swarm', { advertiseAddress: 'not an address' })).to.equal(400);
    expect(await nodes()).to.deep.equal(before);
  });

  it('removes a worker that left the swarm', async () => {
    const left = await first.docker('swarm', 'leave');
    expect(left.status, left.stderr).to.equal(0);
    await until('the worker to be down', async () => (await nodes()).find((n) => n.id === workerId)?.state === 'down', 60_000, 500);
    expect(await status('DELETE', `/api/nodes/${workerId}`)).to.equal(200);
    expect((await nodes()).map((n: SwarmNode) => n.role)).to.deep.equal(['manager']);
    await until(
      'the removal event',
      async () => adminEvents.heard().some((e) => e.event === 'node' && (e.json as { action?: string; nodeId?: string }).action === 'deleted' && (e.json as { nodeId?: string }).nodeId === workerId),
      10_000,
    );
  });

  it('turns off with DELETE: the manager leaves and the registry container is gone', async () => {
    expect((await t.admin.disableSwarm()).swarm).to.deep.equal({ enabled: false, managerAddress: null, nodeCount: 0 });
    expect(hostSwarmState()).to.equal('inactive');
    expect(spawnSync('docker', ['inspect', 'berth-registry']).status).to.not.equal(0);
    expect(await nodes()).to.deep.equal([]);
    // off again: the same answer
    expect((await t.admin.disableSwarm()).swarm.enabled).to.equal(false);
  });
});
