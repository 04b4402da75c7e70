// Where a service's containers run. Everything runs on this server's Engine, except a database
// created on another Swarm node (its `nodeId`): its container and volume live on that node, driven
// through the node's engine relay (swarm/node-engines.ts), and its published port answers at the
// node's address (the join script's firewall rule lets only the manager reach it).
import type Docker from 'dockerode';
import type { Store } from '../core/ports/store.js';
import type { ServiceRecord } from '../core/records.js';
import type { DeployDeps, NodeEngineSource } from './context.js';

export interface ServiceHost {
  docker: Docker;
  /** Where the service's published port answers this daemon. */
  address: string;
  /** null: this server. */
  nodeId: string | null;
}

const LOCAL_ADDRESS = '127.0.0.1';

/** The Engine and address of `service`'s containers (Conflict or NotFound when its node cannot be reached). */
export async function serviceHost(d: Pick<DeployDeps, 'docker' | 'nodeEngines'>, service: Pick<ServiceRecord, 'nodeId'>): Promise<ServiceHost> {
  if (service.nodeId === null) return { docker: d.docker, address: LOCAL_ADDRESS, nodeId: null };
  const [docker, address] = await Promise.all([d.nodeEngines.engine(service.nodeId), d.nodeEngines.address(service.nodeId)]);
  return { docker, address, nodeId: service.nodeId };
}

/** Where `service`'s published port answers this daemon: loopback, or its node's address. */
export async function serviceAddress(nodeEngines: NodeEngineSource, service: Pick<ServiceRecord, 'nodeId'>): Promise<string> {
  return service.nodeId === null ? LOCAL_ADDRESS : nodeEngines.address(service.nodeId);
}

/** `d` with the Engine of `host`: the steps that only make, start, stop and remove containers run unchanged on it. */
export function onHost<T extends { docker: Docker }>(d: T, host: ServiceHost): T {
  return host.nodeId === null ? d : { ...d, docker: host.docker };
}

/** The Engines of the nodes that hold databases created there (a node that cannot be reached now is left out). */
export async function databaseNodeEnginesOf(store: Pick<Store, 'services'>, nodeEngines: NodeEngineSource): Promise<Docker[]> {
  const nodes = new Set((await store.services.list()).flatMap((s) => (s.nodeId === null ? [] : [s.nodeId])));
  const engines = await Promise.all([...nodes].map((id) => nodeEngines.engine(id).catch(() => null)));
  return engines.filter((e) => e !== null);
}
