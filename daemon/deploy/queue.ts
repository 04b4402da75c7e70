// The deployment queue: at most `concurrency` builds at once, one at a time per service, and a
// newer queued deployment of a service replaces an older queued one.
export interface QueueHooks {
  run(deploymentId: string, signal: AbortSignal): Promise<void>;
  /** An older queued deployment was replaced by a newer one of the same service. */
  superseded(deploymentId: string, byId: string): Promise<void>;
  onError(err: unknown): void;
}

interface Waiting {
  id: string;
  serviceId: string;
}

export class DeployQueue {
  private waiting: Waiting[] = [];
  private active = new Map<string, { serviceId: string; controller: AbortController }>();
  private idleWaiters: (() => void)[] = [];

  constructor(
    private concurrency: number,
    private hooks: QueueHooks,
  ) {}

  enqueue(id: string, serviceId: string): void {
    const older = this.waiting.filter((w) => w.serviceId === serviceId);
    this.waiting = this.waiting.filter((w) => w.serviceId !== serviceId);
    this.waiting.push({ id, serviceId });
    for (const w of older) this.hooks.superseded(w.id, id).catch((err: unknown) => this.hooks.onError(err));
    this.pump();
  }

  /** 'queued' when it was waiting (now removed), 'building' when its run was signalled, null if unknown. */
  abort(id: string): 'queued' | 'building' | null {
    const before = this.waiting.length;
    this.waiting = this.waiting.filter((w) => w.id !== id);
    if (this.waiting.length < before) return 'queued';
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
      const busy = new Set([...this.active.values()].map((a) => a.serviceId));
      const next = this.waiting.find((w) => !busy.has(w.serviceId));
      if (!next) break;
      this.waiting = this.waiting.filter((w) => w !== next);
      const controller = new AbortController();
      this.active.set(next.id, { serviceId: next.serviceId, controller });
      this.hooks
        .run(next.id, controller.signal)
        .catch((err: unknown) => this.hooks.onError(err))
        .finally(() => {
          this.active.delete(next.id);
          this.pump();
          if (this.active.size === 0 && this.waiting.length === 0) for (const fn of this.idleWaiters.splice(0)) fn();
        });
    }
  }
}
