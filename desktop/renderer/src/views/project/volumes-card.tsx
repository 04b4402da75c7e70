// A project's volumes (GET .../volumes): which service mounts each where and its size; a volume
// kept when its service was deleted is marked "not attached" and can be attached to a service of
// the project (a PATCH of that service's volume list with the kept name).
import { useState } from 'react';
import { Link } from 'wouter';
import type { Project, ProjectVolume } from '../../../../../shared/types.js';
import { useGet } from '../../api/context';
import { Button, ErrorNote, Field, Modal, timeAgo } from '../../ui/kit';
import { sizeText, useVolumesPatch } from '../service/volume-parts';
import { apiPath } from '../../../../../shared/api-routes.js';

export function VolumesCard({ project: p }: { project: Project }) {
  // no polling: `service-change` and `backup` events re-read it (api/live.ts)
  const q = useGet<{ volumes: ProjectVolume[] }>(['volumes', p.id], apiPath('volumes.list', { projectId: p.id }));
  const [attaching, setAttaching] = useState<string | null>(null);
  const volumes = q.data?.volumes ?? [];
  const nameOf = (id: string) => p.services.find((s) => s.id === id)?.name ?? id;
  return (
    <section className="card stack" aria-label="Volumes">
      <h2 className="h3">Volumes</h2>
      <ErrorNote error={q.error} />
      {q.data && volumes.length === 0 ? <p className="muted">No volumes yet. A service's Volumes tab adds one.</p> : null}
      {volumes.length > 0 ? (
        <table className="table">
          <caption className="sr-only">Volumes of {p.name}</caption>
          <thead>
            <tr>
              <th scope="col">Volume</th>
              <th scope="col">Mounted by</th>
              <th scope="col">Mount path</th>
              <th scope="col">Size</th>
              <th scope="col">Created</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {volumes.map((v) => (
              <tr key={v.name}>
                <td className="strong">{v.name}</td>
                <td>{v.serviceId ? <Link href={`/services/${v.serviceId}/volumes`}>{nameOf(v.serviceId)}</Link> : <span className="badge tone-muted">not attached</span>}</td>
                <td className="mono">{v.mountPath ?? '—'}</td>
                <td>{sizeText(v.sizeBytes)}</td>
                <td className="muted small">{timeAgo(v.createdAt)}</td>
                <td className="right">
                  {v.serviceId ? null : (
                    <Button className="btn-small" onClick={() => setAttaching(v.name)}>
                      Attach…
                    </Button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {attaching ? <AttachVolume project={p} volume={attaching} onClose={() => setAttaching(null)} /> : null}
    </section>
  );
}

function AttachVolume({ project: p, volume, onClose }: { project: Project; volume: string; onClose: () => void }) {
  const candidates = p.services.filter((s) => s.repoUrl !== 'database' && !s.repoFullName?.startsWith('database:'));
  const [serviceId, setServiceId] = useState(candidates[0]?.id ?? '');
  const [mountPath, setMountPath] = useState('');
  const [readOnly, setReadOnly] = useState(false);
  const target = candidates.find((s) => s.id === serviceId) ?? null;
  const attach = useVolumesPatch({ id: serviceId, projectId: p.id }, `Volume ${volume} attached; it is mounted at the next deployment`);
  return (
    <Modal open title={`Attach ${volume}`} onClose={onClose}>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          if (!target) return;
          const volumes = [...target.volumes.map((v) => ({ name: v.name, mountPath: v.mountPath, readOnly: v.readOnly })), { name: volume, mountPath: mountPath.trim(), readOnly }];
          attach.mutate({ volumes }, { onSuccess: onClose });
        }}
      >
        <p>The volume keeps its data; the service mounts it from its next deployment.</p>
        <Field label="Service">
          {(id) => (
            <select id={id} value={serviceId} onChange={(e) => setServiceId(e.target.value)} required>
              {candidates.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Mount path" hint="Absolute path inside the container.">
          {(id) => <input id={id} className="mono" value={mountPath} onChange={(e) => setMountPath(e.target.value)} placeholder="/data" required autoComplete="off" />}
        </Field>
        <label className="check">
          <input type="checkbox" checked={readOnly} onChange={(e) => setReadOnly(e.target.checked)} /> Read-only
        </label>
        <ErrorNote error={attach.error} />
        <div className="row end">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" busy={attach.isPending} disabled={!target}>
            Attach
          </Button>
        </div>
      </form>
    </Modal>
  );
}
