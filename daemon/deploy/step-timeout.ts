// A wall-clock limit on one step of a deployment (a build, an image pull): the step gets a signal
// that fires on the deployment's own abort or when the limit passes. Whatever listens to it stops
// the step for real (the build's or pull's connection to the Engine is closed, and the Engine
// cancels the work: the classic builder kills and removes the running step's container). A step
// that fails after its limit passed fails with one clear line naming the limit and the setting.
import { BuildError } from '../core/build-error.js';
import { describeSeconds } from '../core/deploy-limits.js';

export interface StepLimit {
  seconds: number;
  /** The step, as the failure line starts: "the build", "pulling busybox:1". */
  what: string;
  /** The system setting that holds the limit. */
  setting: string;
}

export async function withStepTimeout<T>(abort: AbortSignal, limit: StepLimit, step: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const timer = new AbortController();
  const handle = setTimeout(() => timer.abort(), limit.seconds * 1000);
  try {
    return await step(AbortSignal.any([abort, timer.signal]));
  } catch (err) {
    if (timer.signal.aborted && !abort.aborted) {
      throw new BuildError(`${limit.what} exceeded the ${describeSeconds(limit.seconds)} limit set in settings (${limit.setting}) and was stopped`);
    }
    throw err;
  } finally {
    clearTimeout(handle);
  }
}
