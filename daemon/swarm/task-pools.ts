// The answering tasks of each Swarm-backed web service, in memory: the task watcher writes them,
// Caddy's routing reads them (a pool replaces the single container upstream). Kept apart from the
// watcher so the data plane can read it while the watcher, built after it, drives its loads.

export class TaskPools {
  private pools = new Map<string, readonly string[]>();

  /** Every non-empty pool, by Berth service id; each pool sorted (stable configs compare equal). */
  snapshot(): ReadonlyMap<string, readonly string[]> {
    return this.pools;
  }

  get(serviceId: string): readonly string[] {
    return this.pools.get(serviceId) ?? [];
  }

  /** Replaces a service's pool; true when it changed. An empty pool is dropped. */
  set(serviceId: string, dials: readonly string[]): boolean {
    const next = [...new Set(dials)].sort();
    const before = this.pools.get(serviceId) ?? [];
    if (before.length === next.length && before.every((x, i) => x === next[i])) return false;
    const copy = new Map(this.pools);
    if (next.length === 0) copy.delete(serviceId);
    else copy.set(serviceId, next);
    // a new map per change: a snapshot someone holds never changes under them
    this.pools = copy;
    return true;
  }

  services(): string[] {
    return [...this.pools.keys()];
  }
}
