// A service's build and run settings, how it deploys, moving it to another project, deleting it.
import { useState } from 'react';
import { useLocation } from 'wouter';
import type { BuildMethod, Project, RuntimeMode, Service } from '../../../../../shared/types.js';
import { useAction } from '../../api/context';
import { Button, ConfirmButton, ErrorNote, Field } from '../../ui/kit';
import { DeploySettings } from './deploy-settings';
import { ReplicasSettings } from './replicas-settings';
import { serviceKind } from './service-kind';
import { apiPath } from '../../../../../shared/api-routes.js';

export function SettingsTab({ service: s, projects }: { service: Service; projects: Project[] }) {
  const kind = serviceKind(s);
  const [f, setF] = useState({
    branch: s.branch,
    rootDir: s.rootDir ?? '',
    buildCommand: s.buildCommand ?? '',
    startCommand: s.startCommand ?? '',
    buildMethod: s.buildMethod,
    dockerfilePath: s.dockerfilePath ?? '',
    runtimeMode: s.runtimeMode,
    internalPort: String(s.internalPort ?? ''),
  });
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  const save = useAction<Record<string, unknown>>('PATCH', apiPath('services.patch', { serviceId: s.id }), {
    invalidate: [['service', s.id], ['projects']],
    success: 'Settings saved; they apply at the next deployment',
  });
  const [, navigate] = useLocation();
  const [target, setTarget] = useState('');
  const transfer = useAction<{ targetProjectId: string }>('POST', apiPath('services.transfer', { serviceId: s.id }), {
    invalidate: [['service', s.id], ['projects'], ['project']],
    success: 'Service moved',
  });
  const [keepVolumes, setKeepVolumes] = useState(false);
  // the checkbox goes in the query (a DELETE carries no body)
  const remove = useAction('DELETE', () => apiPath('services.delete', { serviceId: s.id }, keepVolumes ? { keepVolumes: true } : undefined), {
    invalidate: [['projects'], ['project'], ['volumes', s.projectId]],
    success: `${s.name} deleted`,
    onSuccess: () => navigate('/'),
  });
  const git = kind === 'git' || kind === 'worker' || kind === 'static';
  return (
    <div className="stack">
      <form
        className="card stack"
        aria-label="Service settings"
        onSubmit={(e) => {
          e.preventDefault();
          const body: Record<string, unknown> = { internalPort: f.internalPort ? Number(f.internalPort) : undefined };
          if (git)
            Object.assign(body, {
              branch: f.branch,
              rootDir: f.rootDir || null,
              buildCommand: f.buildCommand || null,
              startCommand: f.startCommand || null,
              buildMethod: f.buildMethod,
              dockerfilePath: f.dockerfilePath || null,
              runtimeMode: f.runtimeMode,
            });
          save.mutate(body);
        }}
      >
        <h2 className="h3">Build and run</h2>
        {git ? (
          <>
            <div className="cols">
              <Field label="Branch">{(id) => <input id={id} value={f.branch} onChange={set('branch')} />}</Field>
              <Field label="Root directory">{(id) => <input id={id} value={f.rootDir} onChange={set('rootDir')} />}</Field>
            </div>
            <div className="cols">
              <Field label="Build method">
                {(id) => (
                  <select id={id} value={f.buildMethod} onChange={(e) => setF({ ...f, buildMethod: e.target.value as BuildMethod })}>
                    <option value="auto">Automatic</option>
                    <option value="dockerfile">Dockerfile</option>
                    <option value="autobuild">Autobuild</option>
                  </select>
                )}
              </Field>
              <Field label="Dockerfile path">{(id) => <input id={id} value={f.dockerfilePath} onChange={set('dockerfilePath')} />}</Field>
            </div>
            <div className="cols">
              <Field label="Build command" hint="Autobuild only">
                {(id) => <input id={id} value={f.buildCommand} onChange={set('buildCommand')} className="mono" />}
              </Field>
              <Field label="Start command" hint="Autobuild only">
                {(id) => <input id={id} value={f.startCommand} onChange={set('startCommand')} className="mono" />}
              </Field>
            </div>
            <Field label="Runs as">
              {(id) => (
                <select id={id} value={f.runtimeMode} onChange={(e) => setF({ ...f, runtimeMode: e.target.value as RuntimeMode })}>
                  <option value="web">Web service</option>
                  <option value="worker">Worker</option>
                  <option value="static">Static site</option>
                </select>
              )}
            </Field>
          </>
        ) : null}
        <Field label="Port inside the container">{(id) => <input id={id} type="number" value={f.internalPort} onChange={set('internalPort')} />}</Field>
        <ErrorNote error={save.error} />
        <div className="row end">
          <Button type="submit" variant="primary" busy={save.isPending}>
            Save settings
          </Button>
        </div>
      </form>
      {kind !== 'database' ? <DeploySettings service={s} /> : null}
      {kind !== 'database' ? <ReplicasSettings service={s} /> : null}
      <div className="card stack">
        <h2 className="h3">Move to another project</h2>
        <div className="row wrap align-end">
          <Field label="Target project">
            {(id) => (
              <select id={id} value={target} onChange={(e) => setTarget(e.target.value)}>
                <option value="">Choose a project…</option>
                {projects
                  .filter((p) => p.id !== s.projectId)
                  .map((p) => (
                    <option key={p.id} value={p.id}>
                      {p.name}
                    </option>
                  ))}
              </select>
            )}
          </Field>
          <ConfirmButton
            variant="primary"
            label="Move service"
            title={`Move ${s.name}?`}
            message="It joins the other project's network at its next deployment; references to it from this project stop resolving."
            confirmLabel="Move"
            busy={transfer.isPending}
            onConfirm={() => target && transfer.mutate({ targetProjectId: target })}
          />
        </div>
      </div>
      <div className="card danger-zone stack">
        <h2 className="h3">Delete service</h2>
        <p className="muted">
          Removes its containers, image, domains, variables and deployments{kind === 'database' ? ', and its data volume and backups' : ', and its volumes unless you keep them'}.
        </p>
        <div>
          <ConfirmButton
            label="Delete service"
            title={`Delete ${s.name}?`}
            message={
              kind === 'database' ? (
                'This cannot be undone.'
              ) : (
                <div className="stack tight">
                  <p>This cannot be undone.</p>
                  <label className="check">
                    <input type="checkbox" checked={keepVolumes} onChange={(e) => setKeepVolumes(e.target.checked)} /> Keep its volumes
                    {s.volumes.length > 0 ? ` (${s.volumes.map((v) => v.name).join(', ')})` : ''}
                  </label>
                  <p className="hint">A kept volume stays in the project with its data, and another service of the project can mount it. Left unchecked, the volumes and their data are deleted.</p>
                </div>
              )
            }
            typed={s.name}
            confirmLabel="Delete service"
            busy={remove.isPending}
            onConfirm={() => remove.mutate(undefined)}
          />
        </div>
      </div>
    </div>
  );
}
