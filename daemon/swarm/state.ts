// SwarmPort: whether this server is an active Swarm manager, and the address the swarm advertises,
// read from the Engine's own `docker info` (Swarm.LocalNodeState, ControlAvailable, NodeAddr).
// Docker is the one source of truth: Berth stores no "swarm on" flag that could disagree with it
// (someone may run `docker swarm leave` by hand). The answer is cached for ~2 s because the deploy
// machinery asks on every step and `docker info` takes tens of milliseconds; `forget()` drops the
// cache right after Berth itself turns Swarm on or off.
import type Docker from 'dockerode';
import type { SwarmPort } from '../core/ports/swarm.js';

const CACHE_MS = 2000;

interface SwarmInfo {
  enabled: boolean;
  managerAddress: string | null;
  nodeId: string | null;
}

interface DockerSwarmInfo {
  NodeID?: string;
  NodeAddr?: string;
  LocalNodeState?: string;
  ControlAvailable?: boolean;
  RemoteManagers?: { NodeID?: string; Addr?: string }[] | null;
}

/** Docker's `Swarm` section of /info read as Berth's view of it. */
function swarmInfoFrom(swarm: DockerSwarmInfo | undefined): SwarmInfo {
  const enabled = swarm?.LocalNodeState === 'active' && swarm.ControlAvailable === true;
  if (!enabled) return { enabled: false, managerAddress: null, nodeId: null };
  // NodeAddr is this manager's advertise address; RemoteManagers' entry for this node carries the
  // same address with its port (`10.0.0.1:2377`), the fallback when NodeAddr is empty.
  const own = swarm.RemoteManagers?.find((m) => m.NodeID === swarm.NodeID)?.Addr ?? null;
  const fromManagers = own === null ? null : own.replace(/:\d+$/, '');
  return { enabled, managerAddress: swarm.NodeAddr || fromManagers, nodeId: swarm.NodeID || null };
}

export class DockerSwarmState implements SwarmPort {
  private cached: { at: number; info: Promise<SwarmInfo> } | null = null;

  constructor(
    private readonly docker: Docker,
    private readonly now: () => number = Date.now,
  ) {}

  async enabled(): Promise<boolean> {
    return (await this.info()).enabled;
  }

  async managerAddress(): Promise<string | null> {
    return (await this.info()).managerAddress;
  }

  /** This manager's node id (null when off). */
  async nodeId(): Promise<string | null> {
    return (await this.info()).nodeId;
  }

  /** Reads Docker's view again on the next call (after Berth turned Swarm on or off). */
  forget(): void {
    this.cached = null;
  }

  info(): Promise<SwarmInfo> {
    const at = this.now();
    if (this.cached && at - this.cached.at < CACHE_MS) return this.cached.info;
    const info = this.read();
    this.cached = { at, info };
    // a failed read is not cached: the next call asks Docker again
    info.catch(() => {
      if (this.cached?.info === info) this.cached = null;
    });
    return info;
  }

  private async read(): Promise<SwarmInfo> {
    const info = (await this.docker.info()) as { Swarm?: DockerSwarmInfo };
    return swarmInfoFrom(info.Swarm);
  }
}
