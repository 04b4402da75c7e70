// The `node` events: while Swarm is on, the node list is read every few seconds and each
// difference from the last reading is published (a node joined, left or was removed, its state,
// availability or labels changed). Core's own changes (PATCH, DELETE, Swarm on/off) call refresh()
// so that their event goes out at once, and only once: the watcher is the one publisher.
import type { NodeAvailability, NodeState } from '../../shared/types/swarm.js';
import type { ChangeAction } from '../../shared/events.js';
import type { EventSink } from './events.js';
import type { EngineNode, SwarmControlPort } from './ports/swarm-control.js';
import type { SwarmPort } from './ports/swarm.js';

interface Seen {
  hostname: string;
  state: NodeState;
  availability: NodeAvailability;
  labels: string;
}

const POLL_MS = 3000;

function seen(n: EngineNode): Seen {
  return { hostname: n.hostname, state: n.state, availability: n.availability, labels: JSON.stringify(Object.entries(n.labels).sort()) };
}

export class NodeWatch {
  private last = new Map<string, Seen>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private reading: Promise<void> | null = null;

  constructor(
    private readonly deps: { control: SwarmControlPort; swarm: SwarmPort; events: EventSink; log: (message: string, err?: unknown) => void },
    private readonly pollMs = POLL_MS,
  ) {}

  /** Starts polling (server.ts); a reading while Swarm is off costs one cached `docker info`. */
  async start(): Promise<void> {
    // the first reading is the baseline: nodes that were there before the daemon started are not news
    await this.read(false).catch((err: unknown) => this.deps.log('reading the swarm nodes', err));
    this.timer ??= setInterval(() => void this.refresh(), this.pollMs);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Reads the nodes now and publishes what changed; never rejects (failures go to the daemon's log). */
  refresh(): Promise<void> {
    this.reading ??= this.read(true)
      .catch((err: unknown) => this.deps.log('reading the swarm nodes', err))
      .finally(() => {
        this.reading = null;
      });
    return this.reading;
  }

  private async read(publish: boolean): Promise<void> {
    const nodes = (await this.deps.swarm.enabled()) ? await this.deps.control.nodes() : [];
    // A node that has just joined has no description yet (its hostname reads as its id): it is
    // news once Docker knows its name, so its `created` event names it.
    const now = new Map(nodes.filter((n) => n.hostname !== n.id).map((n) => [n.id, seen(n)]));
    if (publish) {
      for (const [id, n] of now) {
        const before = this.last.get(id);
        if (!before) this.publish(id, n, 'created');
        else if (before.state !== n.state || before.availability !== n.availability || before.labels !== n.labels || before.hostname !== n.hostname) this.publish(id, n, 'updated');
      }
      for (const [id, n] of this.last) if (!now.has(id)) this.publish(id, n, 'deleted');
    }
    this.last = now;
  }

  private publish(nodeId: string, n: Seen, action: ChangeAction): void {
    this.deps.events.publish({ type: 'node', allProjects: true, data: { nodeId, hostname: n.hostname, state: n.state, availability: n.availability, action } });
  }
}
