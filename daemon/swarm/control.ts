// SwarmControlPort through the Engine API: `swarm init`/`leave`, the node list, node updates and
// removal, the worker join token, and the running tasks of this daemon's services per node. Every
// change of Swarm mode drops the SwarmPort's cached view (state.ts) so the next read is Docker's.
import type Docker from 'dockerode';
import type { NodeAvailability, NodeRole, NodeState } from '../../shared/types/swarm.js';
import { InvalidInput, NotFound } from '../core/errors.js';
import type { EngineNode, SwarmControlPort } from '../core/ports/swarm-control.js';
import { LABEL_PROJECT, type Ownership } from '../docker/labels.js';
import type { DockerSwarmState } from './state.js';
import type { NodeEngines } from './node-engines.js';
import type { RegistryAuth } from '../core/ports/swarm.js';
import { inspectOwnedSwarmService, listOwnedSwarmServices, updateSwarmSpec, type OwnedSwarmService } from '../docker/swarm-services.js';

/** The placement constraint that keeps a service's tasks off a node being drained. */
function avoid(nodeId: string): string {
  return `node.id!=${nodeId}`;
}

/** Rewrites a service's placement constraints with `change`; false when they stay the same (no update). */
async function updateConstraints(docker: Docker, s: OwnedSwarmService, auth: RegistryAuth, change: (c: string[]) => string[]): Promise<boolean> {
  const spec = structuredClone(s.spec) as { TaskTemplate?: { Placement?: { Constraints?: string[] } } };
  const before = spec.TaskTemplate?.Placement?.Constraints ?? [];
  const after = change(before);
  if (after.length === before.length && after.every((x, i) => x === before[i])) return false;
  spec.TaskTemplate = { ...spec.TaskTemplate, Placement: { ...spec.TaskTemplate?.Placement, Constraints: after } };
  await updateSwarmSpec(docker, s, spec, auth);
  return true;
}

interface DockerNode {
  ID: string;
  Version?: { Index?: number };
  Spec?: { Name?: string; Role?: string; Availability?: string; Labels?: Record<string, string> };
  Description?: { Hostname?: string; Resources?: { NanoCPUs?: number; MemoryBytes?: number } };
  Status?: { State?: string; Addr?: string };
  ManagerStatus?: { Addr?: string };
}

const STATES: readonly NodeState[] = ['unknown', 'down', 'ready', 'disconnected'];
const AVAILABILITIES: readonly NodeAvailability[] = ['active', 'pause', 'drain'];

function statusCode(err: unknown): number | undefined {
  return (err as { statusCode?: number }).statusCode;
}

/** Docker's own words from an Engine API error (`(HTTP code 400) ... - <message>`). */
function engineMessage(err: unknown): string {
  const json = (err as { json?: { message?: string } }).json;
  return json?.message ?? (err as Error).message;
}

function engineNodeFrom(n: DockerNode, selfId: string | null): EngineNode {
  const state = (n.Status?.State ?? 'unknown') as NodeState;
  const availability = (n.Spec?.Availability ?? 'active') as NodeAvailability;
  // a manager's Status.Addr may read 0.0.0.0 (it listens on every address): its advertised one is in ManagerStatus
  const managerAddr = n.ManagerStatus?.Addr?.replace(/:\d+$/, '') ?? null;
  const statusAddr = n.Status?.Addr ?? '';
  return {
    id: n.ID,
    hostname: n.Description?.Hostname ?? n.Spec?.Name ?? n.ID,
    role: (n.Spec?.Role === 'manager' ? 'manager' : 'worker') satisfies NodeRole,
    availability: AVAILABILITIES.includes(availability) ? availability : 'active',
    state: STATES.includes(state) ? state : 'unknown',
    address: statusAddr && statusAddr !== '0.0.0.0' ? statusAddr : (managerAddr ?? statusAddr),
    cpus: Math.round((n.Description?.Resources?.NanoCPUs ?? 0) / 1e7) / 100,
    memoryBytes: n.Description?.Resources?.MemoryBytes ?? 0,
    labels: { ...(n.Spec?.Labels ?? {}) },
    version: n.Version?.Index ?? 0,
    self: n.ID === selfId,
  };
}

export class DockerSwarmControl implements SwarmControlPort {
  constructor(
    private readonly docker: Docker,
    private readonly own: Ownership,
    private readonly state: DockerSwarmState,
    private readonly engines: NodeEngines,
  ) {}

  async init(advertiseAddress: string): Promise<void> {
    try {
      await this.docker.swarmInit({ ListenAddr: '0.0.0.0:2377', AdvertiseAddr: advertiseAddress });
    } catch (err) {
      // 400: Docker refuses the address (not on this host, ...); 503: already part of a swarm
      if (statusCode(err) === 400) throw new InvalidInput(`Docker refused to advertise ${advertiseAddress}: ${engineMessage(err)}`);
      throw err;
    } finally {
      this.state.forget();
    }
  }

  async leave(): Promise<void> {
    try {
      await this.docker.swarmLeave({ force: true });
      this.engines.forgetAll();
    } catch (err) {
      // 503: "This node is not part of a swarm": already off
      if (statusCode(err) !== 503) throw err;
    } finally {
      this.state.forget();
    }
  }

  async nodes(): Promise<EngineNode[]> {
    if (!(await this.state.enabled())) return [];
    const selfId = await this.state.nodeId();
    const nodes = (await this.docker.listNodes()) as DockerNode[];
    return nodes.map((n) => engineNodeFrom(n, selfId));
  }

  async taskCounts(): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    if (!(await this.state.enabled())) return counts;
    // Berth services' Swarm services only (a project label): not Berth's own helpers (jobs, engine relays)
    const services = (await this.docker.listServices({ filters: { label: [...this.own.filter({}).label, LABEL_PROJECT] } })) as { ID: string }[];
    if (services.length === 0) return counts;
    const ours = new Set(services.map((s) => s.ID));
    const tasks = (await this.docker.listTasks({ filters: { 'desired-state': ['running'] } })) as { ServiceID?: string; NodeID?: string; Status?: { State?: string } }[];
    for (const t of tasks) {
      if (!t.NodeID || !t.ServiceID || !ours.has(t.ServiceID) || t.Status?.State !== 'running') continue;
      counts.set(t.NodeID, (counts.get(t.NodeID) ?? 0) + 1);
    }
    return counts;
  }

  async updateNode(node: EngineNode, change: { availability: NodeAvailability; labels: Record<string, string> }): Promise<void> {
    const current = (await this.docker.getNode(node.id).inspect()) as DockerNode;
    const spec = { ...current.Spec, Role: node.role, Availability: change.availability, Labels: change.labels };
    try {
      // the version goes in the query string, the spec is the body (docker-modem's _query/_body)
      await this.docker.getNode(node.id).update({ _query: { version: current.Version?.Index ?? node.version }, _body: spec });
    } catch (err) {
      if (statusCode(err) === 404) throw new NotFound('node not found');
      throw err;
    }
  }

  async moveTasksOff(nodeId: string, auth: RegistryAuth, timeoutMs: number): Promise<string[]> {
    const services = await listOwnedSwarmServices(this.docker, this.own, {});
    const tasks = (await this.docker.listTasks({ filters: { node: [nodeId], 'desired-state': ['running'] } })) as { ServiceID?: string }[];
    const there = new Set(tasks.map((t) => t.ServiceID));
    const moving: OwnedSwarmService[] = [];
    for (const s of services.filter((x) => there.has(x.id))) {
      if (await updateConstraints(this.docker, s, auth, (c) => (c.includes(avoid(nodeId)) ? c : [...c, avoid(nodeId)]))) moving.push(s);
    }
    const deadline = Date.now() + timeoutMs;
    let left = moving;
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 1000));
      const now = await Promise.all(left.map((s) => inspectOwnedSwarmService(this.docker, this.own, s.id, {})));
      // over: completed, or stopped (a rollback or a pause); a service removed meanwhile is over too
      left = left.filter((s, i) => now[i] && !/completed|paused/.test(now[i]!.updateState ?? 'completed'));
    }
    return left.map((s) => s.name);
  }

  async allowNode(nodeId: string, auth: RegistryAuth): Promise<void> {
    for (const s of await listOwnedSwarmServices(this.docker, this.own, {})) {
      await updateConstraints(this.docker, s, auth, (c) => c.filter((x) => x !== avoid(nodeId)));
    }
  }

  async removeNode(nodeId: string): Promise<void> {
    try {
      // core allowed it (a worker that is down or drained); a drained node that still runs needs force
      await this.docker.getNode(nodeId).remove({ force: true });
    } catch (err) {
      if (statusCode(err) === 404) throw new NotFound('node not found');
      throw err;
    }
    // its engine relay would wait for it forever
    await this.engines.forget(nodeId).catch(() => undefined);
  }

  async clusterId(): Promise<string | null> {
    if (!(await this.state.enabled())) return null;
    const swarm = (await this.docker.swarmInspect()) as { ID?: string };
    return swarm.ID ?? null;
  }

  async workerJoinToken(): Promise<string> {
    const swarm = (await this.docker.swarmInspect()) as { JoinTokens?: { Worker?: string } };
    const token = swarm.JoinTokens?.Worker;
    if (!token) throw new Error('Docker answered no worker join token');
    return token;
  }
}
