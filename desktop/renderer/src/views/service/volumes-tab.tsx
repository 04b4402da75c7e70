// A service's volumes: what is mounted where, read-only or not, and how big; add one (a new volume,
// or a kept one of the project by its name), detach one (its data stays in the project); and each
// volume's backups (../database/backup-pieces.tsx, with the volume-backup routes).
import { useState } from 'react';
import type { Service, ServiceVolume, ServiceVolumeInput } from '../../../../../shared/types.js';
import { Button, ConfirmButton, Empty, ErrorNote, Field } from '../../ui/kit';
import { BackupsPanel, type BackupRoutes } from '../database/backup-pieces';
import { sizeText, useVolumesPatch } from './volume-parts';

const asInput = (v: ServiceVolume): ServiceVolumeInput => ({ name: v.name, mountPath: v.mountPath, readOnly: v.readOnly });

export default function VolumesTab({ service: s }: { service: Service }) {
  const [f, setF] = useState({ name: '', mountPath: '', readOnly: false });
  const add = useVolumesPatch(s, 'Volume added; it is mounted at the next deployment');
  const detach = useVolumesPatch(s, 'Volume detached; its data stays in the project');
  const [shown, setShown] = useState<string | null>(null);
  const backupsOf = s.volumes.find((v) => v.name === shown) ?? s.volumes[0] ?? null;
  return (
    <div className="stack">
      {s.volumes.length === 0 ? (
        <Empty title="No volumes">Add one for files the app must keep across deployments: uploads, an SQLite database, a data directory.</Empty>
      ) : (
        <table className="table">
          <caption className="sr-only">Volumes of {s.name}</caption>
          <thead>
            <tr>
              <th scope="col">Volume</th>
              <th scope="col">Mount path</th>
              <th scope="col">Access</th>
              <th scope="col">Size</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {s.volumes.map((v) => (
              <tr key={v.name}>
                <td className="strong">{v.name}</td>
                <td className="mono">{v.mountPath}</td>
                <td>{v.readOnly ? 'Read-only' : 'Read-write'}</td>
                <td>{sizeText(v.sizeBytes)}</td>
                <td className="right nowrap">
                  <Button className="btn-small" aria-pressed={backupsOf?.name === v.name} onClick={() => setShown(v.name)}>
                    Backups
                  </Button>{' '}
                  <ConfirmButton
                    label="Detach"
                    title={`Detach ${v.name}?`}
                    message={`${s.name} no longer mounts it from its next deployment. The volume and its data stay in the project (listed on the project page), and a service of the project can mount it again.`}
                    confirmLabel="Detach"
                    busy={detach.isPending}
                    onConfirm={() => detach.mutate({ volumes: s.volumes.filter((x) => x.name !== v.name).map(asInput) })}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ErrorNote error={detach.error} />
      <form
        className="card stack"
        aria-label="Add a volume"
        onSubmit={(e) => {
          e.preventDefault();
          add.mutate(
            { volumes: [...s.volumes.map(asInput), { name: f.name.trim(), mountPath: f.mountPath.trim(), readOnly: f.readOnly }] },
            { onSuccess: () => setF({ name: '', mountPath: '', readOnly: false }) },
          );
        }}
      >
        <h2 className="h3">Add a volume</h2>
        <div className="cols">
          <Field label="Volume name" hint="Unique in the project; the name of a kept volume mounts it again.">
            {(id) => <input id={id} value={f.name} onChange={(e) => setF({ ...f, name: e.target.value })} placeholder="data" required autoComplete="off" />}
          </Field>
          <Field label="Mount path" hint="Absolute path inside the container, such as /var/lib/app/data.">
            {(id) => <input id={id} className="mono" value={f.mountPath} onChange={(e) => setF({ ...f, mountPath: e.target.value })} placeholder="/data" required autoComplete="off" />}
          </Field>
        </div>
        <label className="check">
          <input type="checkbox" checked={f.readOnly} onChange={(e) => setF({ ...f, readOnly: e.target.checked })} /> Read-only
        </label>
        <ErrorNote error={add.error} />
        <div className="row end">
          <Button type="submit" variant="primary" busy={add.isPending}>
            Add volume
          </Button>
        </div>
      </form>
      {backupsOf ? <VolumeBackups service={s} volume={backupsOf.name} /> : null}
    </div>
  );
}

function VolumeBackups({ service: s, volume }: { service: Service; volume: string }) {
  const routes: BackupRoutes = {
    ids: {
      list: 'volume-backups.list',
      create: 'volume-backups.create',
      settings: 'volume-backups.settings.patch',
      restore: 'volume-backups.restore',
      download: 'volume-backups.download',
      delete: 'volume-backups.delete',
    },
    params: { serviceId: s.id, volumeName: volume },
    key: ['backups', s.id, 'volume', volume],
    restores: [['service', s.id]],
    restoreMessage: (b) =>
      `${s.name} stops while the volume ${volume} is replaced by its contents of ${new Date(b.createdAt).toLocaleString()}, and starts again when it is done. Files written since then are lost.`,
    fileName: (b) => `${s.slug}-${volume}-${b.id}.tar`,
    label: `volume ${volume}`,
    nested: true,
  };
  return (
    <section className="card stack" aria-label={`Backups of volume ${volume}`}>
      <h2 className="h3">
        Backups of <span className="mono">{volume}</span>
      </h2>
      <BackupsPanel key={volume} routes={routes} />
    </section>
  );
}
