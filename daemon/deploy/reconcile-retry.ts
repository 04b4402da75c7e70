// When the Docker Engine does not answer at start (dockerd starting after Berth, or restarting),
// the Docker part of reconciliation waits for it instead of being skipped: the Engine is pinged
// with a growing delay and, once it answers, live containers are adopted and debris removed, once.
// The API serves meanwhile; the store's part (interrupted work failed) has already run.
import type { DeploymentRecord } from '../core/records.js';
import { isDockerUnreachable } from '../docker/client.js';
import type { DeployDeps } from './context.js';
import { reconcileDocker } from './reconcile.js';

export interface RetryTiming {
  firstDelayMs: number;
  maxDelayMs: number;
}

export interface PendingReconcile {
  stop(): void;
  /** Settles when reconciliation ran, gave up on an error that waiting cannot fix, or was stopped. */
  done: Promise<void>;
}

export function reconcileWhenEngineAnswers(d: DeployDeps, interrupted: readonly DeploymentRecord[], timing: RetryTiming = { firstDelayMs: 1000, maxDelayMs: 30_000 }): PendingReconcile {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let wake: () => void = () => undefined;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, ms);
      timer.unref();
    });

  const run = async () => {
    let delay = timing.firstDelayMs;
    while (!stopped) {
      await sleep(delay);
      if (stopped) return;
      try {
        await d.docker.ping();
        await reconcileDocker(d, interrupted);
        d.log('the Docker Engine answers: reconciliation done (live containers adopted, debris removed)');
        return;
      } catch (err) {
        if (!isDockerUnreachable(err)) {
          d.log('reconciliation after the Docker Engine came up failed', err);
          return;
        }
      }
      delay = Math.min(delay * 2, timing.maxDelayMs);
    }
  };
  const done = run();
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      wake();
    },
    done,
  };
}
