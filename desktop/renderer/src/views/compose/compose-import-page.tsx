// "Import compose" on a project: a docker-compose file pasted or uploaded (read in the browser),
// its .env, where its `build:` services come from, and the contents of files it bind-mounts; the
// plan (a dry run) and then the import, which creates the services and starts their deployments.
import { useState } from 'react';
import { Link } from 'wouter';
import type { ComposeImportInput } from '../../../../../shared/types/compose.js';
import type { Project } from '../../../../../shared/types.js';
import { useGet } from '../../api/context';
import { ErrorNote, Field, Loading } from '../../ui/kit';
import { apiPath } from '../../../../../shared/api-routes.js';
import { BoundFiles } from './bound-files';
import { ImportActions } from './import-actions';
import { useComposeImport } from './use-compose-import';

export default function ComposeImportPage({ slug }: { slug: string }) {
  const q = useGet<{ project: Project }>(['project', slug], apiPath('projects.get', { projectSlug: slug }));
  if (q.isPending) return <Loading what="project" />;
  const p = q.data?.project;
  if (!p) return <ErrorNote error={q.error} />;
  return (
    <div className="page">
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link href="/">Projects</Link> <span aria-hidden="true">/</span> <Link href={`/projects/${p.slug}`}>{p.name}</Link> <span aria-hidden="true">/</span>{' '}
        <span aria-current="page">Import compose</span>
      </nav>
      <div className="page-head">
        <div>
          <h1>Import a compose file</h1>
          <p className="muted">
            Each compose service becomes a Berth service of {p.name}. Preview the plan first: it says what each becomes and lists, in plain words, everything Berth does not take.
          </p>
        </div>
        <Link href={`/projects/${p.slug}/templates`} className="btn btn-default">
          Start from a template instead
        </Link>
      </div>
      <ComposeForm project={p} />
    </div>
  );
}

function ComposeForm({ project }: { project: Project }) {
  const [compose, setCompose] = useState('');
  const [env, setEnv] = useState('');
  const [repoUrl, setRepoUrl] = useState('');
  const [branch, setBranch] = useState('');
  const [files, setFiles] = useState<Record<string, string>>({});
  const [plainImages, setPlainImages] = useState<string[]>([]);
  const [readError, setReadError] = useState<string | null>(null);
  const input: ComposeImportInput = {
    compose,
    ...(env.trim() ? { env } : {}),
    ...(repoUrl.trim() ? { repository: { url: repoUrl.trim(), ...(branch.trim() ? { branch: branch.trim() } : {}) } } : {}),
    ...(Object.keys(files).length > 0 ? { files } : {}),
    ...(plainImages.length > 0 ? { plainImages } : {}),
  };
  const imp = useComposeImport(project, input);
  const upload = (file: File | undefined) => {
    if (!file) return;
    setReadError(null);
    file.text().then(setCompose, (err: unknown) => setReadError(`${file.name} could not be read: ${err instanceof Error ? err.message : String(err)}`));
  };
  return (
    <form
      className="card stack"
      aria-label="Import a compose file"
      onSubmit={(e) => {
        e.preventDefault();
        imp.preview(input);
      }}
    >
      <Field label="Compose file" hint="docker-compose.yml or compose.yaml, as in the app's README. x- extensions are listed, not used.">
        {(id) => (
          <textarea
            id={id}
            className="compose-text"
            value={compose}
            onChange={(e) => setCompose(e.target.value)}
            rows={14}
            spellCheck={false}
            placeholder={'services:\n  web:\n    image: nginx:1.27\n    ports: ["8080:80"]'}
            required
          />
        )}
      </Field>
      <Field label="Or upload the file" hint="It is read here and shown above; nothing is sent before you preview.">
        {(id) => <input id={id} type="file" accept=".yml,.yaml,text/yaml,application/yaml,text/plain" onChange={(e) => upload(e.currentTarget.files?.[0])} />}
      </Field>
      {readError ? (
        <p className="note note-error" role="alert">
          {readError}
        </p>
      ) : null}
      <Field label=".env file (optional)" hint="Values for ${VARIABLE} and ${VARIABLE:-default} in the file.">
        {(id) => <textarea id={id} className="mono" value={env} onChange={(e) => setEnv(e.target.value)} rows={3} spellCheck={false} placeholder="POSTGRES_PASSWORD=..." />}
      </Field>
      <div className="cols">
        <Field label="Repository for build: services (optional)" hint="A service with build: becomes a git service of this repository; its context is the root directory.">
          {(id) => <input id={id} className="mono" value={repoUrl} onChange={(e) => setRepoUrl(e.target.value)} placeholder="https://git.example.com/acme/app.git" spellCheck={false} />}
        </Field>
        <Field label="Branch">{(id) => <input id={id} value={branch} onChange={(e) => setBranch(e.target.value)} placeholder="main" disabled={!repoUrl.trim()} />}</Field>
      </div>
      <BoundFiles files={files} onChange={setFiles} />
      <ImportActions
        imp={imp}
        input={input}
        ready={compose.trim() !== ''}
        onPlainImagesChange={setPlainImages}
        onSupplyFile={(path) => {
          if (!(path in files)) setFiles({ ...files, [path]: '' });
          // the content field is where the user goes next
          requestAnimationFrame(() => document.querySelector<HTMLTextAreaElement>(`textarea[data-file="${CSS.escape(path)}"]`)?.focus());
        }}
      />
    </form>
  );
}
