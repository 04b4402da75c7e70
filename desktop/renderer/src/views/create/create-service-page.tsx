// New service flows: a git repository (web app, worker or static site), a container image, or a
// managed database. After a git service is created, its page shows the build plan before the first deploy.
import { useState, type FormEvent, type ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { DATABASE_ENGINES } from '../../../../../shared/constants.js';
import { ENGINE_CAPABILITIES } from '../../../../../shared/engines.js';
import type { BuildMethod, DatabaseEngine, Project, RuntimeMode, Service } from '../../../../../shared/types.js';
import { useAction, useGet } from '../../api/context';
import { Button, ErrorNote, Field, Loading, Tabs } from '../../ui/kit';
import { apiPath } from '../../../../../shared/api-routes.js';
import { placeableWorkers, useSwarmNodes } from '../nodes/use-swarm-nodes';

type Flow = 'git' | 'image' | 'database' | 'worker' | 'static';

const FLOWS: { id: Flow; label: string }[] = [
  { id: 'git', label: 'Git repository' },
  { id: 'image', label: 'Container image' },
  { id: 'database', label: 'Database' },
  { id: 'worker', label: 'Worker' },
  { id: 'static', label: 'Static site' },
];

const ENGINES: { id: DatabaseEngine; label: string; port: number }[] = DATABASE_ENGINES.map((id) => ({ id, label: ENGINE_CAPABILITIES[id].label, port: ENGINE_CAPABILITIES[id].port }));

export default function CreateServicePage({ slug }: { slug: string }) {
  const q = useGet<{ project: Project }>(['project', slug], apiPath('projects.get', { projectSlug: slug }));
  const [flow, setFlow] = useState<Flow>('git');
  if (q.isPending) return <Loading what="project" />;
  const p = q.data?.project;
  if (!p) return <ErrorNote error={q.error} />;
  return (
    <div className="page narrow">
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link href="/">Projects</Link> <span aria-hidden="true">/</span> <Link href={`/projects/${p.slug}`}>{p.name}</Link> <span aria-hidden="true">/</span>{' '}
        <span aria-current="page">New service</span>
      </nav>
      <h1>New service</h1>
      <Tabs tabs={FLOWS} value={flow} onChange={setFlow} label="Kind of service" />
      <div className="card" role="tabpanel" aria-labelledby={`tab-${flow}`}>
        {flow === 'database' ? <DatabaseForm project={p} /> : flow === 'image' ? <ImageForm project={p} /> : <GitForm project={p} mode={flow === 'git' ? 'web' : flow} key={flow} />}
      </div>
    </div>
  );
}

function useCreate(project: Project) {
  const [, navigate] = useLocation();
  return useAction<Record<string, unknown>, { service: Service }>('POST', apiPath('services.create', { projectId: project.id }), {
    invalidate: [['projects'], ['project', project.slug]],
    success: (r) => `Service ${r.service.name} created`,
    onSuccess: (r) => navigate(`/services/${r.service.id}`),
  });
}

function Submit({ busy, error, children }: { busy: boolean; error: unknown; children: ReactNode }) {
  return (
    <>
      <ErrorNote error={error} />
      <div className="row end">
        <Button type="submit" variant="primary" busy={busy}>
          {children}
        </Button>
      </div>
    </>
  );
}

function GitForm({ project, mode }: { project: Project; mode: RuntimeMode }) {
  const create = useCreate(project);
  const [name, setName] = useState('');
  const [repo, setRepo] = useState('');
  const [token, setToken] = useState('');
  const [branch, setBranch] = useState('main');
  const [rootDir, setRootDir] = useState('');
  const [buildMethod, setBuildMethod] = useState<BuildMethod>('auto');
  const [dockerfilePath, setDockerfilePath] = useState('');
  const [port, setPort] = useState(mode === 'static' ? '80' : '3000');
  const [staticOutput, setStaticOutput] = useState('dist');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const isUrl = /^(https?|git|ssh):\/\//.test(repo.trim()) || repo.trim().startsWith('git@');
    create.mutate({
      name: name.trim(),
      ...(isUrl ? { repoUrl: repo.trim(), repoFullName: null } : { repoFullName: repo.trim() }),
      ...(token ? { githubToken: token } : {}),
      branch: branch.trim() || 'main',
      rootDir: rootDir.trim() || null,
      buildMethod,
      dockerfilePath: dockerfilePath.trim() || null,
      runtimeMode: mode,
      ...(mode !== 'worker' ? { internalPort: Number(port) } : {}),
      ...(mode === 'static' ? { staticOutput: staticOutput.trim() || null } : {}),
    });
  };
  return (
    <form className="stack" onSubmit={submit} aria-label={mode === 'web' ? 'New service from a git repository' : mode === 'worker' ? 'New worker' : 'New static site'}>
      <p className="muted">
        {mode === 'worker'
          ? 'A worker runs from a repository with no public port and no domains (queues, schedulers).'
          : mode === 'static'
            ? 'A static site is built from a repository and its output folder is served.'
            : 'Berth builds the repository (its Dockerfile, or a generated one) and runs it.'}
      </p>
      <div className="cols">
        <Field label="Service name">{(id) => <input id={id} value={name} onChange={(e) => setName(e.target.value)} required placeholder="web" />}</Field>
        <Field label="Branch">{(id) => <input id={id} value={branch} onChange={(e) => setBranch(e.target.value)} />}</Field>
      </div>
      <Field label="Repository" hint="owner/name on the configured git host, or a full git URL">
        {(id) => <input id={id} value={repo} onChange={(e) => setRepo(e.target.value)} required placeholder="acme/shop or https://git.example.com/acme/shop.git" spellCheck={false} />}
      </Field>
      <Field label="Access token" hint="Only for private repositories; stored sealed and never shown again">
        {(id) => <input id={id} type="password" value={token} onChange={(e) => setToken(e.target.value)} autoComplete="off" />}
      </Field>
      <div className="cols">
        <Field label="Root directory" hint="Optional, inside the repository">
          {(id) => <input id={id} value={rootDir} onChange={(e) => setRootDir(e.target.value)} placeholder="apps/web" />}
        </Field>
        <Field label="Build method">
          {(id) => (
            <select id={id} value={buildMethod} onChange={(e) => setBuildMethod(e.target.value as BuildMethod)}>
              <option value="auto">Automatic (Dockerfile if present)</option>
              <option value="dockerfile">Dockerfile</option>
              <option value="autobuild">Autobuild (detect the stack)</option>
            </select>
          )}
        </Field>
      </div>
      <div className="cols">
        {buildMethod !== 'autobuild' ? (
          <Field label="Dockerfile path" hint="Relative to the root directory">
            {(id) => <input id={id} value={dockerfilePath} onChange={(e) => setDockerfilePath(e.target.value)} placeholder="Dockerfile" />}
          </Field>
        ) : null}
        {mode !== 'worker' ? (
          <Field label="Port" hint="The port the app listens on inside its container">
            {(id) => <input id={id} type="number" min={1} max={65535} value={port} onChange={(e) => setPort(e.target.value)} />}
          </Field>
        ) : null}
        {mode === 'static' ? <Field label="Output folder">{(id) => <input id={id} value={staticOutput} onChange={(e) => setStaticOutput(e.target.value)} />}</Field> : null}
      </div>
      <Submit busy={create.isPending} error={create.error}>
        Create {mode === 'worker' ? 'worker' : mode === 'static' ? 'static site' : 'service'}
      </Submit>
    </form>
  );
}

function ImageForm({ project }: { project: Project }) {
  const create = useCreate(project);
  const [name, setName] = useState('');
  const [image, setImage] = useState('');
  const [port, setPort] = useState('80');
  return (
    <form
      className="stack"
      aria-label="New service from a container image"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate({ name: name.trim(), repoUrl: 'docker-image', dockerImage: image.trim(), branch: 'main', runtimeMode: 'web', internalPort: Number(port) });
      }}
    >
      <p className="muted">Runs an image already present on this server or pullable by its Docker Engine.</p>
      <div className="cols">
        <Field label="Service name">{(id) => <input id={id} value={name} onChange={(e) => setName(e.target.value)} required />}</Field>
        <Field label="Port">{(id) => <input id={id} type="number" min={1} max={65535} value={port} onChange={(e) => setPort(e.target.value)} />}</Field>
      </div>
      <Field label="Image">{(id) => <input id={id} value={image} onChange={(e) => setImage(e.target.value)} required placeholder="nginx:1.27" spellCheck={false} />}</Field>
      <Submit busy={create.isPending} error={create.error}>
        Create service
      </Submit>
    </form>
  );
}

function DatabaseForm({ project }: { project: Project }) {
  const create = useCreate(project);
  const [engine, setEngine] = useState<DatabaseEngine>('postgres');
  const [name, setName] = useState('');
  const [isPublic, setPublic] = useState(false);
  const [hostname, setHostname] = useState('');
  const [replication, setReplication] = useState(false);
  const [nodeId, setNodeId] = useState('');
  const swarm = useSwarmNodes();
  const workers = placeableWorkers(swarm.nodes);
  // a worker that left, drained or went down since it was chosen: back to this server
  const worker = swarm.on && !isPublic && workers.some((n) => n.id === nodeId) ? nodeId : '';
  const spec = ENGINES.find((x) => x.id === engine)!;
  const replicable = ENGINE_CAPABILITIES[engine].logicalReplication;
  return (
    <form
      className="stack"
      aria-label="New database"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate({
          name: name.trim() || engine,
          repoFullName: `database:${engine}`,
          repoUrl: 'database',
          branch: 'main',
          internalPort: spec.port,
          databasePublicEnabled: isPublic,
          postgresLogicalReplicationEnabled: replicable && replication,
          ...(isPublic && hostname.trim() ? { databasePublicHostname: hostname.trim() } : {}),
          ...(worker ? { nodeId: worker } : {}),
          env: [],
        });
      }}
    >
      <fieldset className="engines">
        <legend>Engine</legend>
        {ENGINES.map((x) => (
          <label key={x.id} className={x.id === engine ? 'engine selected' : 'engine'}>
            <input type="radio" name="engine" value={x.id} checked={x.id === engine} onChange={() => setEngine(x.id)} />
            {x.label}
          </label>
        ))}
      </fieldset>
      <Field label="Service name" hint="Other services reference its variables as ${name.VARIABLE}">
        {(id) => <input id={id} value={name} onChange={(e) => setName(e.target.value)} placeholder={engine} />}
      </Field>
      <label className="check">
        <input type="checkbox" checked={isPublic} onChange={(e) => setPublic(e.target.checked)} /> Public access (reachable from outside this server on its host port)
      </label>
      {isPublic ? (
        <Field label="Public hostname" hint="Optional; generated from the root domain when left empty">
          {(id) => <input id={id} value={hostname} onChange={(e) => setHostname(e.target.value)} placeholder="db.example.com" />}
        </Field>
      ) : null}
      {swarm.on ? (
        <Field label="Node" hint={isPublic ? 'A public database runs on this server.' : 'The database and its data volume live on this node; it cannot move later.'}>
          {(id) => (
            <select id={id} value={worker} onChange={(e) => setNodeId(e.target.value)} disabled={isPublic}>
              <option value="">This server (manager)</option>
              {workers.map((n) => (
                <option key={n.id} value={n.id}>
                  {n.hostname}
                </option>
              ))}
            </select>
          )}
        </Field>
      ) : null}
      {replicable ? (
        <label className="check">
          <input type="checkbox" checked={replication} onChange={(e) => setReplication(e.target.checked)} /> Logical replication (wal_level=logical)
        </label>
      ) : null}
      <p className="muted small">Credentials are generated; you find them under Variables on the service page.</p>
      <Submit busy={create.isPending} error={create.error}>
        Create {spec.label} database
      </Submit>
    </form>
  );
}
