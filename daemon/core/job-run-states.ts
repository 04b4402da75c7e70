// The job run state machine: `running` until it ends `succeeded`, `failed` or `timed_out`, and
// nothing after. Every status write goes through `recordRunStatus`, which checks the table and
// writes with `WHERE status IN (the allowed predecessors)`: when the runner and start-up recovery
// (or a job's deletion) race, the loser changes nothing and an ended run never changes its story.
import { jobRunInProgress } from '../../shared/statuses.js';
import type { JobRunStatus } from '../../shared/types/jobs.js';
import { Conflict } from './errors.js';
import type { JobRunPatch, JobRunRecord, JobsRepo } from './ports/jobs-repo.js';

/** A run status change the table does not allow (409). */
class IllegalRunTransition extends Conflict {
  constructor(from: JobRunStatus, to: JobRunStatus, runId: string) {
    super(`run ${runId} is ${from}; it cannot become ${to}`, 'illegal_transition');
  }
}

/** Every run is stored first as `running` (a run that could not start is stored `failed` at once); then it may move: */
export const RUN_TRANSITIONS: { readonly [From in JobRunStatus]: readonly JobRunStatus[] } = {
  // its command exited 0; exited non-zero, failed to start, or the daemon stopped meanwhile; its time limit passed
  running: ['succeeded', 'failed', 'timed_out'],
  succeeded: [],
  failed: [],
  timed_out: [],
};

const RUN_STATUSES = Object.keys(RUN_TRANSITIONS) as JobRunStatus[];

/** The statuses from which a run may move to `to`. */
function runPredecessorsOf(to: JobRunStatus): JobRunStatus[] {
  return RUN_STATUSES.filter((from) => RUN_TRANSITIONS[from].includes(to));
}

/** True when the table and shared/statuses.ts agree that nothing follows `status` exactly when it is not in progress. */
export function runFinal(status: JobRunStatus): boolean {
  return RUN_TRANSITIONS[status].length === 0 && !jobRunInProgress(status);
}

/**
 * Moves a run to `to` (with `patch`) when the table allows it from its stored status. Returns the
 * record as written, null when the run is gone (its job was deleted). Throws IllegalTransition when
 * the move is not allowed, including when another writer ended the run first.
 */
export async function recordRunStatus(runs: Pick<JobsRepo, 'getRun' | 'setRunStatus'>, id: string, to: JobRunStatus, patch: JobRunPatch = {}): Promise<JobRunRecord | null> {
  const current = await runs.getRun(id);
  if (!current) return null;
  if (!RUN_TRANSITIONS[current.status].includes(to)) throw new IllegalRunTransition(current.status, to, id);
  if (await runs.setRunStatus(id, to, runPredecessorsOf(to), patch)) return { ...current, ...patch, status: to };
  const now = await runs.getRun(id);
  if (!now) return null;
  throw new IllegalRunTransition(now.status, to, id);
}
