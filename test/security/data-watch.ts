// What every hostile-tenant data test checks while the hostile request runs: the daemon keeps
// answering /api/health within 1 s, and (for the tests that read big answers) how far the
// daemon's resident memory grew. The daemon runs in this process, so its RSS is this process's.
import type { BerthClient } from '../../shared/client.js';

export interface Watch {
  /** Stops watching; the slowest health answer (ms) and the RSS growth over the start (bytes). */
  stop(): Promise<{ slowestHealthMs: number; rssGrowth: number; healthChecks: number }>;
}

export function watchDaemon(anonymous: BerthClient): Watch {
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  let slowest = 0;
  let checks = 0;
  let running = true;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  const poller = (async () => {
    while (running) {
      const started = Date.now();
      await anonymous.health();
      slowest = Math.max(slowest, Date.now() - started);
      checks++;
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    async stop() {
      running = false;
      await poller;
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().rss);
      return { slowestHealthMs: slowest, rssGrowth: peak - baseline, healthChecks: checks };
    },
  };
}

/** The API's refusal of `p` (status and code); fails when it is not refused. */
export async function refusedWith(p: Promise<unknown>): Promise<{ status: number; code: string; message: string }> {
  try {
    await p;
  } catch (err) {
    const e = err as { status?: number; code?: string; message?: string };
    if (typeof e.status === 'number') return { status: e.status, code: e.code ?? '', message: e.message ?? '' };
    throw err;
  }
  throw new Error('expected the API to refuse the request');
}
