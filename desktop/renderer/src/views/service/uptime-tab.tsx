// A service's uptime checks: each with its state, 24-hour and 90-day uptime and its last response;
// picking one shows its uptime bars, the response-time chart, its incidents, and Check now, Pause or
// Resume, Edit and Delete. Live through /api/events (`check`, `incident`).
import { useState } from 'react';
import type { Check } from '../../../../../shared/types/checks.js';
import type { Domain, Service } from '../../../../../shared/types.js';
import { apiPath } from '../../../../../shared/api-routes.js';
import { useAction, useGet } from '../../api/context';
import { Button, ConfirmButton, Empty, ErrorNote, Loading, Modal, Status, timeAgo } from '../../ui/kit';
import { CheckForm } from './uptime-form';
import { Incidents, percent, ResponseChart, UptimeBars } from './uptime-parts';
import './ops.css';

function targetText(c: Check, domains: Domain[]): string {
  if (c.target.kind === 'port') return `host port${c.path}`;
  const id = c.target.domainId;
  return `${domains.find((d) => d.id === id)?.hostname ?? 'a removed domain'}${c.path}`;
}

function certificateText(days: number | null): string {
  if (days === null) return '';
  if (days < 0) return ' · certificate expired';
  return days === 0 ? ' · certificate renews within a day' : ` · certificate valid ${days} more day${days === 1 ? '' : 's'}`;
}

export default function UptimeTab({ service, domains }: { service: Service; domains: Domain[] }) {
  const serviceId = service.id;
  const q = useGet<{ checks: Check[] }>(['checks', serviceId], apiPath('checks.list', { serviceId }));
  const [picked, setPicked] = useState<string | null>(null);
  const [editing, setEditing] = useState<'new' | Check | null>(null);
  if (q.isPending) return <Loading what="uptime checks" />;
  if (!q.data) return <ErrorNote error={q.error} />;
  const checks = q.data.checks;
  const selected = checks.find((c) => c.id === picked) ?? checks[0] ?? null;
  const canCheck = domains.length > 0 || service.hostPort !== null;
  return (
    <div className="stack">
      <div className="row between">
        <p className="muted">Berth requests the service&apos;s own domains through its proxy on this server, and tells you when they stop answering.</p>
        <Button variant="primary" disabled={!canCheck} onClick={() => setEditing('new')}>
          Add check
        </Button>
      </div>
      {checks.length === 0 ? (
        <Empty title="No uptime checks">
          {canCheck
            ? 'Add a check and Berth requests the service on an interval; after a few failures in a row it opens an incident and notifies you.'
            : 'Add a domain to the service first: checks request its own domains.'}
        </Empty>
      ) : (
        <div className="table-scroll">
          <table className="table">
            <caption className="sr-only">Uptime checks</caption>
            <thead>
              <tr>
                <th scope="col">Check</th>
                <th scope="col">State</th>
                <th scope="col">24 h</th>
                <th scope="col">90 days</th>
                <th scope="col">Last response</th>
              </tr>
            </thead>
            <tbody>
              {checks.map((c) => (
                <tr key={c.id} className={c.id === selected?.id ? 'row-selected' : undefined}>
                  <td>
                    <button type="button" className="linkish strong" aria-pressed={c.id === selected?.id} onClick={() => setPicked(c.id)}>
                      {c.name}
                    </button>
                    <div className="mono small muted truncate">{targetText(c, domains)}</div>
                  </td>
                  <td>
                    <Status value={c.status} label={c.openIncidentId ? 'down · incident' : c.status} />
                    {c.lastError ? <div className="small tone-bad-text">{c.lastError}</div> : null}
                  </td>
                  <td>{percent(c.uptime24h)}</td>
                  <td>{percent(c.uptime90d)}</td>
                  <td>
                    {c.lastResponseMs === null ? <span className="muted">—</span> : `${c.lastResponseMs} ms`}
                    <div className="small muted">{c.lastCheckedAt ? timeAgo(c.lastCheckedAt) : 'not yet'}</div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {selected ? <CheckDetail serviceId={serviceId} check={selected} domains={domains} onEdit={() => setEditing(selected)} onDeleted={() => setPicked(null)} key={selected.id} /> : null}
      <Modal open={editing !== null} title={editing === 'new' ? 'Add an uptime check' : `Edit ${editing?.name ?? ''}`} onClose={() => setEditing(null)}>
        {editing !== null ? (
          <CheckForm
            serviceId={serviceId}
            domains={domains}
            hasPort={service.hostPort !== null}
            {...(editing !== 'new' ? { check: editing } : {})}
            onDone={(c) => {
              setEditing(null);
              setPicked(c.id);
            }}
          />
        ) : null}
      </Modal>
    </div>
  );
}

function CheckDetail({ serviceId, check, domains, onEdit, onDeleted }: { serviceId: string; check: Check; domains: Domain[]; onEdit: () => void; onDeleted: () => void }) {
  const checkId = check.id;
  const run = useAction<Record<string, never>>('POST', apiPath('checks.run', { serviceId, checkId }), { success: `Checking ${check.name}` });
  const toggle = useAction<{ enabled: boolean }, { check: Check }>('PATCH', apiPath('checks.patch', { serviceId, checkId }), {
    invalidate: [['checks', serviceId]],
    success: (r) => `${r.check.name} ${r.check.enabled ? 'resumed' : 'paused'}`,
  });
  const del = useAction<undefined>('DELETE', apiPath('checks.delete', { serviceId, checkId }), { invalidate: [['checks', serviceId]], success: `Deleted ${check.name}`, onSuccess: onDeleted });
  const expects = check.expectedStatus === null ? 'any 2xx/3xx' : `status ${check.expectedStatus}`;
  return (
    <section className="card stack" aria-labelledby={`check-${checkId}`}>
      <div className="row between">
        <div>
          <h2 id={`check-${checkId}`} className="card-title">
            {check.name}
          </h2>
          <p className="small muted">
            {targetText(check, domains)} · {expects}
            {check.keyword ? ` containing “${check.keyword}”` : ''} · every {check.intervalSeconds} s · timeout {check.timeoutSeconds} s · incident after {check.failuresBeforeIncident} failures
            {certificateText(check.certificateDaysLeft)}
          </p>
        </div>
        <div className="row">
          <Button variant="primary" busy={run.isPending} disabled={!check.enabled} onClick={() => run.mutate({})}>
            Check now
          </Button>
          <Button busy={toggle.isPending} onClick={() => toggle.mutate({ enabled: !check.enabled })}>
            {check.enabled ? 'Pause' : 'Resume'}
          </Button>
          <Button onClick={onEdit}>Edit</Button>
          <ConfirmButton
            label="Delete"
            title={`Delete ${check.name}?`}
            message="It stops checking, and its results and incidents are deleted with it."
            confirmLabel="Delete check"
            busy={del.isPending}
            onConfirm={() => del.mutate(undefined)}
          />
        </div>
      </div>
      <UptimeBars serviceId={serviceId} checkId={checkId} range="24h" />
      <UptimeBars serviceId={serviceId} checkId={checkId} range="90d" />
      <ResponseChart serviceId={serviceId} checkId={checkId} />
      <h3 className="small strong">Incidents</h3>
      <Incidents serviceId={serviceId} checkId={checkId} />
    </section>
  );
}
