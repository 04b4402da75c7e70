// The job run state machine agrees with what shared/statuses.ts says of each status, and its one
// write is conditional: a run another writer ended keeps its ending.
import { expect } from 'chai';
import { JOB_RUN_STATUS_MEANING } from '../../shared/statuses.js';
import type { JobRunStatus } from '../../shared/types/jobs.js';
import { recordRunStatus, runFinal, RUN_TRANSITIONS } from '../../daemon/core/job-run-states.js';
import type { JobRunRecord } from '../../daemon/core/ports/jobs-repo.js';

describe('job run states', () => {
  it('ends only from running, and a status is final exactly when shared/statuses.ts says it is not in progress', () => {
    for (const s of Object.keys(JOB_RUN_STATUS_MEANING) as JobRunStatus[]) {
      expect(RUN_TRANSITIONS[s].length === 0, s).to.equal(!JOB_RUN_STATUS_MEANING[s].inProgress);
      if (RUN_TRANSITIONS[s].length === 0) expect(runFinal(s), s).to.equal(true);
    }
    expect(RUN_TRANSITIONS.running).to.have.members(['succeeded', 'failed', 'timed_out']);
  });

  it('keeps the ending of a run another writer ended first (409), and writes only from an allowed status', async () => {
    const run: JobRunRecord = { id: 'r1', jobId: 'j1', status: 'running', exitCode: null, trigger: 'manual', startedAt: 't0', finishedAt: null, error: null };
    const repo = {
      getRun: async () => ({ ...run }),
      setRunStatus: async (_id: string, to: JobRunStatus, from: readonly JobRunStatus[]) => {
        if (!from.includes(run.status)) return false;
        run.status = to;
        return true;
      },
    };
    expect((await recordRunStatus(repo, 'r1', 'failed', { error: 'the daemon stopped during the run' }))?.status).to.equal('failed');
    let refused: unknown = null;
    await recordRunStatus(repo, 'r1', 'succeeded', { exitCode: 0 }).catch((err: unknown) => (refused = err));
    expect((refused as { code?: string } | null)?.code).to.equal('illegal_transition');
    expect(run.status).to.equal('failed');
  });
});
