// What core's Swarm use cases (core/swarm.ts, core/nodes.ts, core/node-joins.ts) need from the
// Engine: turning Swarm mode on and off, the nodes, and the worker join token. The adapter is
// daemon/swarm/control.ts. Additive to the contract's ports (core/ports/swarm.ts).
import type { NodeAvailability, NodeRole, NodeState } from '../../../shared/types/swarm.js';
import type { ImageRegistryPort, RegistryAuth } from './swarm.js';

/** A node as the Engine reports it, with the version its next update must name. */
export interface EngineNode {
  id: string;
  hostname: string;
  role: NodeRole;
  availability: NodeAvailability;
  state: NodeState;
  address: string;
  cpus: number;
  memoryBytes: number;
  labels: Record<string, string>;
  /** The node object's version (`node.update` must name the current one). */
  version: number;
  /** True for the node this daemon runs on. */
  self: boolean;
}

export interface SwarmControlPort {
  /** `docker swarm init --advertise-addr <address>`; InvalidInput with Docker's words when it refuses the address. */
  init(advertiseAddress: string): Promise<void>;
  /** `docker swarm leave --force` on this manager. */
  leave(): Promise<void>;
  /** Every node of the swarm (empty when Swarm is off). */
  nodes(): Promise<EngineNode[]>;
  /** Running tasks of this daemon's (ownership-labelled) services, per node id. */
  taskCounts(): Promise<Map<string, number>>;
  /** Sets availability and labels (the role and name stay), at the node's current version. */
  updateNode(node: EngineNode, change: { availability: NodeAvailability; labels: Record<string, string> }): Promise<void>;
  /**
   * Moves the tasks of this daemon's services off `nodeId` by a rolling update that excludes the
   * node (`node.id!=<id>`, start-first, each new task healthy before an old one stops), and waits
   * for the updates to end (at most `timeoutMs`). Answers the services still moving when time ran out.
   */
  moveTasksOff(nodeId: string, auth: RegistryAuth, timeoutMs: number): Promise<string[]>;
  /** Lifts what moveTasksOff added: the services may run on `nodeId` again. */
  allowNode(nodeId: string, auth: RegistryAuth): Promise<void>;
  /** Removes a node from the swarm (core has checked that it is a worker that is down or drained). */
  removeNode(nodeId: string): Promise<void>;
  /** The swarm's own id (Docker's `swarm inspect` ID); null when Swarm is off. */
  clusterId(): Promise<string | null>;
  /** Docker's current worker join token. */
  workerJoinToken(): Promise<string>;
}

/** Berth's registry as the Swarm use cases drive it: started when Swarm turns on, removed when it turns off. */
export interface RegistryControlPort extends ImageRegistryPort {
  remove(): Promise<void>;
}

/** Where a new node reaches this daemon's API over HTTPS, and the pin of the certificate served there. */
export interface JoinEndpointPort {
  /** null when the API is served over HTTPS nowhere (no BERTH_API_TLS_ADDR, no BERTH_JOIN_TLS_ADDR). */
  endpoint(): Promise<{ baseUrl: string; pin: string } | null>;
  /** installers/join-node.sh, with its @@NAME@@ placeholders. */
  scriptTemplate(): Promise<string>;
}
