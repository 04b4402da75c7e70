// One-off commands in a service: a command line (split into argv, shown), where it runs (the live
// container, or a new one from the live image), its output streamed as it comes (stderr marked),
// the exit code at the end; then the service's record of commands and terminals (who, what, how,
// exit code, when), live through the `exec` events.
import { useEffect, useRef, useState } from 'react';
import type { ExecMode, ExecRecord, ExecStreamPayloads } from '../../../../../shared/types/exec.js';
import type { Service } from '../../../../../shared/types.js';
import { apiPath } from '../../../../../shared/api-routes.js';
import { useGet, useTransport } from '../../api/context';
import { Button, Empty, ErrorNote, Field, Loading, timeAgo } from '../../ui/kit';
import { joinArgv, splitArgv } from './argv';
import { ArgvPreview } from './jobs-form';
import { LogView } from './log-view';
import type { LogLine } from './use-log-stream';
import './ops.css';

const MODES: { id: ExecMode; label: string; sentence: string }[] = [
  { id: 'attach', label: 'In the live container', sentence: 'Runs next to the app in its running container (docker exec): it sees what the app sees right now.' },
  { id: 'run', label: 'In a new container', sentence: "Starts a new container from the live image with the service's variables, network and volumes, and removes it at the end." },
];

/** Where a one-off command is: not started, streaming, ended (with an exit code, or why there is none), or refused. */
type Outcome = { state: 'idle' } | { state: 'running' } | { state: 'exited'; exitCode: number | null; error?: string } | { state: 'refused'; message: string } | { state: 'dropped' };

const MAX_LINES = 20_000;

export default function ExecTab({ service }: { service: Service }) {
  const t = useTransport();
  const [line, setLine] = useState('');
  const [mode, setMode] = useState<ExecMode>('attach');
  const [lines, setLines] = useState<LogLine[]>([]);
  const [outcome, setOutcome] = useState<Outcome>({ state: 'idle' });
  const stop = useRef<(() => void) | null>(null);
  useEffect(() => () => stop.current?.(), []);
  const split = splitArgv(line);
  const running = outcome.state === 'running';

  const start = () => {
    if (!split.ok) return;
    stop.current?.();
    setLines([]);
    setOutcome({ state: 'running' });
    let n = 0;
    let ended = false;
    stop.current = t.postStream(
      apiPath('exec.start', { serviceId: service.id }),
      { command: split.argv, mode },
      {
        onEvent(e) {
          if (e.event === 'output') {
            const d = e.data as ExecStreamPayloads['output'];
            const l: LogLine = { id: ++n, line: String(d.line ?? ''), stream: d.stream === 'stderr' ? 'stderr' : 'stdout', createdAt: '' };
            setLines((ls) => (ls.length >= MAX_LINES ? [...ls.slice(-MAX_LINES + 1), l] : [...ls, l]));
          } else if (e.event === 'exit') {
            ended = true;
            const d = e.data as ExecStreamPayloads['exit'];
            setOutcome({ state: 'exited', exitCode: typeof d.exitCode === 'number' ? d.exitCode : null, ...(d.error ? { error: String(d.error) } : {}) });
          } else if (e.event === 'error') {
            ended = true;
            setOutcome({ state: 'refused', message: String((e.data as { message?: unknown }).message ?? 'the command was refused') });
          }
        },
        onState(s) {
          if (s === 'closed' && !ended) setOutcome((o) => (o.state === 'running' ? { state: 'dropped' } : o));
        },
      },
    );
  };

  return (
    <div className="stack">
      <section className="card stack" aria-labelledby="run-a-command">
        <h2 id="run-a-command" className="card-title">
          Run a command
        </h2>
        <form
          className="stack"
          onSubmit={(e) => {
            e.preventDefault();
            start();
          }}
        >
          <Field label="Command" hint={line.trim() ? <ArgvPreview line={line} /> : "Split into words like a shell would, but nothing is expanded: to use a shell, write sh -c '…'."}>
            {(id) => <input id={id} className="mono" value={line} onChange={(e) => setLine(e.target.value)} placeholder="php artisan cache:clear" autoComplete="off" spellCheck={false} />}
          </Field>
          <fieldset className="mode-choice">
            <legend>Where it runs</legend>
            {MODES.map((m) => (
              <label key={m.id} className="check">
                <input type="radio" name="exec-mode" value={m.id} checked={mode === m.id} onChange={() => setMode(m.id)} />
                <span>
                  <span className="strong">{m.label}</span>{' '}
                  <span className="muted small">
                    {m.sentence}
                    {m.id === 'attach' && service.replicas > 1 ? ` With ${service.replicas} replicas: in one of the running ones, on whichever node it runs.` : ''}
                  </span>
                </span>
              </label>
            ))}
          </fieldset>
          <div className="row end">
            {running ? (
              <Button
                onClick={() => {
                  stop.current?.();
                  stop.current = null;
                  setOutcome({ state: 'dropped' });
                }}
              >
                Stop following
              </Button>
            ) : null}
            <Button variant="primary" type="submit" busy={running} disabled={!split.ok}>
              Run
            </Button>
          </div>
        </form>
        {outcome.state !== 'idle' ? (
          <div className="stack-tight">
            <LogView lines={lines} label="Command output" emptyText={running ? 'Waiting for output…' : 'No output.'} height={360} />
            <ExitLine outcome={outcome} />
          </div>
        ) : null}
      </section>
      <ExecHistory serviceId={service.id} />
    </div>
  );
}

function ExitLine({ outcome }: { outcome: Outcome }) {
  if (outcome.state === 'running')
    return (
      <p className="muted small" role="status">
        Running…
      </p>
    );
  if (outcome.state === 'refused') return <ErrorNote error={new Error(outcome.message)} />;
  if (outcome.state === 'dropped')
    return (
      <p className="tone-bad-text small" role="status">
        The output stream ended before the command did; its exit code is in the history below.
      </p>
    );
  if (outcome.state !== 'exited') return null;
  return (
    <p className={`exit-line ${outcome.exitCode === 0 ? 'tone-ok-text' : 'tone-bad-text'}`} role="status">
      {outcome.exitCode !== null ? `Exited with code ${outcome.exitCode}` : 'Ended without an exit code'}
      {outcome.error ? `: ${outcome.error}` : ''}
    </p>
  );
}

function ExecHistory({ serviceId }: { serviceId: string }) {
  const q = useGet<{ execs: ExecRecord[] }>(['execs', serviceId], apiPath('exec.list', { serviceId }));
  return (
    <section className="stack-tight" aria-labelledby="exec-history">
      <h2 id="exec-history" className="card-title">
        Commands and terminals
      </h2>
      {q.isPending ? <Loading what="history" /> : null}
      {q.error ? <ErrorNote error={q.error} /> : null}
      {q.data && q.data.execs.length === 0 ? <Empty title="Nothing run yet">Every command and terminal session is recorded here: who, what, and how it ended.</Empty> : null}
      {q.data && q.data.execs.length > 0 ? (
        <div className="table-scroll">
          <table className="table">
            <caption className="sr-only">Commands and terminals run in this service</caption>
            <thead>
              <tr>
                <th scope="col">Who</th>
                <th scope="col">Command</th>
                <th scope="col">How</th>
                <th scope="col">Exit code</th>
                <th scope="col">When</th>
              </tr>
            </thead>
            <tbody>
              {q.data.execs.map((x) => (
                <tr key={x.id}>
                  <td>{x.keyName}</td>
                  <td className="mono small">{x.mode === 'terminal' ? <span className="muted">terminal</span> : joinArgv(x.command)}</td>
                  <td>{x.mode === 'attach' ? 'live container' : x.mode === 'run' ? 'new container' : 'terminal'}</td>
                  <td className={`mono ${x.exitCode === null ? 'muted' : x.exitCode === 0 ? '' : 'tone-bad-text'}`}>{x.exitCode ?? (x.finishedAt ? '—' : 'running')}</td>
                  <td title={new Date(x.startedAt).toLocaleString()}>{timeAgo(x.startedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
