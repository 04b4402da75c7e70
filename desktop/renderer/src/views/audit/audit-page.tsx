// The audit log (keys over all projects): who changed what, from where, with what result. Filters
// (project, key, action, result, time range) become GET /api/audit's query; "Load more" follows the
// cursor. Live: the `audit` event refetches the loaded pages (throttled in api/live.ts).
import { useInfiniteQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { apiPath } from '../../../../../shared/api-routes.js';
import { actionWords, AUDITED_ROUTE_IDS } from '../../../../../shared/audit-actions.js';
import type { ApiKey, AuditEntry, AuditPage, AuditQuery, Project } from '../../../../../shared/types.js';
import { useGet, useTransport } from '../../api/context';
import { Button, Empty, ErrorNote, Field, Loading, timeAgo } from '../../ui/kit';
import './audit.css';

const PAGE = 50;
const RANGES = [
  { id: 'any', label: 'Any time', ms: null },
  { id: '1h', label: 'Last hour', ms: 3_600_000 },
  { id: '24h', label: 'Last 24 hours', ms: 86_400_000 },
  { id: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
  { id: '30d', label: 'Last 30 days', ms: 30 * 86_400_000 },
] as const;

type RangeId = (typeof RANGES)[number]['id'];

/** The areas of the audited routes (`services.` ...), each offered as a prefix filter. */
const AREAS = [...new Set(AUDITED_ROUTE_IDS.filter((id) => id.includes('.')).map((id) => id.slice(0, id.indexOf('.') + 1)))].sort();

export default function AuditPage() {
  const t = useTransport();
  const [projectId, setProjectId] = useState('');
  const [keyId, setKeyId] = useState('');
  const [action, setAction] = useState('');
  const [outcome, setOutcome] = useState<'' | 'ok' | 'error'>('');
  const [range, setRange] = useState<{ id: RangeId; from: string | undefined }>({ id: 'any', from: undefined });
  const projects = useGet<{ projects: Project[] }>(['projects'], apiPath('projects.list'));
  // only a write key over all projects lists keys; a read key filters by the keys its entries name
  const keys = useGet<{ keys: ApiKey[] }>(['keys'], apiPath('keys.list'), { retry: false });
  const filters: AuditQuery = {
    ...(projectId ? { projectId } : {}),
    ...(keyId ? { keyId } : {}),
    ...(action ? { action } : {}),
    ...(outcome ? { outcome } : {}),
    ...(range.from ? { from: range.from } : {}),
  };
  const log = useInfiniteQuery({
    queryKey: ['audit', filters],
    queryFn: ({ pageParam }) => t.request<AuditPage>('GET', apiPath('audit.list', {}, { ...filters, limit: PAGE, before: pageParam ?? undefined })),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor,
  });
  const entries = log.data?.pages.flatMap((p) => p.entries) ?? [];
  const projectList = projects.data?.projects ?? [];
  const keyOptions = keys.data ? keys.data.keys.map((k) => ({ id: k.id, name: k.name })) : actorsOf(entries);
  const filtered = Object.keys(filters).length > 0;
  return (
    <div className="page">
      <div className="page-head">
        <div>
          <h1>Audit log</h1>
          <p className="muted">Every change made through the API, the console and the CLI, sign-ins and webhook deliveries: who, from where, and how it ended.</p>
        </div>
      </div>
      <form className="card audit-filters" aria-label="Filter the audit log" onSubmit={(e) => e.preventDefault()}>
        <Field label="Project">
          {(id) => (
            <select id={id} value={projectId} onChange={(e) => setProjectId(e.target.value)}>
              <option value="">All projects</option>
              {projectList.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Key">
          {(id) => (
            <select id={id} value={keyId} onChange={(e) => setKeyId(e.target.value)}>
              <option value="">Any key</option>
              {keyOptions.map((k) => (
                <option key={k.id} value={k.id}>
                  {k.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Action">
          {(id) => (
            <select id={id} value={action} onChange={(e) => setAction(e.target.value)}>
              <option value="">All actions</option>
              <optgroup label="Areas">
                {AREAS.map((a) => (
                  <option key={a} value={a}>
                    {a.slice(0, -1)} (all)
                  </option>
                ))}
              </optgroup>
              <optgroup label="Actions">
                {[...AUDITED_ROUTE_IDS]
                  .sort((a, b) => actionWords(a).localeCompare(actionWords(b)))
                  .map((r) => (
                    <option key={r} value={r}>
                      {actionWords(r)}
                    </option>
                  ))}
              </optgroup>
            </select>
          )}
        </Field>
        <Field label="Result">
          {(id) => (
            <select id={id} value={outcome} onChange={(e) => setOutcome(e.target.value as '' | 'ok' | 'error')}>
              <option value="">Any result</option>
              <option value="ok">Succeeded</option>
              <option value="error">Failed or refused</option>
            </select>
          )}
        </Field>
        <Field label="Time">
          {(id) => (
            <select
              id={id}
              value={range.id}
              onChange={(e) => {
                const r = RANGES.find((x) => x.id === e.target.value) ?? RANGES[0];
                setRange({ id: r.id, from: r.ms === null ? undefined : new Date(Date.now() - r.ms).toISOString() });
              }}
            >
              {RANGES.map((r) => (
                <option key={r.id} value={r.id}>
                  {r.label}
                </option>
              ))}
            </select>
          )}
        </Field>
      </form>
      <ErrorNote error={log.error} />
      {log.isPending ? <Loading what="the audit log" /> : null}
      {log.data && entries.length === 0 ? (
        <Empty title={filtered ? 'No entries match these filters' : 'Nothing recorded yet'}>
          {filtered ? 'Widen the filters to see more.' : 'Changes made through the API, the console and the CLI appear here as they happen.'}
        </Empty>
      ) : null}
      {entries.length > 0 ? (
        <div className="table-scroll audit-scroll">
          <table className="table audit-table">
            <caption className="sr-only">Audit log, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Who</th>
                <th scope="col">From</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
                <th scope="col">Result</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <AuditRow key={e.id} entry={e} projects={projectList} />
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {log.hasNextPage ? (
        <div className="row end">
          <Button onClick={() => void log.fetchNextPage()} busy={log.isFetchingNextPage}>
            Load more
          </Button>
        </div>
      ) : null}
    </div>
  );
}

/** The keys the loaded entries name (for a key that cannot list keys). */
function actorsOf(entries: AuditEntry[]): { id: string; name: string }[] {
  const seen = new Map<string, string>();
  for (const e of entries) if (e.actor.keyId && !seen.has(e.actor.keyId)) seen.set(e.actor.keyId, e.actor.keyName ?? e.actor.keyId);
  return [...seen].map(([id, name]) => ({ id, name }));
}

function who(e: AuditEntry): { label: string; detail: string | null } {
  if (e.actor.kind === 'webhook') return { label: 'webhook', detail: null };
  if (e.actor.kind === 'server') return { label: 'server', detail: 'berth keys on the server' };
  const via = e.actor.kind === 'session' ? 'console' : 'key';
  if (e.actor.keyId === null) return { label: e.actor.kind === 'session' ? 'unknown (sign-in)' : 'no valid key', detail: null };
  return { label: e.actor.keyName ?? e.actor.keyId, detail: via };
}

function AuditRow({ entry: e, projects }: { entry: AuditEntry; projects: Project[] }) {
  const project = e.projectId ? projects.find((p) => p.id === e.projectId) : undefined;
  const service = e.serviceId ? project?.services.find((s) => s.id === e.serviceId) : undefined;
  const actor = who(e);
  const at = new Date(e.at);
  return (
    <tr className={e.outcome === 'error' ? 'audit-error' : undefined}>
      <td className="small nowrap">
        <time dateTime={e.at} title={e.at}>
          {at.toLocaleString()}
        </time>
        <div className="muted">{timeAgo(e.at)}</div>
      </td>
      <td>
        <span className="strong">{actor.label}</span>
        {actor.detail ? <div className="muted small">{actor.detail}</div> : null}
      </td>
      <td className="mono small">{e.clientAddress ?? '—'}</td>
      <td>
        <span>{actionWords(e.route)}</span>
        <div className="muted small mono" title={`${e.method} ${e.path}`}>
          {e.detail && e.detail !== 'terminal' ? e.detail : e.route}
        </div>
      </td>
      <td className="small">
        {project ? <Link href={`/projects/${project.slug}`}>{project.name}</Link> : e.projectId ? <span className="muted">deleted project</span> : null}
        {service ? (
          <>
            {' / '}
            <Link href={`/services/${service.id}`}>{service.name}</Link>
          </>
        ) : e.serviceId && project ? (
          <span className="muted"> / deleted service</span>
        ) : null}
        {!e.projectId && !e.serviceId ? <span className="muted">—</span> : null}
      </td>
      <td className="nowrap">
        <span className={`badge tone-${e.outcome === 'ok' ? 'ok' : 'bad'}`}>
          <span className="dot" aria-hidden="true" />
          {e.status}
        </span>
        {e.errorCode ? <div className="muted small mono">{e.errorCode}</div> : null}
      </td>
    </tr>
  );
}
