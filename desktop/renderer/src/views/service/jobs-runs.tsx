// A job's runs, newest first (status, exit code, trigger, started, duration), and the log of the
// one picked (the deployment log line shape, shown by the deployment log's view). The list follows
// the `job` events (api/live.ts refreshes ['job-runs', jobId], the logs beneath it included); while
// a run is at work its log is read again every two seconds.
import { useState } from 'react';
import { jobRunInProgress } from '../../../../../shared/statuses.js';
import type { JobRun } from '../../../../../shared/types/jobs.js';
import { apiPath } from '../../../../../shared/api-routes.js';
import { useGet } from '../../api/context';
import { Empty, ErrorNote, Loading, Status, timeAgo } from '../../ui/kit';
import { LogView } from './log-view';
import type { LogLine } from './use-log-stream';

function runDuration(r: Pick<JobRun, 'startedAt' | 'finishedAt'>): string {
  const ms = Date.parse(r.finishedAt ?? new Date().toISOString()) - Date.parse(r.startedAt);
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? `${s} s` : s < 3600 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
}

export function JobRuns({ serviceId, jobId }: { serviceId: string; jobId: string }) {
  const q = useGet<{ runs: JobRun[] }>(['job-runs', jobId], apiPath('jobs.runs', { serviceId, jobId }));
  const [picked, setPicked] = useState<string | null>(null);
  if (q.isPending) return <Loading what="runs" />;
  if (!q.data) return <ErrorNote error={q.error} />;
  const runs = q.data.runs;
  if (runs.length === 0) return <Empty title="No runs yet">Its runs appear here when it runs on its schedule or when you press Run now.</Empty>;
  const selected = runs.find((r) => r.id === picked) ?? runs[0]!;
  return (
    <div className="stack">
      <div className="table-scroll">
        <table className="table">
          <caption className="sr-only">Runs</caption>
          <thead>
            <tr>
              <th scope="col">Status</th>
              <th scope="col">Exit code</th>
              <th scope="col">Trigger</th>
              <th scope="col">Started</th>
              <th scope="col">Duration</th>
              <th scope="col">
                <span className="sr-only">Log</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {runs.map((r) => (
              <tr key={r.id} className={r.id === selected.id ? 'row-selected' : undefined}>
                <td>
                  <Status value={r.status} label={r.status === 'timed_out' ? 'timed out' : r.status} />
                  {r.error ? <div className="small muted">{r.error}</div> : null}
                </td>
                <td className="mono">{r.exitCode ?? '—'}</td>
                <td>{r.trigger === 'manual' ? 'Run now' : 'Schedule'}</td>
                <td title={new Date(r.startedAt).toLocaleString()}>{timeAgo(r.startedAt)}</td>
                <td>{runDuration(r)}</td>
                <td className="right">
                  <button type="button" className="btn btn-small" aria-pressed={r.id === selected.id} onClick={() => setPicked(r.id)}>
                    {r.id === selected.id ? 'Log shown' : 'Show log'}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <RunLog serviceId={serviceId} run={selected} key={selected.id} />
    </div>
  );
}

function RunLog({ serviceId, run }: { serviceId: string; run: JobRun }) {
  const running = jobRunInProgress(run.status);
  const q = useGet<{ lines: LogLine[] }>(['job-runs', run.jobId, run.id, 'logs'], apiPath('jobs.run-logs', { serviceId, jobId: run.jobId, runId: run.id }), {
    refetchInterval: running ? 2000 : false,
  });
  return (
    <div className="stack-tight">
      <h3 className="small strong">
        Log of the run started {new Date(run.startedAt).toLocaleString()}
        {run.exitCode !== null ? ` · exit code ${run.exitCode}` : ''}
      </h3>
      {q.error ? <ErrorNote error={q.error} /> : null}
      <LogView lines={q.data?.lines ?? []} label="Run log" emptyText={q.isPending ? 'Loading…' : running ? 'Waiting for output…' : 'This run wrote nothing.'} height={320} />
    </div>
  );
}
