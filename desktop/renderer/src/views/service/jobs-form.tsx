// Creating or editing a scheduled job: name, a five-field cron schedule with its words previewed as
// you type (cronstrue, the package the daemon describes schedules with), a time zone, the command
// line split into the argv the API takes (shown, so what runs is what you see), a time limit and
// what happens when a run is due while one is still running.
import cronstrue from 'cronstrue';
import { useMemo, useState } from 'react';
import type { Job, JobConcurrency, NewJobInput } from '../../../../../shared/types/jobs.js';
import { apiPath } from '../../../../../shared/api-routes.js';
import { useAction } from '../../api/context';
import { Button, Field } from '../../ui/kit';
import { joinArgv, splitArgv } from './argv';

/** The schedule in words, or why it is not a schedule (five fields: minute hour day-of-month month day-of-week). */
function describeSchedule(schedule: string): { ok: true; words: string } | { ok: false; error: string } {
  const fields = schedule.trim().split(/\s+/).filter(Boolean);
  if (fields.length !== 5) return { ok: false, error: `a schedule has five fields (minute hour day month weekday); this has ${fields.length}` };
  try {
    return { ok: true, words: cronstrue.toString(fields.join(' '), { use24HourTimeFormat: true, throwExceptionOnParseError: true, verbose: false }) };
  } catch (err) {
    return { ok: false, error: String(err).replace(/^Error:\s*/, '') };
  }
}

function timeZones(): string[] {
  const all = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return ['UTC', ...all.filter((z) => z !== 'UTC')];
}

/** The argv as chips: each word as the command receives it. */
export function ArgvPreview({ line }: { line: string }) {
  const split = splitArgv(line);
  if (!line.trim()) return null;
  if (!split.ok) return <span className="tone-bad-text">{split.error}</span>;
  return (
    <span className="argv" aria-label={`Runs as ${split.argv.length} argument${split.argv.length === 1 ? '' : 's'}`}>
      {split.argv.map((a, i) => (
        <code key={i} className="argv-word">
          {a === '' ? '""' : a}
        </code>
      ))}
    </span>
  );
}

export function JobForm({ serviceId, job, onDone }: { serviceId: string; job?: Job; onDone: (job: Job) => void }) {
  const [name, setName] = useState(job?.name ?? '');
  const [schedule, setSchedule] = useState(job?.schedule ?? '0 3 * * *');
  const [timezone, setTimezone] = useState(job?.timezone ?? 'UTC');
  const [line, setLine] = useState(job ? joinArgv(job.command) : '');
  const [timeout, setTimeoutSeconds] = useState(String(job?.timeoutSeconds ?? 3600));
  const [concurrency, setConcurrency] = useState<JobConcurrency>(job?.concurrency ?? 'forbid');
  const [enabled, setEnabled] = useState(job?.enabled ?? true);
  const zones = useMemo(timeZones, []);
  const words = describeSchedule(schedule);
  const argv = splitArgv(line);
  const save = useAction<NewJobInput, { job: Job }>(job ? 'PATCH' : 'POST', job ? apiPath('jobs.patch', { serviceId, jobId: job.id }) : apiPath('jobs.create', { serviceId }), {
    invalidate: [['jobs', serviceId]],
    success: (r) => (job ? `Saved ${r.job.name}` : `Created ${r.job.name}`),
    onSuccess: (r) => onDone(r.job),
  });
  const seconds = Number(timeout);
  const ready = name.trim() !== '' && words.ok && argv.ok && Number.isInteger(seconds) && seconds > 0;
  return (
    <form
      className="stack"
      onSubmit={(e) => {
        e.preventDefault();
        if (!ready || !argv.ok) return;
        save.mutate({ name: name.trim(), schedule: schedule.trim().split(/\s+/).join(' '), timezone, command: argv.argv, timeoutSeconds: seconds, concurrency, enabled });
      }}
    >
      <Field label="Name">{(id) => <input id={id} value={name} onChange={(e) => setName(e.target.value)} placeholder="nightly-cleanup" autoComplete="off" required />}</Field>
      <div className="cols">
        <Field
          label="Schedule"
          hint={
            <span aria-live="polite">
              {words.ok ? <span className="strong">{`${words.words} (${timezone})`}</span> : <span className="tone-bad-text">{words.error}</span>}
              <span className="block">Cron: minute hour day month weekday</span>
            </span>
          }
        >
          {(id) => <input id={id} className="mono" value={schedule} onChange={(e) => setSchedule(e.target.value)} autoComplete="off" spellCheck={false} required />}
        </Field>
        <Field label="Time zone">
          {(id) => (
            <select id={id} value={timezone} onChange={(e) => setTimezone(e.target.value)}>
              {zones.map((z) => (
                <option key={z} value={z}>
                  {z}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <Field label="Command" hint={line.trim() ? <ArgvPreview line={line} /> : "Split into words like a shell would, but nothing is expanded: to use a shell, write sh -c '…'."}>
        {(id) => (
          <input id={id} className="mono" value={line} onChange={(e) => setLine(e.target.value)} placeholder="node scripts/cleanup.js --days 30" autoComplete="off" spellCheck={false} required />
        )}
      </Field>
      <div className="cols">
        <Field label="Time limit (seconds)">{(id) => <input id={id} type="number" min={1} value={timeout} onChange={(e) => setTimeoutSeconds(e.target.value)} />}</Field>
        <Field label="If the last run is still running">
          {(id) => (
            <select id={id} value={concurrency} onChange={(e) => setConcurrency(e.target.value as JobConcurrency)}>
              <option value="forbid">Skip it (one run at a time)</option>
              <option value="allow">Start it anyway</option>
            </select>
          )}
        </Field>
      </div>
      <label className="check">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Enabled (runs on its schedule)
      </label>
      <div className="row end">
        <Button variant="primary" type="submit" busy={save.isPending} disabled={!ready}>
          {job ? 'Save job' : 'Create job'}
        </Button>
      </div>
    </form>
  );
}
