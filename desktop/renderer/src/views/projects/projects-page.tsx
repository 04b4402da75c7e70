// All projects the key can see, with their services' state at a glance; create a project.
import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { SERVICE_STATUS_MEANING, worstServiceStatus } from '../../../../../shared/statuses.js';
import type { Project } from '../../../../../shared/types.js';
import { useAction, useGet } from '../../api/context';
import { Button, Empty, ErrorNote, Field, Loading, Modal, Status, timeAgo } from '../../ui/kit';
import { serviceKind } from '../service/service-kind';
import { apiPath } from '../../../../../shared/api-routes.js';

export function ProjectsPage({ canCreate }: { canCreate: boolean }) {
  const q = useGet<{ projects: Project[] }>(['projects'], apiPath('projects.list'));
  const [creating, setCreating] = useState(false);
  const [filter, setFilter] = useState('');
  const projects = (q.data?.projects ?? []).filter((p) => !filter || p.name.toLowerCase().includes(filter.toLowerCase()));
  return (
    <div className="page">
      <div className="page-head">
        <div>
          <h1>Projects</h1>
          <p className="muted">Each project groups services that share a private network.</p>
        </div>
        <div className="row">
          {(q.data?.projects.length ?? 0) > 6 ? <input aria-label="Filter projects" placeholder="Filter…" value={filter} onChange={(e) => setFilter(e.target.value)} className="filter" /> : null}
          {canCreate ? (
            <Button variant="primary" onClick={() => setCreating(true)}>
              New project
            </Button>
          ) : null}
        </div>
      </div>
      <ErrorNote error={q.error} />
      {q.isPending ? <Loading what="projects" /> : null}
      {q.data && q.data.projects.length === 0 ? (
        <Empty title="No projects yet">
          {canCreate ? (
            <>
              Create a project, then add a service to it: a git repository, a container image or a database.{' '}
              <Button variant="primary" onClick={() => setCreating(true)}>
                Create your first project
              </Button>
            </>
          ) : (
            'This key cannot create projects; ask for a key over all projects.'
          )}
        </Empty>
      ) : null}
      <ul className="grid cards" aria-label="Projects">
        {projects.map((p) => (
          <li key={p.id}>
            <ProjectCard project={p} />
          </li>
        ))}
      </ul>
      <CreateProject open={creating} onClose={() => setCreating(false)} />
    </div>
  );
}

function ProjectCard({ project: p }: { project: Project }) {
  const worst = worstServiceStatus(p.services.map((s) => s.status));
  const failed = p.services.filter((s) => s.status === 'failed').length;
  return (
    <Link href={`/projects/${p.slug}`} className="card project-card">
      <div className="row between">
        <h2 className="card-title">{p.name}</h2>
        <Status value={worst === 'failed' || worst === 'building' ? worst : p.status} label={worst === 'failed' ? `${failed} failed` : worst === 'building' ? 'building' : p.status} />
      </div>
      <p className="muted clamp">{p.description || 'No description'}</p>
      <div className="service-dots" aria-label={`${p.serviceCount} services`}>
        {p.services.slice(0, 12).map((s) => (
          <span key={s.id} className={`chip tone-${SERVICE_STATUS_MEANING[s.status].tone}`} title={`${s.name}: ${s.status}`}>
            <span className="dot" aria-hidden="true" />
            {s.name}
            <span className="sr-only">
              {' '}
              ({serviceKind(s)}, {s.status})
            </span>
          </span>
        ))}
        {p.services.length > 12 ? <span className="chip">+{p.services.length - 12}</span> : null}
        {p.services.length === 0 ? <span className="muted small">No services yet</span> : null}
      </div>
      <div className="muted small">Updated {timeAgo(p.lastUpdatedAt)}</div>
    </Link>
  );
}

function CreateProject({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [, navigate] = useLocation();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const create = useAction<{ name: string; description: string }, { project: Project }>('POST', apiPath('projects.create'), {
    invalidate: [['projects']],
    success: (r) => `Project ${r.project.name} created`,
    onSuccess: (r) => {
      onClose();
      setName('');
      setDescription('');
      navigate(`/projects/${r.project.slug}`);
    },
  });
  return (
    <Modal open={open} title="New project" onClose={onClose}>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({ name, description });
        }}
      >
        <Field label="Name">{(id) => <input id={id} value={name} onChange={(e) => setName(e.target.value)} required autoFocus />}</Field>
        <Field label="Description" hint="Optional">
          {(id) => <textarea id={id} value={description} onChange={(e) => setDescription(e.target.value)} rows={2} />}
        </Field>
        <ErrorNote error={create.error} />
        <div className="row end">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" busy={create.isPending} disabled={!name.trim()}>
            Create project
          </Button>
        </div>
      </form>
    </Modal>
  );
}
