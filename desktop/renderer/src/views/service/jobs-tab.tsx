// A service's scheduled jobs: each with its schedule in words, its next run (relative and
// absolute), its last run's status and an enabled switch; picking one shows its command, Run now,
// Edit, Delete and its runs with their logs. Live through /api/events (`job`, `job-change`).
import { useState } from 'react';
import type { Job } from '../../../../../shared/types/jobs.js';
import type { Service } from '../../../../../shared/types.js';
import { apiPath } from '../../../../../shared/api-routes.js';
import { useAction, useGet } from '../../api/context';
import { Button, ConfirmButton, Empty, ErrorNote, Loading, Modal, Status } from '../../ui/kit';
import { joinArgv } from './argv';
import { JobForm } from './jobs-form';
import { JobRuns } from './jobs-runs';
import './ops.css';

/** "in 5 h", "in 3 min", "now" (a time in the future; a past one says "due"). */
function timeUntil(iso: string): string {
  const s = Math.round((Date.parse(iso) - Date.now()) / 1000);
  if (s < 30) return s < -60 ? 'due' : 'now';
  if (s < 3600) return `in ${Math.max(1, Math.round(s / 60))} min`;
  if (s < 86400 * 2) return `in ${Math.round(s / 3600)} h`;
  return `in ${Math.round(s / 86400)} days`;
}

function NextRun({ job }: { job: Job }) {
  if (!job.enabled) return <span className="muted">Disabled</span>;
  if (!job.nextRunAt) return <span className="muted">—</span>;
  return (
    <>
      <span className="block">{timeUntil(job.nextRunAt)}</span>
      <span className="muted small block">{new Date(job.nextRunAt).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}</span>
    </>
  );
}

export default function JobsTab({ service }: { service: Service }) {
  const serviceId = service.id;
  const q = useGet<{ jobs: Job[] }>(['jobs', serviceId], apiPath('jobs.list', { serviceId }));
  const [picked, setPicked] = useState<string | null>(() => new URLSearchParams(window.location.search).get('job'));
  const [editing, setEditing] = useState<'new' | Job | null>(null);
  const toggle = useAction<{ jobId: string; enabled: boolean }, { job: Job }>('PATCH', (b) => apiPath('jobs.patch', { serviceId, jobId: b.jobId }), {
    invalidate: [['jobs', serviceId]],
    success: (r) => `${r.job.name} ${r.job.enabled ? 'enabled' : 'disabled'}`,
  });
  if (q.isPending) return <Loading what="jobs" />;
  if (!q.data) return <ErrorNote error={q.error} />;
  const jobs = q.data.jobs;
  const selected = jobs.find((j) => j.id === picked) ?? null;
  return (
    <div className="stack">
      <div className="row between">
        <p className="muted">Commands run on a schedule in a new container from the live image, with the service&apos;s variables, network and volumes.</p>
        <Button variant="primary" onClick={() => setEditing('new')}>
          New job
        </Button>
      </div>
      {jobs.length === 0 ? (
        <Empty title="No scheduled jobs">A nightly cleanup, a report, a cache warm-up: create a job and it runs on its schedule; its runs and their logs appear here.</Empty>
      ) : (
        <div className="table-scroll">
          <table className="table">
            <caption className="sr-only">Scheduled jobs</caption>
            <thead>
              <tr>
                <th scope="col">Job</th>
                <th scope="col">Schedule</th>
                <th scope="col">Next run</th>
                <th scope="col">Last run</th>
                <th scope="col">Enabled</th>
              </tr>
            </thead>
            <tbody>
              {jobs.map((j) => (
                <tr key={j.id} className={j.id === selected?.id ? 'row-selected' : undefined}>
                  <td>
                    <button type="button" className="linkish strong" aria-pressed={j.id === selected?.id} onClick={() => setPicked(j.id === selected?.id ? null : j.id)}>
                      {j.name}
                    </button>
                    <div className="mono small muted truncate job-command">{joinArgv(j.command)}</div>
                  </td>
                  <td>
                    {j.description}
                    <div className="mono small muted">{j.schedule}</div>
                  </td>
                  <td>
                    <NextRun job={j} />
                  </td>
                  <td>{j.lastRun ? <Status value={j.lastRun.status} label={j.lastRun.status === 'timed_out' ? 'timed out' : j.lastRun.status} /> : <span className="muted">Never run</span>}</td>
                  <td>
                    <label className="check">
                      <input type="checkbox" checked={j.enabled} disabled={toggle.isPending} onChange={(e) => toggle.mutate({ jobId: j.id, enabled: e.target.checked })} />
                      <span className="sr-only">Enabled: {j.name}</span>
                    </label>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {selected ? <JobDetail serviceId={serviceId} job={selected} onEdit={() => setEditing(selected)} onDeleted={() => setPicked(null)} key={selected.id} /> : null}
      <Modal open={editing !== null} title={editing === 'new' ? 'New scheduled job' : `Edit ${editing?.name ?? ''}`} onClose={() => setEditing(null)}>
        {editing !== null ? (
          <JobForm
            serviceId={serviceId}
            {...(editing !== 'new' ? { job: editing } : {})}
            onDone={(j) => {
              setEditing(null);
              setPicked(j.id);
            }}
          />
        ) : null}
      </Modal>
    </div>
  );
}

function JobDetail({ serviceId, job, onEdit, onDeleted }: { serviceId: string; job: Job; onEdit: () => void; onDeleted: () => void }) {
  const run = useAction<Record<string, never>>('POST', apiPath('jobs.run', { serviceId, jobId: job.id }), {
    invalidate: [
      ['job-runs', job.id],
      ['jobs', serviceId],
    ],
    success: `${job.name} started`,
  });
  const del = useAction<undefined>('DELETE', apiPath('jobs.delete', { serviceId, jobId: job.id }), {
    invalidate: [['jobs', serviceId]],
    success: `Deleted ${job.name}`,
    onSuccess: onDeleted,
  });
  return (
    <section className="card stack" aria-labelledby={`job-${job.id}`}>
      <div className="row between">
        <div>
          <h2 id={`job-${job.id}`} className="card-title">
            {job.name}
          </h2>
          <p className="small muted">
            {job.description} · time limit {job.timeoutSeconds} s · {job.concurrency === 'forbid' ? 'one run at a time' : 'runs may overlap'}
          </p>
          <code className="mono small">{joinArgv(job.command)}</code>
        </div>
        <div className="row">
          <Button variant="primary" busy={run.isPending} onClick={() => run.mutate({})}>
            Run now
          </Button>
          <Button onClick={onEdit}>Edit</Button>
          <ConfirmButton
            label="Delete"
            title={`Delete ${job.name}?`}
            message="It stops running on its schedule, and its runs and their logs are deleted with it. A run at work now finishes first."
            confirmLabel="Delete job"
            busy={del.isPending}
            onConfirm={() => del.mutate(undefined)}
          />
        </div>
      </div>
      <h3 className="small strong">Runs</h3>
      <JobRuns serviceId={serviceId} jobId={job.id} />
    </section>
  );
}
