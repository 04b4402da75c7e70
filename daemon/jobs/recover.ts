// Start-up recovery of job runs, before any job runs: a run a crashed daemon left `running` ends
// `failed` (the daemon stopped during the run), and the one-off containers of job runs this
// instance made are removed (their labels prove them ours: instance, role one-off, job run).
import type Docker from 'dockerode';
import type { Clock } from '../core/clock.js';
import type { EventSink } from '../core/events.js';
import { recordRunStatus } from '../core/job-run-states.js';
import type { Store } from '../core/ports/store.js';
import { LABEL_INSTANCE, type Ownership } from '../docker/labels.js';
import { LABEL_ROLE, ONE_OFF_ROLE } from '../docker/one-off.js';
import { DAEMON_STOPPED, LABEL_JOB_RUN } from './runner.js';

export async function recoverJobRuns(d: { store: Store; docker: Docker; own: Ownership; clock: Clock; events: EventSink; log: (message: string, err?: unknown) => void }): Promise<void> {
  for (const run of await d.store.jobs.runsByStatus('running')) {
    try {
      const written = await recordRunStatus(d.store.jobs, run.id, 'failed', { error: DAEMON_STOPPED, finishedAt: d.clock.now() });
      const job = written ? await d.store.jobs.get(run.jobId) : null;
      const service = job ? await d.store.services.get(job.serviceId) : null;
      if (written && service)
        d.events.publish({ type: 'job', projectId: service.projectId, data: { jobId: run.jobId, runId: run.id, serviceId: service.id, projectId: service.projectId, status: 'failed' } });
    } catch (err) {
      d.log(`recovering job run ${run.id}`, err);
    }
  }
  try {
    const leftovers = await d.docker.listContainers({
      all: true,
      filters: { label: [`${LABEL_INSTANCE}=${d.own.instanceId}`, `${LABEL_ROLE}=${ONE_OFF_ROLE}`, LABEL_JOB_RUN] },
    });
    for (const c of leftovers) {
      const labels = c.Labels ?? {};
      if (labels[LABEL_INSTANCE] !== d.own.instanceId || labels[LABEL_ROLE] !== ONE_OFF_ROLE || !labels[LABEL_JOB_RUN]) continue;
      await d.docker
        .getContainer(c.Id)
        .remove({ force: true, v: true })
        .catch((err: unknown) => d.log(`removing the container of job run ${labels[LABEL_JOB_RUN]}`, err));
    }
  } catch (err) {
    d.log('looking for containers of interrupted job runs', err);
  }
}
