// The deployment queue: at most `concurrency` runs at once, one at a time per service, a newer
// queued deployment of a service replaces an older queued one, and the slots are shared fairly
// between projects (tenants):
//
// - A project holds at most max(1, concurrency - 1) slots, always: with two or more slots, one
//   is left for the other projects, so a project whose builds never end (`RUN sleep infinity`)
//   cannot keep another project's deployment from starting. Its builds end at the build timeout
//   (a system setting) at the latest. (The cap applies even when no other project waits: a slot
//   taken cannot be handed back when one arrives, and builds are not preempted.)
// - When a slot frees, it goes round-robin: to the project with waiting work that started a run
//   least recently (one that never started goes first, then by arrival), and within that project
//   to its oldest waiting deployment. A project with many queued deployments therefore gets one
//   slot per turn, like a project with one.
// With concurrency 1 the one slot simply goes round-robin.
export interface QueueHooks {
  run(deploymentId: string, signal: AbortSignal): Promise<void>;
  /** An older queued deployment was replaced by a newer one of the same service. */
  superseded(deploymentId: string, byId: string): Promise<void>;
  onError(err: unknown): void;
}

interface Waiting {
  id: string;
  serviceId: string;
  projectId: string;
}

interface Active {
  serviceId: string;
  projectId: string;
  controller: AbortController;
}

export class DeployQueue {
  private waiting: Waiting[] = [];
  private active = new Map<string, Active>();
  private idleWaiters: (() => void)[] = [];
  /** When each project last had a run started (a counter, not a clock): the round-robin order. */
  private lastStart = new Map<string, number>();
  private starts = 0;
  /** The most slots one project may hold. */
  readonly perProject: number;

  constructor(
    private concurrency: number,
    private hooks: QueueHooks,
  ) {
    this.perProject = Math.max(1, concurrency - 1);
  }

  enqueue(id: string, serviceId: string, projectId: string): void {
    const older = this.waiting.filter((w) => w.serviceId === serviceId);
    this.waiting = this.waiting.filter((w) => w.serviceId !== serviceId);
    this.waiting.push({ id, serviceId, projectId });
    for (const w of older) this.hooks.superseded(w.id, id).catch((err: unknown) => this.hooks.onError(err));
    this.pump();
  }

  /** 'queued' when it was waiting (now removed), 'building' when its run was signalled, null if unknown. */
  abort(id: string): 'queued' | 'building' | null {
    const before = this.waiting.length;
    this.waiting = this.waiting.filter((w) => w.id !== id);
    if (this.waiting.length < before) {
      this.notifyIdle();
      return 'queued';
    }
    const running = this.active.get(id);
    if (running) {
      running.controller.abort();
      return 'building';
    }
    return null;
  }

  isActive(id: string): boolean {
    return this.active.has(id);
  }

  /** Ids waiting or running for a service. */
  idsOf(serviceId: string): string[] {
    return [...this.waiting.filter((w) => w.serviceId === serviceId).map((w) => w.id), ...[...this.active].filter(([, a]) => a.serviceId === serviceId).map(([id]) => id)];
  }

  /** Resolves when no run of this service is in progress. */
  async settled(serviceId: string): Promise<void> {
    while ([...this.active.values()].some((a) => a.serviceId === serviceId)) await new Promise((r) => setTimeout(r, 50));
  }

  /** Resolves when nothing runs or waits (used at shutdown and by tests). */
  idle(): Promise<void> {
    if (this.active.size === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    while (this.active.size < this.concurrency) {
      const next = this.pickNext();
      if (!next) break;
      this.waiting = this.waiting.filter((w) => w !== next);
      this.lastStart.set(next.projectId, ++this.starts);
      const controller = new AbortController();
      this.active.set(next.id, { serviceId: next.serviceId, projectId: next.projectId, controller });
      this.hooks
        .run(next.id, controller.signal)
        .catch((err: unknown) => this.hooks.onError(err))
        .finally(() => {
          this.active.delete(next.id);
          this.pump();
          this.notifyIdle();
        });
    }
  }

  /** The oldest startable deployment of the startable project that started a run least recently. */
  private pickNext(): Waiting | null {
    const busyServices = new Set<string>();
    const held = new Map<string, number>();
    for (const a of this.active.values()) {
      busyServices.add(a.serviceId);
      held.set(a.projectId, (held.get(a.projectId) ?? 0) + 1);
    }
    let best: Waiting | null = null;
    let bestTurn = Infinity;
    // `waiting` is in arrival order: the first startable entry of each project is its oldest
    for (const w of this.waiting) {
      if (busyServices.has(w.serviceId) || (held.get(w.projectId) ?? 0) >= this.perProject) continue;
      const turn = this.lastStart.get(w.projectId) ?? -1;
      if (turn < bestTurn) {
        best = w;
        bestTurn = turn;
      }
    }
    return best;
  }

  private notifyIdle(): void {
    if (this.active.size === 0 && this.waiting.length === 0) for (const fn of this.idleWaiters.splice(0)) fn();
  }
}
