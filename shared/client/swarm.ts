// The client's calls for Swarm mode: turning it on and off, the nodes, the join command, and where
// a service's instances run.
import type { NodeJoinCommand, NodePatch, ServiceInstance, SwarmEnableInput, SwarmNode, SwarmStatus } from '../types/swarm.js';
import { ComposeClient } from './compose.js';

export class SwarmClient extends ComposeClient {
  getSwarm(): Promise<{ swarm: SwarmStatus }> {
    return this.api('swarm.get', {});
  }
  enableSwarm(input: SwarmEnableInput = {}): Promise<{ swarm: SwarmStatus }> {
    return this.api('swarm.enable', {}, input);
  }
  disableSwarm(): Promise<{ swarm: SwarmStatus }> {
    return this.api('swarm.disable', {});
  }
  listNodes(): Promise<{ nodes: SwarmNode[] }> {
    return this.api('nodes.list', {});
  }
  patchNode(nodeId: string, patch: NodePatch): Promise<{ node: SwarmNode }> {
    return this.api('nodes.patch', { nodeId }, patch);
  }
  removeNode(nodeId: string): Promise<{ ok: true }> {
    return this.api('nodes.delete', { nodeId });
  }
  createJoinCommand(): Promise<NodeJoinCommand> {
    return this.api('nodes.join', {}, {});
  }
  listInstances(serviceId: string): Promise<{ instances: ServiceInstance[] }> {
    return this.api('services.instances', { serviceId });
  }
}
