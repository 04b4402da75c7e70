// How a service's deployments go live: the strategy (rolling or recreate) and the release command
// run before the swap, with its time limit. The command is typed as a command line and sent as the
// argv shown under it (shared/command-line.ts splits it; nothing is ever run through a shell).
import { useState } from 'react';
import { joinCommandLine, splitCommandLine } from '../../../../../shared/command-line.js';
import type { DeployStrategy, Service } from '../../../../../shared/types.js';
import { useAction } from '../../api/context';
import { errorMessage } from '../../transport/transport';
import { Button, ErrorNote } from '../../ui/kit';
import { useSyncedForm } from '../../ui/synced-form';
import { apiPath } from '../../../../../shared/api-routes.js';

type Body = { deployStrategy?: DeployStrategy; releaseCommand?: string[] | null; releaseTimeoutSeconds?: number | null };
type FieldName = 'deployStrategy' | 'releaseCommand' | 'releaseTimeoutSeconds';

const STRATEGY_WORDS: Record<DeployStrategy, string> = { rolling: 'rolling', recreate: 'recreate' };

/** The field a daemon 400 names first (`releaseCommand.0: ...`), so the message shows beside it. */
function fieldOf(err: unknown): FieldName | null {
  const m = /^(deployStrategy|releaseCommand|releaseTimeoutSeconds)\b/.exec(errorMessage(err));
  return (m?.[1] as FieldName | undefined) ?? null;
}

/** What a save changes, in words ("Strategy: rolling → recreate"). */
function changes(s: Service, body: Body): string[] {
  const out: string[] = [];
  if (body.deployStrategy !== undefined && body.deployStrategy !== s.deployStrategy) out.push(`Strategy: ${STRATEGY_WORDS[s.deployStrategy]} → ${STRATEGY_WORDS[body.deployStrategy]}`);
  if (body.releaseCommand !== undefined) out.push(body.releaseCommand ? `Release command: ${joinCommandLine(body.releaseCommand)}` : 'Release command removed');
  if (body.releaseTimeoutSeconds !== undefined) out.push(`Release timeout: ${body.releaseTimeoutSeconds ?? 'default'}${body.releaseTimeoutSeconds ? ' s' : ''}`);
  return out;
}

export function DeploySettings({ service: s }: { service: Service }) {
  // another client's change (a live event re-read the service) shows here too, unless the user is editing
  const [f, setF] = useSyncedForm(
    () => ({ strategy: s.deployStrategy, line: s.releaseCommand ? joinCommandLine(s.releaseCommand) : '', timeout: String(s.releaseTimeoutSeconds) }),
    JSON.stringify([s.deployStrategy, s.releaseCommand, s.releaseTimeoutSeconds]),
  );
  const [saved, setSaved] = useState<string[] | null>(null);
  const split = splitCommandLine(f.line);
  const argv = 'argv' in split ? split.argv : null;
  const save = useAction<Body, { service: Service }>('PATCH', apiPath('services.patch', { serviceId: s.id }), {
    invalidate: [['service', s.id]],
    success: 'Deploy settings saved; they apply at the next deployment',
  });
  const wrong = save.error ? fieldOf(save.error) : null;
  const errorBy = (field: FieldName) => (wrong === field ? <ErrorNote error={save.error} /> : null);
  const submit = () => {
    if (!argv) return;
    const body: Body = {};
    if (f.strategy !== s.deployStrategy) body.deployStrategy = f.strategy;
    const before = s.releaseCommand ?? [];
    if (argv.join('\u0000') !== before.join('\u0000') || argv.length !== before.length) body.releaseCommand = argv.length > 0 ? argv : null;
    const timeout = f.timeout.trim() === '' ? null : Number(f.timeout);
    if (timeout !== s.releaseTimeoutSeconds) body.releaseTimeoutSeconds = timeout;
    const what = changes(s, body);
    if (what.length === 0) {
      setSaved([]);
      return;
    }
    save.mutate(body, { onSuccess: () => setSaved(what) });
  };
  return (
    <form
      className="card stack"
      aria-label="Deploy settings"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <h2 className="h3">Deploying</h2>
      <fieldset className="stack tight">
        <legend>Strategy</legend>
        <label className="check">
          <input type="radio" name={`strategy-${s.id}`} value="rolling" checked={f.strategy === 'rolling'} onChange={() => setF({ ...f, strategy: 'rolling' })} /> Rolling
          <span className="muted small">— the new container starts and answers before the old one stops; no downtime.</span>
        </label>
        <label className="check">
          <input type="radio" name={`strategy-${s.id}`} value="recreate" checked={f.strategy === 'recreate'} onChange={() => setF({ ...f, strategy: 'recreate' })} /> Recreate
          <span className="muted small">— the old container stops first, so the service is down until the new one starts (for a volume only one container may write, such as SQLite's).</span>
        </label>
        {errorBy('deployStrategy')}
      </fieldset>
      <div className="field">
        <label htmlFor={`release-${s.id}`}>Release command</label>
        <input
          id={`release-${s.id}`}
          className="mono"
          value={f.line}
          onChange={(e) => setF({ ...f, line: e.target.value })}
          placeholder="bin/rails db:migrate"
          aria-describedby={`release-hint-${s.id} release-argv-${s.id}`}
          aria-invalid={!argv || wrong === 'releaseCommand' || undefined}
          autoComplete="off"
          spellCheck={false}
        />
        <div className="hint" id={`release-hint-${s.id}`}>
          Runs once per deployment in a new container from the new image, with the service's variables and volumes, before it goes live; if it fails, the deployment fails and the current release keeps
          serving. Typed like a shell command line but not run by a shell: use quotes for words with spaces (<span className="mono">sh -c &apos;a &amp;&amp; b&apos;</span> for shell features). Empty
          for none.
        </div>
        <div className="hint" id={`release-argv-${s.id}`} aria-live="polite">
          {argv === null ? (
            <span className="tone-bad-text">The command line {'error' in split ? split.error : ''}.</span>
          ) : argv.length === 0 ? (
            'No release command.'
          ) : (
            <>
              Runs as argv: <span className="mono argv">{JSON.stringify(argv)}</span>
            </>
          )}
        </div>
        {errorBy('releaseCommand')}
      </div>
      <div className="field narrow">
        <label htmlFor={`release-timeout-${s.id}`}>Release timeout (seconds)</label>
        <input id={`release-timeout-${s.id}`} type="number" className="short" value={f.timeout} onChange={(e) => setF({ ...f, timeout: e.target.value })} />
        <div className="hint">The deployment fails when the release command runs longer.</div>
        {errorBy('releaseTimeoutSeconds')}
      </div>
      {save.error && !wrong ? <ErrorNote error={save.error} /> : null}
      {saved ? (
        <div className="note note-ok" role="status">
          {saved.length === 0 ? 'Nothing changed.' : `Saved. ${saved.join('; ')}.`}
        </div>
      ) : null}
      <div className="row end">
        <Button type="submit" variant="primary" busy={save.isPending} disabled={argv === null}>
          Save deploy settings
        </Button>
      </div>
    </form>
  );
}
