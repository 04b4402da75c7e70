// Following a deployment's build log to its end. The stream is the fast path; it is never the
// judge: when it drops, the deployment's recorded status is read, the lines missed are fetched,
// and the stream is resumed with Last-Event-ID, so a cut connection can neither fail a deployment
// that succeeded nor print a line twice.
import { ApiError } from '../../shared/client.js';
import { deploymentOver } from '../../shared/statuses.js';
import type { DeploymentStreamPayloads } from '../../shared/events.js';
import type { DeploymentLogLine, DeploymentStatus } from '../../shared/types.js';
import { isNetworkError } from './exit-codes.js';
import { sleep } from './durations.js';
import type { Session } from './session.js';

/** The daemon pings every 15 s; a stream silent for this long is dead even if the socket is not. */
const IDLE_MS = 45_000;
/** How long the server may stay unreachable before following gives up (exit 4). */
const UNREACHABLE_MS = 120_000;

export interface FollowOptions {
  /** Absolute time (ms) after which following stops with 'timeout'; Infinity for none. */
  deadline: number;
  onLine(line: DeploymentLogLine): void;
  /** Lines up to this id were read already (the stream resumes after it); 0 for the whole log. */
  afterLineId?: number;
  /** Told about each drop and what happens next (for a message on stderr). */
  onDrop?(detail: string): void;
}

export type FollowEnd = DeploymentStatus | 'deleted' | 'timeout';

export async function followDeployment(s: Session, serviceId: string, deploymentId: string, o: FollowOptions): Promise<FollowEnd> {
  let lastLineId = o.afterLineId ?? 0;
  let lastEventId: string | undefined = lastLineId > 0 ? String(lastLineId) : undefined;
  let unreachableSince: number | null = null;
  let attempt = 0;
  const emit = (line: DeploymentLogLine) => {
    if (line.id <= lastLineId) return;
    lastLineId = line.id;
    o.onLine(line);
  };

  for (;;) {
    if (Date.now() >= o.deadline) return 'timeout';
    const ac = new AbortController();
    let why: 'deadline' | 'idle' | null = null;
    const stop = (reason: 'deadline' | 'idle') => {
      why = reason;
      ac.abort();
    };
    const deadlineTimer = Number.isFinite(o.deadline) ? setTimeout(() => stop('deadline'), Math.max(0, o.deadline - Date.now())) : null;
    let idleTimer = setTimeout(() => stop('idle'), IDLE_MS);
    let drop = 'the server closed the stream';
    try {
      for await (const ev of s.client.deploymentStream(deploymentId, { lastEventId, signal: ac.signal })) {
        unreachableSince = null;
        attempt = 0;
        clearTimeout(idleTimer);
        idleTimer = setTimeout(() => stop('idle'), IDLE_MS);
        if (ev.id !== undefined) lastEventId = ev.id;
        if (ev.event === 'snapshot') for (const l of JSON.parse(ev.data) as DeploymentStreamPayloads['snapshot']) emit(l);
        else if (ev.event === 'log') emit(JSON.parse(ev.data) as DeploymentStreamPayloads['log']);
        else if (ev.event === 'end') return (JSON.parse(ev.data) as DeploymentStreamPayloads['end']).status;
      }
    } catch (err) {
      if (why === 'deadline') return 'timeout';
      if (err instanceof ApiError && !isNetworkError(err)) throw err;
      if (why !== 'idle' && !isNetworkError(err)) throw err;
      drop = why === 'idle' ? `no data for ${IDLE_MS / 1000} s` : `the connection broke (${(err as Error).message})`;
    } finally {
      if (deadlineTimer) clearTimeout(deadlineTimer);
      clearTimeout(idleTimer);
    }

    // The stream ended without `end`: ask for the recorded status before anything else.
    attempt++;
    try {
      const dep = (await s.client.listDeployments(serviceId)).deployments.find((d) => d.id === deploymentId);
      unreachableSince = null;
      if (!dep) return 'deleted';
      if (deploymentOver(dep.status)) {
        for await (const page of s.client.deploymentLogPages(deploymentId, lastLineId)) for (const l of page.logs) emit(l);
        o.onDrop?.(`${drop}; the deployment is ${dep.status}`);
        return dep.status;
      }
      // a resumed stream's snapshot holds only the newest lines: what was missed comes page by page first
      for await (const page of s.client.deploymentLogPages(deploymentId, lastLineId)) for (const l of page.logs) emit(l);
      if (lastLineId > 0) lastEventId = String(lastLineId);
      o.onDrop?.(`${drop}; the deployment is still ${dep.status}, resuming the log after line ${lastEventId ?? 0}`);
    } catch (err) {
      if (!isNetworkError(err)) throw err;
      unreachableSince ??= Date.now();
      if (Date.now() - unreachableSince > UNREACHABLE_MS) throw err;
      o.onDrop?.(`${drop}; the server does not answer, retrying`);
    }
    await sleep(Math.min(250 * 2 ** Math.min(attempt, 5), 5000));
  }
}
