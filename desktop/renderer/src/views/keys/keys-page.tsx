// API keys: create one (its secret is shown once), revoke.
import { useState } from 'react';
import type { ApiKey, KeyAccess, Project } from '../../../../../shared/types.js';
import { useAction, useGet } from '../../api/context';
import { Button, ConfirmButton, ErrorNote, Field, Loading, Modal, ShownOnce, timeAgo } from '../../ui/kit';
import { apiPath } from '../../../../../shared/api-routes.js';

export default function KeysPage() {
  const q = useGet<{ keys: ApiKey[] }>(['keys'], apiPath('keys.list'));
  const projects = useGet<{ projects: Project[] }>(['projects'], apiPath('projects.list'));
  const [creating, setCreating] = useState(false);
  const names = new Map((projects.data?.projects ?? []).map((p) => [p.id, p.name]));
  return (
    <div className="page narrow">
      <div className="page-head">
        <div>
          <h1>API keys</h1>
          <p className="muted">Keys sign in to this console and authenticate scripts and the CLI.</p>
        </div>
        <Button variant="primary" onClick={() => setCreating(true)}>
          Create key
        </Button>
      </div>
      <ErrorNote error={q.error} />
      {q.isPending ? <Loading what="keys" /> : null}
      {q.data ? (
        <table className="table">
          <caption className="sr-only">API keys</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Access</th>
              <th scope="col">Projects</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {q.data.keys.map((k) => (
              <tr key={k.id}>
                <td className="strong">{k.name}</td>
                <td>{k.access}</td>
                <td className="small">{k.projects === 'all' ? 'All projects' : k.projects.map((id) => names.get(id) ?? id).join(', ')}</td>
                <td className="muted small">{timeAgo(k.lastUsedAt)}</td>
                <td className="right">
                  <Revoke k={k} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {creating ? <CreateKey projects={projects.data?.projects ?? []} onClose={() => setCreating(false)} /> : null}
    </div>
  );
}

function Revoke({ k }: { k: ApiKey }) {
  const del = useAction('DELETE', apiPath('keys.revoke', { keyId: k.id }), { invalidate: [['keys']], success: `${k.name} revoked` });
  return (
    <ConfirmButton
      label="Revoke"
      title={`Revoke ${k.name}?`}
      message="Scripts using it stop working and consoles signed in with it are signed out."
      confirmLabel="Revoke key"
      busy={del.isPending}
      onConfirm={() => del.mutate(undefined)}
    />
  );
}

function CreateKey({ projects, onClose }: { projects: Project[]; onClose: () => void }) {
  const [name, setName] = useState('');
  const [access, setAccess] = useState<KeyAccess>('read');
  const [all, setAll] = useState(true);
  const [picked, setPicked] = useState<string[]>([]);
  const [token, setToken] = useState<string | null>(null);
  const create = useAction<Record<string, unknown>, { key: ApiKey; token: string }>('POST', apiPath('keys.create'), { invalidate: [['keys']], onSuccess: (r) => setToken(r.token) });
  return (
    <Modal open title={token ? 'Your new key' : 'Create an API key'} onClose={onClose}>
      {token ? (
        <ShownOnce label="Key" value={token} onDone={onClose}>
          Copy it now: it is shown only this once.
        </ShownOnce>
      ) : (
        <form
          className="stack"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate({ name, access, projects: all ? 'all' : picked });
          }}
        >
          <Field label="Name">{(id) => <input id={id} value={name} onChange={(e) => setName(e.target.value)} placeholder="CI deploys" />}</Field>
          <fieldset className="radios">
            <legend>Access</legend>
            <label className="check">
              <input type="radio" name="access" checked={access === 'read'} onChange={() => setAccess('read')} /> Read: see everything in scope
            </label>
            <label className="check">
              <input type="radio" name="access" checked={access === 'write'} onChange={() => setAccess('write')} /> Write: also deploy, change and delete
            </label>
          </fieldset>
          <fieldset className="radios">
            <legend>Projects</legend>
            <label className="check">
              <input type="radio" name="scope" checked={all} onChange={() => setAll(true)} /> All projects
            </label>
            <label className="check">
              <input type="radio" name="scope" checked={!all} onChange={() => setAll(false)} /> Selected projects
            </label>
            {!all
              ? projects.map((p) => (
                  <label key={p.id} className="check indent">
                    <input type="checkbox" checked={picked.includes(p.id)} onChange={(e) => setPicked(e.target.checked ? [...picked, p.id] : picked.filter((x) => x !== p.id))} /> {p.name}
                  </label>
                ))
              : null}
          </fieldset>
          <ErrorNote error={create.error} />
          <div className="row end">
            <Button onClick={onClose}>Cancel</Button>
            <Button type="submit" variant="primary" busy={create.isPending} disabled={!all && picked.length === 0}>
              Create key
            </Button>
          </div>
        </form>
      )}
    </Modal>
  );
}
