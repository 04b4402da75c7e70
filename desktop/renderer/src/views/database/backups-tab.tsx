// Backups of a database service: take one now, schedule with retention, restore (asks first),
// download, delete; and imports from another server with their logs.
import { useEffect, useState } from 'react';
import { IMPORT_SOURCES, offeredImport } from '../../../../../shared/engines.js';
import { jobInProgress } from '../../../../../shared/statuses.js';
import type { Backup, BackupSettings, BackupStorageKind, DataImport, ImportSource, Service } from '../../../../../shared/types.js';
import { useAction, useGet, useTransport } from '../../api/context';
import { Button, ConfirmButton, Empty, ErrorNote, Field, Status, bytes, timeAgo } from '../../ui/kit';
import { useNotify } from '../../ui/notify';
import { databaseEngine } from '../service/service-kind';
import { apiPath } from '../../../../../shared/api-routes.js';

interface BackupsAnswer {
  backups: Backup[];
  settings: BackupSettings;
  remote: { connected: boolean };
}

export default function BackupsTab({ service: s }: { service: Service }) {
  const running = (q: { data?: BackupsAnswer }) => q.data?.backups.some((b) => jobInProgress(b.status));
  // no polling: `backup` and `backup-settings` events re-read the list (api/live.ts)
  const q = useGet<BackupsAnswer>(['backups', s.id], apiPath('backups.list', { serviceId: s.id }));
  const [storage, setStorage] = useState<BackupStorageKind>('disk');
  const create = useAction<{ storage: BackupStorageKind }>('POST', apiPath('backups.create', { serviceId: s.id }), { invalidate: [['backups', s.id]], success: 'Backup started' });
  const engine = databaseEngine(s);
  const importSource = offeredImport(engine);
  const remote = q.data?.remote.connected ?? false;
  return (
    <div className="stack">
      <div className="card row wrap align-end">
        <Field label="Store on">
          {(id) => (
            <select id={id} value={storage} onChange={(e) => setStorage(e.target.value as BackupStorageKind)}>
              <option value="disk">This server's disk</option>
              <option value="remote" disabled={!remote}>
                Remote storage (S3){remote ? '' : ' — not configured'}
              </option>
              <option value="disk+remote" disabled={!remote}>
                Both
              </option>
            </select>
          )}
        </Field>
        <Button variant="primary" busy={create.isPending || running(q)} onClick={() => create.mutate({ storage })}>
          {running(q) ? 'Backup running…' : 'Back up now'}
        </Button>
      </div>
      <ErrorNote error={q.error ?? create.error} />
      {q.data && q.data.backups.length === 0 ? <Empty title="No backups yet">Take one now, or turn on a schedule below.</Empty> : null}
      {q.data && q.data.backups.length > 0 ? (
        <table className="table">
          <caption className="sr-only">Backups</caption>
          <thead>
            <tr>
              <th scope="col">Taken</th>
              <th scope="col">Status</th>
              <th scope="col">Trigger</th>
              <th scope="col">Storage</th>
              <th scope="col">Size</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {q.data.backups.map((b) => (
              <BackupRow key={b.id} backup={b} serviceId={s.id} />
            ))}
          </tbody>
        </table>
      ) : null}
      {q.data ? <Schedule serviceId={s.id} settings={q.data.settings} remote={remote} /> : null}
      {importSource ? <Imports serviceId={s.id} source={importSource} /> : null}
    </div>
  );
}

function BackupRow({ backup: b, serviceId }: { backup: Backup; serviceId: string }) {
  const t = useTransport();
  const notify = useNotify();
  const restore = useAction<void, { restoredAt: string }>('POST', apiPath('backups.restore', { serviceId, backupId: b.id }), {
    invalidate: [
      ['backups', serviceId],
      ['tables', serviceId],
      ['rows', serviceId],
    ],
    success: 'Restored',
  });
  const del = useAction('DELETE', apiPath('backups.delete', { serviceId, backupId: b.id }), { invalidate: [['backups', serviceId]], success: 'Backup deleted' });
  return (
    <tr>
      <td>
        {new Date(b.createdAt).toLocaleString()}
        <div className="muted small">{timeAgo(b.createdAt)}</div>
      </td>
      <td>
        <Status value={b.status} />
        {b.error ? <div className="tone-bad-text small">{b.error}</div> : null}
      </td>
      <td>{b.trigger}</td>
      <td>{b.storage}</td>
      <td>{b.status === 'succeeded' ? bytes(b.sizeBytes) : '—'}</td>
      <td className="right nowrap">
        {b.status === 'succeeded' ? (
          <>
            <ConfirmButton
              variant="primary"
              label="Restore"
              title="Restore this backup?"
              message={`The database is replaced by its state of ${new Date(b.createdAt).toLocaleString()}. Changes since then are lost.`}
              confirmLabel="Restore"
              busy={restore.isPending}
              onConfirm={() => restore.mutate()}
            />{' '}
            <Button
              className="btn-small"
              onClick={() => void t.download(apiPath('backups.download', { serviceId, backupId: b.id }), `backup-${b.id}.${b.engine}.dump`).catch((e: Error) => notify.error(e.message))}
            >
              Download
            </Button>{' '}
          </>
        ) : null}
        <ConfirmButton
          label="Delete"
          title="Delete this backup?"
          message="Its file is removed from every storage."
          confirmLabel="Delete backup"
          busy={del.isPending}
          onConfirm={() => del.mutate(undefined)}
        />
      </td>
    </tr>
  );
}

function Schedule({ serviceId, settings, remote }: { serviceId: string; settings: BackupSettings; remote: boolean }) {
  const [f, setF] = useState(settings);
  useEffect(() => setF(settings), [settings]);
  const save = useAction<Partial<BackupSettings>>('PATCH', apiPath('backups.settings.patch', { serviceId }), { invalidate: [['backups', serviceId]], success: 'Schedule saved' });
  const check = (k: 'dailyEnabled' | 'weeklyEnabled' | 'monthlyEnabled', label: string, keep: 'keepDaily' | 'keepWeekly' | 'keepMonthly') => (
    <div className="row align-end">
      <label className="check">
        <input type="checkbox" checked={f[k]} onChange={(e) => setF({ ...f, [k]: e.target.checked })} /> {label}
      </label>
      <Field label={`Keep (${label.toLowerCase()})`}>
        {(id) => <input id={id} type="number" min={1} max={1000} value={f[keep]} onChange={(e) => setF({ ...f, [keep]: Number(e.target.value) })} className="short" />}
      </Field>
    </div>
  );
  return (
    <form
      className="card stack"
      aria-label="Backup schedule"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate({
          storage: f.storage,
          automaticEnabled: f.automaticEnabled,
          dailyEnabled: f.dailyEnabled,
          weeklyEnabled: f.weeklyEnabled,
          monthlyEnabled: f.monthlyEnabled,
          keepDaily: f.keepDaily,
          keepWeekly: f.keepWeekly,
          keepMonthly: f.keepMonthly,
        });
      }}
    >
      <h2 className="h3">Schedule</h2>
      <label className="check">
        <input type="checkbox" checked={f.automaticEnabled} onChange={(e) => setF({ ...f, automaticEnabled: e.target.checked })} /> Automatic backups
      </label>
      {f.automaticEnabled ? (
        <>
          {check('dailyEnabled', 'Daily', 'keepDaily')}
          {check('weeklyEnabled', 'Weekly', 'keepWeekly')}
          {check('monthlyEnabled', 'Monthly', 'keepMonthly')}
          <Field label="Store scheduled backups on">
            {(id) => (
              <select id={id} value={f.storage} onChange={(e) => setF({ ...f, storage: e.target.value as BackupStorageKind })}>
                <option value="disk">This server's disk</option>
                <option value="remote" disabled={!remote}>
                  Remote storage (S3)
                </option>
                <option value="disk+remote" disabled={!remote}>
                  Both
                </option>
              </select>
            )}
          </Field>
        </>
      ) : null}
      <ErrorNote error={save.error} />
      <div className="row end">
        <Button type="submit" variant="primary" busy={save.isPending}>
          Save schedule
        </Button>
      </div>
    </form>
  );
}

function Imports({ serviceId, source }: { serviceId: string; source: ImportSource }) {
  const spec = IMPORT_SOURCES[source];
  // no polling: `import` events re-read the list (api/live.ts)
  const q = useGet<{ imports: DataImport[] }>(['imports', serviceId], apiPath('imports.list', { serviceId }));
  const [url, setUrl] = useState('');
  const start = useAction<{ sourceUrl: string }>('POST', apiPath(`imports.${source}`, { serviceId }), { invalidate: [['imports', serviceId]], success: 'Import started', onSuccess: () => setUrl('') });
  return (
    <section className="card stack" aria-label="Imports">
      <h2 className="h3">Import from another server</h2>
      <form
        className="row wrap align-end"
        onSubmit={(e) => {
          e.preventDefault();
          start.mutate({ sourceUrl: url });
        }}
      >
        <Field label={spec.label} hint="Read once; only a masked label is kept">
          {(id) => <input id={id} type="password" value={url} onChange={(e) => setUrl(e.target.value)} placeholder={spec.example} autoComplete="off" />}
        </Field>
        <Button type="submit" variant="primary" busy={start.isPending} disabled={!url}>
          Import
        </Button>
      </form>
      <ErrorNote error={start.error} />
      {(q.data?.imports ?? []).map((i) => (
        <details key={i.id} className="import">
          <summary>
            <Status value={i.status} /> <span className="mono small">{i.sourceLabel}</span> <span className="muted small">{timeAgo(i.createdAt)}</span>
          </summary>
          {i.error ? <div className="tone-bad-text small">{i.error}</div> : null}
          <pre className="code">{i.log.join('\n') || 'No log lines.'}</pre>
        </details>
      ))}
    </section>
  );
}
