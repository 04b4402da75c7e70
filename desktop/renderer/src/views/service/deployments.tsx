// Deployments of a service: the list, the selected one's live build log, abort, and "explain this
// failure" for failed ones. Before the first deployment of a git service: its build plan.
import { useEffect, useState } from 'react';
import { useSearch } from 'wouter';
import { deploymentInProgress } from '../../../../../shared/statuses.js';
import type { AiProvider, Deployment, DeploymentLogPage, Explanation, ServiceOverview } from '../../../../../shared/types.js';
import { useAction, useGet, useTransport } from '../../api/context';
import { Button, Empty, ErrorNote, Field, Status, timeAgo } from '../../ui/kit';
import { BuildPlan } from './build-plan';
import { LogView } from './log-view';
import { serviceKind } from './service-kind';
import { useLogStream, type LogLine } from './use-log-stream';
import { apiPath } from '../../../../../shared/api-routes.js';

export function Deployments({ overview }: { overview: ServiceOverview }) {
  const { service: s, deployments } = overview;
  const search = useSearch();
  const wanted = new URLSearchParams(search).get('d');
  const [picked, setPicked] = useState<string | null>(null);
  const selected = deployments.find((d) => d.id === (picked ?? wanted)) ?? deployments[0];
  const kind = serviceKind(s);
  return (
    <div className="stack">
      {deployments.length === 0 ? (
        <>
          {kind !== 'database' && kind !== 'image' ? <BuildPlan serviceId={s.id} /> : null}
          <Empty title="Not deployed yet">Press Deploy above to build and start this service; its build log appears here as it runs.</Empty>
        </>
      ) : (
        <div className="split">
          <ul className="list deploy-list" aria-label="Deployments">
            {deployments.map((d) => (
              <li key={d.id}>
                <button type="button" className={d.id === selected?.id ? 'list-item active' : 'list-item'} aria-current={d.id === selected?.id ? 'true' : undefined} onClick={() => setPicked(d.id)}>
                  <Status value={d.status} />
                  <span className="mono small">{d.commitSha ? d.commitSha.slice(0, 7) : '—'}</span>
                  <span className="muted small">{timeAgo(d.createdAt)}</span>
                </button>
              </li>
            ))}
          </ul>
          {selected ? <DeploymentDetail deployment={selected} key={selected.id} /> : null}
        </div>
      )}
    </div>
  );
}

function duration(d: Deployment): string {
  if (!d.startedAt) return '';
  const ms = Date.parse(d.finishedAt ?? new Date().toISOString()) - Date.parse(d.startedAt);
  return `${Math.max(0, Math.round(ms / 1000))} s`;
}

/**
 * The stream's snapshot holds the newest lines of a build log (at most 1,000 / 1 MiB): earlier ones
 * are read a page at a time, back from the first line shown.
 */
function useEarlierLines(deploymentId: string, firstShown: number | undefined) {
  const t = useTransport();
  const [earlier, setEarlier] = useState<LogLine[]>([]);
  const [cursor, setCursor] = useState<string | null | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setEarlier([]);
    setCursor(undefined);
  }, [deploymentId]);
  const from = cursor ?? (firstShown !== undefined ? String(firstShown) : null);
  const load = async () => {
    if (from === null) return;
    setBusy(true);
    setError(null);
    try {
      const page = await t.request<DeploymentLogPage>('GET', apiPath('deployments.logs', { deploymentId }, { before: from }));
      setEarlier((ls) => [...page.logs, ...ls]);
      setCursor(page.prevCursor);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { earlier, canLoad: from !== null && cursor !== null, busy, error, load };
}

function DeploymentDetail({ deployment: d }: { deployment: Deployment }) {
  const log = useLogStream(apiPath('deployments.stream', { deploymentId: d.id }));
  const older = useEarlierLines(d.id, log.lines[0]?.id);
  const lines = older.earlier.length > 0 ? [...older.earlier, ...log.lines] : log.lines;
  const abort = useAction('POST', apiPath('deployments.abort', { deploymentId: d.id }), { invalidate: [['service', d.serviceId]], success: 'Abort requested' });
  const status = log.ended ?? d.status;
  return (
    <div className="stack detail">
      <div className="row between">
        <div className="row">
          <h2 className="h3">Deployment</h2>
          <Status value={status} />
          <span className="muted small">
            {d.trigger} · {timeAgo(d.createdAt)} {duration(d) ? `· ${duration(d)}` : ''}
          </span>
        </div>
        {deploymentInProgress(d.status) ? (
          <Button busy={abort.isPending} onClick={() => abort.mutate(undefined)}>
            Abort
          </Button>
        ) : null}
      </div>
      {d.imageTag ? <div className="muted small mono">{d.imageTag}</div> : null}
      {older.canLoad && log.lines.length > 0 ? (
        <div className="row">
          <Button variant="ghost" busy={older.busy} onClick={() => void older.load()}>
            Load earlier lines
          </Button>
          <ErrorNote error={older.error} />
        </div>
      ) : null}
      <LogView lines={lines} label="Build log" emptyText={log.state === 'open' || (log.ended === null && deploymentInProgress(d.status)) ? 'Waiting for the first lines…' : 'No log lines.'} />
      <div className="muted small" role="status">
        {log.ended
          ? `Build log complete: ${log.ended}. ${lines.length} lines.`
          : log.state === 'open'
            ? `Following the build log live · ${lines.length} lines`
            : log.state === 'reconnecting'
              ? 'Connecting to the build log…'
              : ''}
      </div>
      {status === 'failed' ? <Explain deploymentId={d.id} /> : null}
    </div>
  );
}

function Explain({ deploymentId }: { deploymentId: string }) {
  const providers = useGet<{ providers: AiProvider[] }>(['ai-providers'], apiPath('ai-providers.list'));
  const [providerId, setProviderId] = useState('local');
  const [model, setModel] = useState('');
  const [result, setResult] = useState<Explanation | null>(null);
  const explain = useAction<{ providerId: string; model?: string }, { explanation: Explanation }>('POST', apiPath('deployments.explain-failure', { deploymentId }), {
    onSuccess: (r) => setResult(r.explanation),
  });
  const chosen = providers.data?.providers.find((p) => p.id === providerId);
  return (
    <div className="card explain stack">
      <h3 className="h3">Why did this fail?</h3>
      <form
        className="row wrap align-end"
        onSubmit={(e) => {
          e.preventDefault();
          explain.mutate({ providerId, ...(model.trim() ? { model: model.trim() } : {}) });
        }}
      >
        <Field label="Explained by">
          {(id) => (
            <select id={id} value={providerId} onChange={(e) => setProviderId(e.target.value)}>
              {(providers.data?.providers ?? [{ id: 'local', name: 'Built-in rules', kind: 'local' } as AiProvider]).map((p) => (
                <option key={p.id} value={p.id}>
                  {p.kind === 'local' ? p.name : `${p.name} (${p.kind})`}
                </option>
              ))}
            </select>
          )}
        </Field>
        {chosen && chosen.kind !== 'local' ? (
          <Field label="Model">{(id) => <input id={id} value={model} onChange={(e) => setModel(e.target.value)} placeholder={chosen.defaultModel ?? ''} />}</Field>
        ) : null}
        <Button type="submit" variant="primary" busy={explain.isPending}>
          Explain this failure
        </Button>
      </form>
      <ErrorNote error={explain.error} />
      {result ? (
        <div className="stack explanation" aria-live="polite">
          <p className="strong">{result.summary}</p>
          <div>
            <span className="label">Likely cause</span>
            <p>{result.likelyCause}</p>
          </div>
          <div>
            <span className="label">Suggested fix</span>
            <p>{result.suggestedFix}</p>
          </div>
          {result.commands.length > 0 ? <pre className="code">{result.commands.join('\n')}</pre> : null}
        </div>
      ) : null}
    </div>
  );
}
