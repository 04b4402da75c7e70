// Swarm mode on this server (GET/POST/DELETE /api/swarm): keys over all projects only. Turning it on
// is always a request (never implicit): `swarm init` advertising the given address (default: the
// `publicIp` setting, else the detected address), then Berth's registry. Turning it off is refused
// while anything still needs it: a worker node, or a service with replicas > 1 or a placement.
import { isIP } from 'node:net';
import type { SwarmEnableInput, SwarmStatus } from '../../shared/types/swarm.js';
import type { Access } from './access.js';
import { Conflict, InvalidInput } from './errors.js';
import type { EventSink } from './events.js';
import type { NodeWatch } from './node-watch.js';
import type { Store } from './ports/store.js';
import type { RegistryControlPort, SwarmControlPort } from './ports/swarm-control.js';
import type { SwarmPort } from './ports/swarm.js';
import { listForMessage, swarmOnlyServices } from './swarm-services.js';

/** The id of the swarm this Berth made or adopted (POST /api/swarm): the only one DELETE leaves. */
const CLUSTER_SETTING = 'swarmClusterId';

export interface SwarmModeDeps {
  store: Store;
  clock: { now(): string };
  swarm: SwarmPort;
  control: SwarmControlPort;
  registry: RegistryControlPort;
  events: EventSink;
  watch: NodeWatch;
  /** The `publicIp` setting, else the detected address. */
  publicIp: () => Promise<string>;
  log: (message: string, err?: unknown) => void;
}

export class SwarmMode {
  constructor(private readonly d: SwarmModeDeps) {}

  async status(access: Access): Promise<SwarmStatus> {
    access.requireAllProjects('reading the swarm');
    return this.current();
  }

  async enable(access: Access, input: SwarmEnableInput): Promise<SwarmStatus> {
    access.requireWrite();
    access.requireAllProjects('turning Swarm mode on');
    const address = input.advertiseAddress ?? (await this.d.publicIp());
    if (isIP(address) === 0) throw new InvalidInput(`advertiseAddress must be an IP address of this server, got ${JSON.stringify(address.slice(0, 80))}`);
    if (await this.d.swarm.enabled()) {
      // already on (also a swarm made by hand: asking is adopting it): the status, and the registry back if someone removed it
      await this.adopt();
      await this.d.registry.ensure();
      return this.current();
    }
    await this.d.control.init(address);
    try {
      await this.adopt();
      await this.d.registry.ensure();
    } catch (err) {
      // never half on: a swarm without its registry would schedule tasks that cannot pull their image
      await this.d.control.leave().catch((leaveErr: unknown) => this.d.log('leaving the swarm after the registry failed', leaveErr));
      throw err;
    }
    this.d.events.publish({ type: 'swarm', allProjects: true, data: { enabled: true } });
    await this.d.watch.refresh();
    return this.current();
  }

  async disable(access: Access): Promise<SwarmStatus> {
    access.requireWrite();
    access.requireAllProjects('turning Swarm mode off');
    if (!(await this.d.swarm.enabled())) return this.current();
    const mine = await this.d.store.settings.get(CLUSTER_SETTING);
    if (mine === null || mine !== (await this.d.control.clusterId())) {
      // another swarm on this Engine (made by hand, or by another Berth): leaving it is not Berth's call
      throw new Conflict('this server is in a swarm that Berth did not turn on: leave it with `docker swarm leave` on the server itself', 'swarm_not_berths');
    }
    const workers = (await this.d.control.nodes()).filter((n) => n.role === 'worker').map((n) => n.hostname);
    const services = await swarmOnlyServices(this.d.store);
    const left: string[] = [];
    if (workers.length > 0) left.push(`worker nodes still in the swarm: ${listForMessage(workers.sort())} (drain them, run \`docker swarm leave\` on them, then remove them)`);
    if (services.length > 0) left.push(`services with replicas or a placement: ${listForMessage(services)} (set them to 1 replica and no placement)`);
    if (left.length > 0) throw new Conflict(`Swarm mode stays on while ${left.join('; and ')}`, 'swarm_in_use');
    await this.d.registry.remove();
    await this.d.control.leave();
    await this.d.store.settings.delete(CLUSTER_SETTING);
    this.d.events.publish({ type: 'swarm', allProjects: true, data: { enabled: false } });
    await this.d.watch.refresh();
    return this.current();
  }

  private async adopt(): Promise<void> {
    const id = await this.d.control.clusterId();
    if (id !== null) await this.d.store.settings.set(CLUSTER_SETTING, id, this.d.clock.now());
  }

  private async current(): Promise<SwarmStatus> {
    if (!(await this.d.swarm.enabled())) return { enabled: false, managerAddress: null, nodeCount: 0 };
    return { enabled: true, managerAddress: await this.d.swarm.managerAddress(), nodeCount: (await this.d.control.nodes()).length };
  }
}
