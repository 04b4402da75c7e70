// Docker Swarm mode: this server as the manager, the nodes that joined it, and where a service's
// instances run. GET/POST/DELETE /api/swarm, GET /api/nodes, PATCH/DELETE /api/nodes/:nodeId,
// POST /api/nodes/join, GET /api/services/:serviceId/instances. Node objects and instance entries
// are closed shapes: clients rely on exactly these keys.
import type { Timestamp } from './common.js';

/** GET /api/swarm (and the answer of POST /api/swarm and DELETE /api/swarm). */
export interface SwarmStatus {
  enabled: boolean;
  /** The address the swarm advertises (and workers reach the manager at); null when off. */
  managerAddress: string | null;
  /** Nodes in the swarm, the manager included; 0 when off. */
  nodeCount: number;
}

/** POST /api/swarm: the address to advertise (default: the server's `publicIp` setting). */
export interface SwarmEnableInput {
  advertiseAddress?: string;
}

export type NodeRole = 'manager' | 'worker';
export type NodeAvailability = 'active' | 'pause' | 'drain';
/** Docker's own node states. */
export type NodeState = 'unknown' | 'down' | 'ready' | 'disconnected';

export interface SwarmNode {
  id: string;
  hostname: string;
  role: NodeRole;
  availability: NodeAvailability;
  state: NodeState;
  /** The address the manager reaches it at. */
  address: string;
  cpus: number;
  memoryBytes: number;
  labels: Record<string, string>;
  /** Running tasks of Berth's services on it. */
  tasks: number;
}

/** PATCH /api/nodes/:nodeId. `labels` replaces the whole set; `force` drains a node that holds databases. */
export interface NodePatch {
  availability?: NodeAvailability;
  labels?: Record<string, string>;
  force?: boolean;
}

/** POST /api/nodes/join: a single-use token and the one line to paste as root on the new server. */
export interface NodeJoinCommand {
  token: string;
  command: string;
  expiresAt: Timestamp;
}

/** Where a service's tasks may run: nodes carrying every one of these labels. */
export interface ServicePlacement {
  nodeLabels: Record<string, string>;
}

/** One instance of a service: a Swarm task, or on a single server its container. */
export interface ServiceInstance {
  id: string;
  nodeId: string;
  nodeHostname: string;
  /** Docker's task state (`running`, `starting`, `rejected`, `failed`, ...); a container's `running`, `exited`, ... */
  state: string;
  desiredState: string;
  /** Docker's error for a task that failed or was rejected, verbatim; null otherwise. */
  error: string | null;
  startedAt: Timestamp | null;
}
