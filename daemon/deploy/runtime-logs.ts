// Follows the live container of each service (or, for a replicated one, every task of its Swarm
// service) into the runtime log book, and says when the log has ended (it stopped), for the
// runtime stream's `status` event.
import type Docker from 'dockerode';
import { followContainerLogs, type LogFollower } from '../docker/containers.js';
import { followSwarmServiceLogs } from '../docker/swarm-logs.js';
import type { LogBook } from './log-book.js';
import { LogGate, type LogRate } from './log-gate.js';

interface Followed {
  deploymentId: string;
  containerId: string;
  follower: LogFollower;
  gate: LogGate;
  closed: boolean;
}

export class RuntimeLogs {
  private followed = new Map<string, Followed>();
  private closedListeners = new Map<string, Set<() => void>>();

  constructor(
    private docker: Docker,
    readonly book: LogBook,
    private rate: LogRate,
  ) {}

  /** Starts following a service's new container (and stops following its previous one); `docker`: the Engine it runs on, when another node's. */
  follow(serviceId: string, deploymentId: string, containerId: string, sinceSeconds = 0, docker: Docker = this.docker): Promise<void> {
    return this.followFrom(serviceId, deploymentId, containerId, (onLine, onEnd, busy) => followContainerLogs(docker, containerId, sinceSeconds, onLine, onEnd, busy));
  }

  /** Starts following every task of a service's Swarm service, each line prefixed with its node and task. */
  followSwarm(serviceId: string, deploymentId: string, swarmServiceId: string, sinceSeconds = 0): Promise<void> {
    return this.followFrom(serviceId, deploymentId, swarmServiceId, (onLine, onEnd, busy) => followSwarmServiceLogs(this.docker, swarmServiceId, sinceSeconds, onLine, onEnd, busy));
  }

  private async followFrom(
    serviceId: string,
    deploymentId: string,
    containerId: string,
    source: (onLine: (line: string, stream: 'stdout' | 'stderr') => void, onEnd: () => void, busy: () => Promise<void> | null) => Promise<LogFollower>,
  ): Promise<void> {
    this.stop(serviceId);
    // lines over the service's rate are dropped; a marker line says how many
    const gate = new LogGate(this.rate, (marker) => this.book.append(serviceId, deploymentId, marker, 'stderr'));
    const entry: Followed = { deploymentId, containerId, follower: { stop() {} }, gate, closed: false };
    this.followed.set(serviceId, entry);
    entry.follower = await source(
      (line, stream) => {
        // a line read after the service stopped being followed (deleted, redeployed) is dropped
        if (this.followed.get(serviceId) === entry && gate.admit(line)) this.book.append(serviceId, deploymentId, line, stream);
      },
      () => {
        entry.closed = true;
        gate.close();
        for (const fn of this.closedListeners.get(serviceId) ?? []) fn();
      },
      () => this.book.busy(),
    );
  }

  stop(serviceId: string): void {
    const entry = this.followed.get(serviceId);
    if (!entry) return;
    this.followed.delete(serviceId);
    entry.follower.stop();
    entry.gate.close();
  }

  /** Whether the followed container's log is still open; null when nothing is followed. */
  isOpen(serviceId: string): boolean | null {
    const entry = this.followed.get(serviceId);
    return entry ? !entry.closed : null;
  }

  onClosed(serviceId: string, fn: () => void): () => void {
    const set = this.closedListeners.get(serviceId) ?? new Set();
    set.add(fn);
    this.closedListeners.set(serviceId, set);
    return () => set.delete(fn);
  }

  stopAll(): void {
    for (const id of [...this.followed.keys()]) this.stop(id);
  }
}
