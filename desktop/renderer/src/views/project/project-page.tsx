// One project: its services with state, reachability and URLs; rename and delete.
import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import type { Project, ProxyResult } from '../../../../../shared/types.js';
import { useAction, useGet } from '../../api/context';
import { Button, ConfirmButton, Empty, ErrorNote, Field, Loading, Modal, Status, timeAgo } from '../../ui/kit';
import { serviceKind, sourceLabel } from '../service/service-kind';
import { QuotasCard } from './quotas-card';
import { VolumesCard } from './volumes-card';
import { StatusPageCard } from './status-page-card';
import { apiPath } from '../../../../../shared/api-routes.js';

export function ProjectPage({ slug, canEditQuotas = false }: { slug: string; canEditQuotas?: boolean }) {
  const q = useGet<{ project: Project }>(['project', slug], apiPath('projects.get', { projectSlug: slug }));
  const [, navigate] = useLocation();
  const [editing, setEditing] = useState(false);
  const p = q.data?.project;
  const remove = useAction<void, { ok: true; proxy: ProxyResult }>('DELETE', () => apiPath('projects.delete', { projectId: p!.id }), {
    invalidate: [['projects']],
    success: 'Project deleted with its services',
    onSuccess: () => navigate('/'),
  });
  if (q.isPending) return <Loading what="project" />;
  if (!p) return <ErrorNote error={q.error} />;
  return (
    <div className="page">
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link href="/">Projects</Link> <span aria-hidden="true">/</span> <span aria-current="page">{p.name}</span>
      </nav>
      <div className="page-head">
        <div>
          <h1>{p.name}</h1>
          <p className="muted">{p.description || 'No description'}</p>
        </div>
        <div className="row">
          <Button onClick={() => setEditing(true)}>Rename</Button>
          <ConfirmButton
            label="Delete project"
            title={`Delete ${p.name}?`}
            message={`This removes its ${p.serviceCount} services with their containers, domains, variables and deployments. It cannot be undone.`}
            confirmLabel="Delete project"
            typed={p.name}
            busy={remove.isPending}
            onConfirm={() => remove.mutate()}
          />
          <Button onClick={() => navigate(`/projects/${p.slug}/compose`)}>Import compose</Button>
          <Button onClick={() => navigate(`/projects/${p.slug}/templates`)}>New from template</Button>
          <Button variant="primary" onClick={() => navigate(`/projects/${p.slug}/new`)}>
            New service
          </Button>
        </div>
      </div>
      {p.services.length === 0 ? (
        <Empty title="No services in this project">
          Add a service from a git repository, a container image, or a managed database, or bring a whole app from its compose file or a template.{' '}
          <span className="row">
            <Link href={`/projects/${p.slug}/new`} className="btn btn-primary">
              Add a service
            </Link>
            <Link href={`/projects/${p.slug}/compose`} className="btn btn-default">
              Import compose
            </Link>
            <Link href={`/projects/${p.slug}/templates`} className="btn btn-default">
              New from template
            </Link>
          </span>
        </Empty>
      ) : (
        <table className="table services">
          <caption className="sr-only">Services of {p.name}</caption>
          <thead>
            <tr>
              <th scope="col">Service</th>
              <th scope="col">Source</th>
              <th scope="col">Status</th>
              <th scope="col">Reachable</th>
              <th scope="col">URL</th>
              <th scope="col">Deployed</th>
            </tr>
          </thead>
          <tbody>
            {p.services.map((s) => (
              <tr key={s.id}>
                <td>
                  <Link href={`/services/${s.id}`} className="strong">
                    {s.name}
                  </Link>
                  <div className="muted small">{serviceKind(s)}</div>
                </td>
                <td className="mono small truncate">{sourceLabel(s)}</td>
                <td>
                  <Status value={s.status} />
                </td>
                <td>{s.status === 'active' ? s.reachable ? <span className="tone-ok-text">Yes</span> : <span className="tone-bad-text">No</span> : <span className="muted">—</span>}</td>
                <td className="truncate">
                  {s.primaryUrl && serviceKind(s) !== 'database' && serviceKind(s) !== 'worker' ? (
                    <a href={s.primaryUrl} target="_blank" rel="noreferrer noopener">
                      {s.primaryUrl.replace(/^https?:\/\//, '')}
                    </a>
                  ) : s.hostPort ? (
                    <span className="mono small">127.0.0.1:{s.hostPort}</span>
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
                <td className="muted small">{timeAgo(s.lastDeployedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <StatusPageCard project={p} />
      <VolumesCard project={p} />
      <QuotasCard projectId={p.id} canEdit={canEditQuotas} />
      <EditProject project={p} open={editing} onClose={() => setEditing(false)} />
    </div>
  );
}

function EditProject({ project, open, onClose }: { project: Project; open: boolean; onClose: () => void }) {
  const [name, setName] = useState(project.name);
  const [description, setDescription] = useState(project.description);
  const save = useAction<{ name: string; description: string }>('PATCH', apiPath('projects.patch', { projectId: project.id }), {
    invalidate: [['project'], ['projects']],
    success: 'Project saved',
    onSuccess: onClose,
  });
  return (
    <Modal open={open} title="Rename project" onClose={onClose}>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate({ name, description });
        }}
      >
        <Field label="Name" hint="The address (slug) stays the same.">
          {(id) => <input id={id} value={name} onChange={(e) => setName(e.target.value)} required />}
        </Field>
        <Field label="Description">{(id) => <textarea id={id} value={description} onChange={(e) => setDescription(e.target.value)} rows={2} />}</Field>
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
