// The backups of one thing (a database service, or one volume of a service): take one now with a
// storage choice, the list with restore (asks first), download and delete, and the schedule with
// retention. Which routes they call comes in as `BackupRoutes` (the database's or a volume's route
// ids with their parameters), so both views are the same code.
import { useState } from 'react';
import type { QueryKey } from '@tanstack/react-query';
import { routePath, type RouteId } from '../../../../../shared/api-routes.js';
import { jobInProgress } from '../../../../../shared/statuses.js';
import type { Backup, BackupSettings, BackupStorageKind } from '../../../../../shared/types.js';
import { useAction, useGet, useTransport } from '../../api/context';
import { Button, ConfirmButton, Empty, ErrorNote, Field, Status, bytes, timeAgo } from '../../ui/kit';
import { useNotify } from '../../ui/notify';
import { useSyncedForm } from '../../ui/synced-form';
import { RestoreTestSettings, TestRestoreButton, VerificationCell } from './restore-test-pieces';

export interface BackupsAnswer {
  backups: Backup[];
  settings: BackupSettings;
  remote: { connected: boolean };
}

/** The route ids of one kind of backups and the parameters that name the thing backed up. */
export interface BackupRoutes {
  ids: {
    list: RouteId;
    create: RouteId;
    settings: RouteId;
    restore: RouteId;
    download: RouteId;
    delete: RouteId;
    /** A database's restore test (volume backups have none). */
    verify?: RouteId;
  };
  params: { serviceId: string; volumeName?: string };
  /** The query the list is kept under (live `backup` events refresh ['backups', serviceId] and below). */
  key: QueryKey;
  /** Other queries a restore changes (a database's tables). */
  restores?: QueryKey[];
  /** What the restore dialog says happens. */
  restoreMessage: (b: Backup) => string;
  /** The downloaded file's name. */
  fileName: (b: Backup) => string;
  /** What is backed up, for the table's caption and the schedule form's name ("the database", "volume data"). */
  label: string;
  /** Inside another section (a volume's card): headings one level down, no card around the bar. */
  nested?: boolean;
}

const path = (r: BackupRoutes, id: RouteId, backupId?: string) => routePath(id, { ...r.params, ...(backupId ? { backupId } : {}) } as never);

/** The "Back up now" bar, the list and the schedule. */
export function BackupsPanel({ routes: r }: { routes: BackupRoutes }) {
  // no polling: `backup` and `backup-settings` events re-read the list (api/live.ts)
  const q = useGet<BackupsAnswer>(r.key, path(r, r.ids.list));
  const [storage, setStorage] = useState<BackupStorageKind>('disk');
  const create = useAction<{ storage: BackupStorageKind }>('POST', path(r, r.ids.create), { invalidate: [r.key], success: 'Backup started' });
  const remote = q.data?.remote.connected ?? false;
  const running = q.data?.backups.some((b) => jobInProgress(b.status)) ?? false;
  return (
    <div className="stack">
      <div className={r.nested ? 'row wrap align-end' : 'card row wrap align-end'}>
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
        <Button variant="primary" busy={create.isPending || running} onClick={() => create.mutate({ storage })}>
          {running ? 'Backup running…' : 'Back up now'}
        </Button>
      </div>
      <ErrorNote error={q.error ?? create.error} />
      {q.data && q.data.backups.length === 0 ? <Empty title="No backups yet">Take one now, or turn on a schedule below.</Empty> : null}
      {q.data && q.data.backups.length > 0 ? (
        <table className="table">
          <caption className="sr-only">Backups of {r.label}</caption>
          <thead>
            <tr>
              <th scope="col">Taken</th>
              <th scope="col">Status</th>
              <th scope="col">Trigger</th>
              <th scope="col">Storage</th>
              <th scope="col">Size</th>
              {r.ids.verify ? <th scope="col">Restore test</th> : null}
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {q.data.backups.map((b) => (
              <BackupRow key={b.id} backup={b} routes={r} />
            ))}
          </tbody>
        </table>
      ) : null}
      {q.data ? <Schedule routes={r} settings={q.data.settings} remote={remote} /> : null}
    </div>
  );
}

function BackupRow({ backup: b, routes: r }: { backup: Backup; routes: BackupRoutes }) {
  const t = useTransport();
  const notify = useNotify();
  const restore = useAction<void, { restoredAt: string }>('POST', path(r, r.ids.restore, b.id), { invalidate: [r.key, ...(r.restores ?? [])], success: 'Restored' });
  const del = useAction('DELETE', path(r, r.ids.delete, b.id), { invalidate: [r.key], success: 'Backup deleted' });
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
      {r.ids.verify ? (
        <td className="verification">
          <VerificationCell backup={b} />
        </td>
      ) : null}
      <td className="right nowrap">
        {b.status === 'succeeded' ? (
          <>
            {r.ids.verify ? (
              <>
                <TestRestoreButton backup={b} path={path(r, r.ids.verify, b.id)} listKey={r.key as readonly unknown[]} />{' '}
              </>
            ) : null}
            <ConfirmButton
              variant="primary"
              label="Restore"
              title="Restore this backup?"
              message={r.restoreMessage(b)}
              confirmLabel="Restore"
              busy={restore.isPending}
              onConfirm={() => restore.mutate()}
            />{' '}
            <Button className="btn-small" onClick={() => void t.download(path(r, r.ids.download, b.id), r.fileName(b)).catch((e: Error) => notify.error(e.message))}>
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

function Schedule({ routes: r, settings, remote }: { routes: BackupRoutes; settings: BackupSettings; remote: boolean }) {
  // a change from elsewhere shows here too, unless the user is editing
  const [f, setF] = useSyncedForm(() => settings, JSON.stringify(settings));
  const save = useAction<Partial<BackupSettings>>('PATCH', path(r, r.ids.settings), { invalidate: [r.key], success: 'Schedule saved' });
  const Heading = r.nested ? 'h3' : 'h2';
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
      aria-label={`Backup schedule of ${r.label}`}
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
          ...(r.ids.verify ? { verifySchedule: f.verifySchedule, gfs: f.gfs } : {}),
        });
      }}
    >
      <Heading className="h3">Schedule</Heading>
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
      {r.ids.verify ? <RestoreTestSettings value={f} onChange={(next) => setF({ ...f, ...next })} /> : null}
      <ErrorNote error={save.error} />
      <div className="row end">
        <Button type="submit" variant="primary" busy={save.isPending}>
          Save schedule
        </Button>
      </div>
    </form>
  );
}
