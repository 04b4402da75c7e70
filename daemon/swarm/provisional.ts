// PROVISIONAL (t29-runtime, until t29-control's swarm/state.ts and swarm/registry.ts are merged):
// Swarm's state read from the Engine, and a registry that says it is not there yet. Replaced at the merge.
import type Docker from 'dockerode';
import { BuildError } from '../core/build-error.js';
import type { ImageRegistryPort, RegistryAuth, SwarmPort } from '../core/ports/swarm.js';

export class EngineSwarmState implements SwarmPort {
  private cached: { at: number; on: boolean; addr: string | null } | null = null;
  constructor(private docker: Docker) {}

  private async read(): Promise<{ on: boolean; addr: string | null }> {
    if (this.cached && Date.now() - this.cached.at < 2000) return this.cached;
    const info = (await this.docker.info().catch(() => null)) as { Swarm?: { LocalNodeState?: string; ControlAvailable?: boolean; NodeAddr?: string } } | null;
    const on = info?.Swarm?.LocalNodeState === 'active' && info.Swarm.ControlAvailable === true;
    this.cached = { at: Date.now(), on, addr: on ? (info?.Swarm?.NodeAddr ?? null) : null };
    return this.cached;
  }

  async enabled(): Promise<boolean> {
    return (await this.read()).on;
  }

  async managerAddress(): Promise<string | null> {
    return (await this.read()).addr;
  }
}

/** BERTH_TEST_REGISTRY=<address>|<user>|<password>: a registry the tests started; none otherwise. */
export class EnvRegistry implements ImageRegistryPort {
  async ensure(): Promise<{ address: string; auth: RegistryAuth }> {
    const raw = process.env.BERTH_TEST_REGISTRY;
    if (!raw) throw new BuildError("Berth's image registry is not available on this server");
    const [address = '', username = '', password = ''] = raw.split('|');
    return { address, auth: { username, password, serveraddress: address } };
  }
}
