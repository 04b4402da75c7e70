// The swarm's nodes (GET /api/nodes, PATCH and DELETE /api/nodes/:nodeId): keys over all projects
// only. Draining a worker moves its tasks first (a rolling update that excludes it: their new
// tasks answer before the old ones stop), then drains it; activating it lifts that. Draining the manager is refused while services are pinned to it (databases and web
// services with volumes run there as plain containers, next to their data) unless `force`. A node
// is removed only when it is a worker that is down or drained: a ready, active worker still runs
// tasks, and removing it would strand them. A worker that holds a database created on it is neither
// drained (unless `force`) nor removed: the database's volume is there.
import type { NodePatch, SwarmNode } from '../../shared/types/swarm.js';
import type { Access } from './access.js';
import { Conflict, InvalidInput, NotFound } from './errors.js';
import type { NodeWatch } from './node-watch.js';
import type { Store } from './ports/store.js';
import type { EngineNode, SwarmControlPort } from './ports/swarm-control.js';
import type { ImageRegistryPort, SwarmPort } from './ports/swarm.js';
import { checkNodeLabels } from './service-state-rules.js';
import { listForMessage, managerPinnedServices, nodePinnedServices } from './swarm-services.js';

const AVAILABILITIES = ['active', 'pause', 'drain'] as const;
/** How long a drain waits for the node's tasks to move gracefully before Swarm's own drain stops the rest. */
const MOVE_TIMEOUT_MS = 60_000;

/** The closed shape clients rely on (shared/types/swarm.ts): nothing else of Docker's leaves. */
function nodeView(n: EngineNode, tasks: number): SwarmNode {
  return {
    id: n.id,
    hostname: n.hostname,
    role: n.role,
    availability: n.availability,
    state: n.state,
    address: n.address,
    cpus: n.cpus,
    memoryBytes: n.memoryBytes,
    labels: { ...n.labels },
    tasks,
  };
}

export class Nodes {
  constructor(private readonly d: { store: Store; swarm: SwarmPort; control: SwarmControlPort; registry: ImageRegistryPort; watch: NodeWatch; log: (message: string, err?: unknown) => void }) {}

  async list(access: Access): Promise<{ nodes: SwarmNode[] }> {
    access.requireAllProjects('listing nodes');
    const [nodes, tasks] = await Promise.all([this.d.control.nodes(), this.d.control.taskCounts()]);
    // the manager first, then by hostname: a stable order for the console and the CLI
    nodes.sort((a, b) => (a.role === b.role ? a.hostname.localeCompare(b.hostname) : a.role === 'manager' ? -1 : 1));
    return { nodes: nodes.map((n) => nodeView(n, tasks.get(n.id) ?? 0)) };
  }

  async patch(access: Access, nodeId: string, patch: NodePatch): Promise<{ node: SwarmNode }> {
    access.requireWrite();
    access.requireAllProjects('changing nodes');
    if (patch.availability !== undefined && !AVAILABILITIES.includes(patch.availability)) throw new InvalidInput(`availability must be one of ${AVAILABILITIES.join(', ')}`);
    const labels = patch.labels === undefined ? undefined : checkNodeLabels(patch.labels, 'labels');
    const node = await this.find(nodeId);
    const availability = patch.availability ?? node.availability;
    if (availability === 'drain' && node.availability !== 'drain' && node.role === 'manager' && patch.force !== true) {
      const pinned = await managerPinnedServices(this.d.store);
      if (pinned.length > 0) {
        throw new Conflict(
          `${node.hostname} is the manager, where databases and services with volumes run next to their data: ${listForMessage(pinned)}; draining it would stop their Swarm tasks from running anywhere (send force: true to drain it anyway)`,
          'node_holds_services',
        );
      }
    }
    if (availability === 'drain' && node.availability !== 'drain' && node.role === 'worker' && patch.force !== true) {
      const pinned = await nodePinnedServices(this.d.store, node.id);
      if (pinned.length > 0) {
        throw new Conflict(
          `${node.hostname} holds the data of ${listForMessage(pinned)}: a database runs on the node it was created on, so draining it would stop them (send force: true to drain it anyway)`,
          'node_holds_services',
        );
      }
    }
    const draining = availability === 'drain' && node.availability !== 'drain';
    // Swarm's own drain stops a node's tasks before their replacements answer: the tasks move first,
    // by a rolling update (start-first, each new task healthy before an old one stops)
    if (draining && node.role === 'worker') {
      const { auth } = await this.d.registry.ensure();
      const late = await this.d.control.moveTasksOff(node.id, auth, MOVE_TIMEOUT_MS);
      if (late.length > 0) this.d.log(`draining ${node.hostname}: ${listForMessage(late)} still moving after ${MOVE_TIMEOUT_MS / 1000} s; Swarm's drain stops what is left there`);
    }
    await this.d.control.updateNode(node, { availability, labels: labels ?? node.labels });
    if (availability === 'active' && node.availability === 'drain' && node.role === 'worker') {
      const { auth } = await this.d.registry.ensure();
      await this.d.control.allowNode(node.id, auth).catch((err: unknown) => this.d.log(`letting services run on ${node.hostname} again`, err));
    }
    await this.d.watch.refresh();
    const updated = await this.find(nodeId);
    const tasks = await this.d.control.taskCounts();
    return { node: nodeView(updated, tasks.get(updated.id) ?? 0) };
  }

  async remove(access: Access, nodeId: string): Promise<void> {
    access.requireWrite();
    access.requireAllProjects('removing nodes');
    const node = await this.find(nodeId);
    if (node.role === 'manager') throw new Conflict(`${node.hostname} is the manager: it leaves the swarm when Swarm mode is turned off (DELETE /api/swarm)`, 'node_in_use');
    if (node.state !== 'down' && node.availability !== 'drain') {
      throw new Conflict(`${node.hostname} is ${node.state} and ${node.availability}: drain it first (availability: drain) or run \`docker swarm leave\` on it, then remove it`, 'node_in_use');
    }
    const pinned = await nodePinnedServices(this.d.store, node.id);
    if (pinned.length > 0) {
      throw new Conflict(
        `${node.hostname} holds the data of ${listForMessage(pinned)}: back them up and delete them (or restore the backups into databases on another node) before removing it`,
        'node_holds_services',
      );
    }
    await this.d.control.removeNode(node.id);
    await this.d.watch.refresh();
  }

  private async find(nodeId: string): Promise<EngineNode> {
    const node = (await this.d.control.nodes()).find((n) => n.id === nodeId);
    if (!node) throw new NotFound('node not found');
    return node;
  }
}
