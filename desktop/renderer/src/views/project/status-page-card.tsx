// A project's public status page (GET/PUT/DELETE /api/projects/:id/status-page): where it is served,
// and the services it shows under the labels the public sees. Caddy serves it without a key, from
// its own configuration: it shows each chosen service's state, 90 days of its uptime checks and the
// incidents' times, and nothing else of the project.
import { useState } from 'react';
import type { Project, StatusPage, StatusPageService } from '../../../../../shared/types.js';
import { useAction, useGet } from '../../api/context';
import { Button, ConfirmButton, ErrorNote, Field, Modal, timeAgo } from '../../ui/kit';
import { serviceKind } from '../service/service-kind';
import { apiPath } from '../../../../../shared/api-routes.js';

export function StatusPageCard({ project }: { project: Project }) {
  const q = useGet<{ statusPage: StatusPage | null }>(['status-page', project.id], apiPath('status-page.get', { projectId: project.id }));
  const [editing, setEditing] = useState(false);
  const remove = useAction('DELETE', apiPath('status-page.delete', { projectId: project.id }), { invalidate: [['status-page', project.id]], success: 'Status page removed' });
  const page = q.data?.statusPage ?? null;
  const names = new Map(project.services.map((s) => [s.id, s.name]));
  return (
    <section className="card stack" aria-label="Status page">
      <div className="row between">
        <h2 className="h3">Status page</h2>
        <span className="row">
          {page ? (
            <ConfirmButton
              label="Remove"
              title="Remove the status page?"
              message={`${page.url} stops answering. The uptime checks keep running.`}
              confirmLabel="Remove"
              onConfirm={() => remove.mutate(undefined)}
              busy={remove.isPending}
            />
          ) : null}
          {q.data ? <Button onClick={() => setEditing(true)}>{page ? 'Change' : 'Set up status page'}</Button> : null}
        </span>
      </div>
      <ErrorNote error={q.error} />
      {q.data && !page ? (
        <p className="muted small">
          A public page, served without a key on a hostname you choose, showing the state, 90 days of uptime and the incidents of the services you pick, under names you choose. It needs uptime checks
          on those services (a service's Uptime tab).
        </p>
      ) : null}
      {page ? (
        <>
          <div className="row between">
            <a href={page.url} target="_blank" rel="noreferrer noopener" className="strong">
              {page.url}
            </a>
            <span className={page.enabled ? 'small tone-ok-text' : 'small muted'}>{page.enabled ? 'Served' : 'Disabled'}</span>
          </div>
          <div className="small muted">
            “{page.title}” · updated {page.renderedAt ? timeAgo(page.renderedAt) : 'not yet'}
          </div>
          {page.services.length === 0 ? (
            <p className="small muted">It shows no service yet.</p>
          ) : (
            <ul className="list small">
              {page.services.map((s) => (
                <li key={s.serviceId}>
                  <span className="strong">{s.label}</span> <span className="muted">({names.get(s.serviceId) ?? 'deleted service'})</span>
                </li>
              ))}
            </ul>
          )}
        </>
      ) : null}
      {editing && q.data ? <EditStatusPage project={project} page={page} onClose={() => setEditing(false)} /> : null}
    </section>
  );
}

function EditStatusPage({ project, page, onClose }: { project: Project; page: StatusPage | null; onClose: () => void }) {
  const candidates = project.services.filter((s) => serviceKind(s) !== 'database' && serviceKind(s) !== 'worker');
  const [hostname, setHostname] = useState(page?.hostname ?? '');
  const [title, setTitle] = useState(page?.title ?? project.name);
  const [enabled, setEnabled] = useState(page?.enabled ?? true);
  // services deleted or moved away since are dropped (the server refuses them)
  const [chosen, setChosen] = useState<StatusPageService[]>((page?.services ?? []).filter((c) => project.services.some((s) => s.id === c.serviceId)));
  const save = useAction('PUT', apiPath('status-page.put', { projectId: project.id }), { invalidate: [['status-page', project.id]], success: 'Status page saved', onSuccess: onClose });
  const labelOf = (id: string) => chosen.find((c) => c.serviceId === id)?.label;
  const toggle = (id: string, name: string, on: boolean) => setChosen(on ? [...chosen, { serviceId: id, label: name }] : chosen.filter((c) => c.serviceId !== id));
  const relabel = (id: string, label: string) => setChosen(chosen.map((c) => (c.serviceId === id ? { ...c, label } : c)));
  return (
    <Modal open title={page ? 'Change the status page' : 'Set up a status page'} onClose={onClose}>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate({ hostname, title, enabled, services: chosen });
        }}
      >
        <Field label="Hostname" hint="Point its DNS at this server; Caddy gets its certificate like a domain's.">
          {(id) => <input id={id} value={hostname} placeholder="status.example.com" onChange={(e) => setHostname(e.target.value)} required autoComplete="off" />}
        </Field>
        <Field label="Title">{(id) => <input id={id} value={title} maxLength={80} onChange={(e) => setTitle(e.target.value)} required />}</Field>
        <fieldset className="stack">
          <legend className="small strong">Services it shows, and the name the public sees</legend>
          {candidates.length === 0 ? <p className="small muted">This project has no web service.</p> : null}
          {candidates.map((s) => {
            const label = labelOf(s.id);
            return (
              <div key={s.id} className="row">
                <label className="row small" style={{ minWidth: '12rem' }}>
                  <input type="checkbox" checked={label !== undefined} onChange={(e) => toggle(s.id, s.name, e.target.checked)} /> {s.name}
                </label>
                {label !== undefined ? <input aria-label={`Public name of ${s.name}`} value={label} maxLength={60} onChange={(e) => relabel(s.id, e.target.value)} /> : null}
              </div>
            );
          })}
        </fieldset>
        <label className="row small">
          <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Serve the page
        </label>
        <ErrorNote error={save.error} />
        <div className="row end">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" busy={save.isPending}>
            Save
          </Button>
        </div>
      </form>
    </Modal>
  );
}
