// Backup of Berth: one encrypted archive of Berth's own state (the store, its secrets, /etc/berth,
// Caddy's configuration and CA), taken now or on a schedule, kept on this server's disk or in the
// S3 storage, the newest N kept. Shown to keys over all projects; a write key may change the
// settings, back up, download and delete. The passphrase is only ever shown as "set". The list
// follows the events (`server-backup`, `settings` area `server-backups`) and, while a run is under
// way, reads again every 2 s.
import { useState } from 'react';
import { apiPath } from '../../../../../shared/api-routes.js';
import { jobInProgress } from '../../../../../shared/statuses.js';
import type { BackupStorageStatus, ServerBackupRun, ServerBackups, ServerBackupsPatch } from '../../../../../shared/types.js';
import { useAction, useGet, useTransport } from '../../api/context';
import { Button, ConfirmButton, Empty, ErrorNote, Field, Loading, Status, bytes, timeAgo } from '../../ui/kit';
import { useNotify } from '../../ui/notify';
import { useSyncedForm } from '../../ui/synced-form';

const POLL_MS = 2000;
const PRESETS = [
  { id: 'off', label: 'Off', cron: null },
  { id: 'daily', label: 'Daily at 03:00 UTC', cron: '0 3 * * *' },
  { id: 'weekly', label: 'Weekly, Sunday 03:00 UTC', cron: '0 3 * * 0' },
] as const;

type PresetId = (typeof PRESETS)[number]['id'] | 'custom';

const presetOf = (cron: string | null): PresetId => PRESETS.find((p) => p.cron === cron)?.id ?? 'custom';

function scheduleText(cron: string | null): string {
  if (cron === null) return 'Off';
  return PRESETS.find((p) => p.cron === cron)?.label ?? `${cron} (cron, UTC)`;
}

function RunRow({ run, canWrite }: { run: ServerBackupRun; canWrite: boolean }) {
  const t = useTransport();
  const notify = useNotify();
  const del = useAction('DELETE', apiPath('system.backups.delete', { runId: run.id }), { invalidate: [['server-backups']], success: 'Backup deleted' });
  return (
    <>
      <tr>
        <td className="nowrap">
          {new Date(run.startedAt).toLocaleString()}
          <div className="muted small">{timeAgo(run.startedAt)}</div>
        </td>
        <td className="nowrap">{run.trigger === 'schedule' ? 'scheduled' : 'manual'}</td>
        <td className="nowrap">{run.sizeBytes !== null ? bytes(run.sizeBytes) : '—'}</td>
        <td className="nowrap">{run.location === 's3' ? 'S3' : 'this server'}</td>
        <td>
          <Status value={run.status} />
        </td>
        <td className="right nowrap">
          {canWrite && run.status === 'succeeded' && run.fileName ? (
            <>
              <Button className="btn-small" onClick={() => void t.download(apiPath('system.backups.download', { runId: run.id }), run.fileName!).catch((e: Error) => notify.error(e.message))}>
                Download
              </Button>{' '}
            </>
          ) : null}
          {canWrite && !jobInProgress(run.status) ? (
            <ConfirmButton
              label="Delete"
              title="Delete this backup of Berth?"
              message={run.fileName ? `${run.fileName} and its checksum are removed from ${run.location === 's3' ? 'the S3 storage' : 'this server'}.` : 'The record of this failed run is removed.'}
              confirmLabel="Delete backup"
              busy={del.isPending}
              onConfirm={() => del.mutate(undefined)}
            />
          ) : null}
        </td>
      </tr>
      {/* why it failed, on a row of its own: a long engine or S3 message reads across the table */}
      {run.error ? (
        <tr className="run-error">
          <td colSpan={6} className="tone-bad-text small">
            {run.error}
          </td>
        </tr>
      ) : null}
    </>
  );
}

function SettingsForm({ answer, s3Connected }: { answer: ServerBackups; s3Connected: boolean }) {
  const s = answer.serverBackups;
  const [f, setF] = useSyncedForm(() => ({ preset: presetOf(s.schedule), cron: s.schedule ?? '0 3 * * *', storage: s.storageId ?? 'disk', keep: s.keep }), JSON.stringify(s));
  const [passphrase, setPassphrase] = useState('');
  const save = useAction<ServerBackupsPatch, ServerBackups>('PATCH', apiPath('system.backups.patch'), {
    invalidate: [['server-backups']],
    success: 'Backup settings saved',
    notifyErrors: false,
    onSuccess: () => setPassphrase(''),
  });
  const run = useAction<Record<string, never>, { run: ServerBackupRun }>('POST', apiPath('system.backups.run'), {
    invalidate: [['server-backups']],
    success: 'Backup started',
    notifyErrors: false,
  });
  const running = answer.runs.some((r) => jobInProgress(r.status));
  const cron = f.preset === 'custom' ? f.cron.trim() : (PRESETS.find((p) => p.id === f.preset)?.cron ?? null);
  return (
    <form
      className="stack"
      aria-label="Backup of Berth settings"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate({ schedule: cron, storageId: f.storage === 'remote' ? 'remote' : null, keep: f.keep, ...(passphrase ? { passphrase } : {}) });
      }}
    >
      <div className="cols">
        <Field label="Schedule">
          {(id) => (
            <select id={id} value={f.preset} onChange={(e) => setF({ ...f, preset: e.target.value as PresetId })}>
              {PRESETS.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.label}
                </option>
              ))}
              <option value="custom">Custom (cron)</option>
            </select>
          )}
        </Field>
        {f.preset === 'custom' ? (
          <Field label="Cron expression (UTC)" hint="5 fields: minute hour day-of-month month day-of-week">
            {(id) => <input id={id} value={f.cron} onChange={(e) => setF({ ...f, cron: e.target.value })} placeholder="0 3 * * *" />}
          </Field>
        ) : null}
      </div>
      <div className="cols">
        <Field label="Destination" hint={s3Connected ? undefined : 'Configure the S3 storage below to send backups there.'}>
          {(id) => (
            <select id={id} value={f.storage} onChange={(e) => setF({ ...f, storage: e.target.value })}>
              <option value="disk">This server's disk</option>
              <option value="remote" disabled={!s3Connected && s.storageId !== 'remote'}>
                The S3 storage (under berth-server/)
              </option>
            </select>
          )}
        </Field>
        <Field label="Keep the newest">
          {(id) => <input id={id} type="number" min={1} max={100} value={f.keep} onChange={(e) => setF({ ...f, keep: Number(e.target.value) })} className="short" />}
        </Field>
      </div>
      <Field label="Passphrase" hint={s.passphraseSet ? 'Set. Type a new one to change it.' : 'At least 12 characters. Nothing opens an archive without it: keep it apart from the backups.'}>
        {(id) => <input id={id} type="password" value={passphrase} onChange={(e) => setPassphrase(e.target.value)} autoComplete="new-password" placeholder={s.passphraseSet ? '•••••••• (set)' : ''} />}
      </Field>
      <ErrorNote error={save.error ?? run.error} />
      <div className="row end">
        <Button type="button" busy={run.isPending || running} disabled={!s.passphraseSet} title={s.passphraseSet ? undefined : 'Save a passphrase first'} onClick={() => run.mutate({})}>
          {running ? 'Backing up…' : 'Back up now'}
        </Button>
        <Button variant="primary" type="submit" busy={save.isPending}>
          Save
        </Button>
      </div>
    </form>
  );
}

export function ServerBackupsCard({ canWrite }: { canWrite: boolean }) {
  const q = useGet<ServerBackups>(['server-backups'], apiPath('system.backups'), {
    refetchInterval: (query) => (query.state.data?.runs.some((r) => jobInProgress(r.status)) ? POLL_MS : false),
  });
  const storage = useGet<BackupStorageStatus>(['backup-storage'], apiPath('backup-storage.get'), { enabled: canWrite });
  const a = q.data;
  return (
    <section className="card stack" aria-labelledby="server-backups-title">
      <h2 className="h3" id="server-backups-title">
        Backup of Berth
      </h2>
      <p className="muted small">
        One encrypted archive of Berth itself: its projects, services, keys, domains and settings, the secret that seals stored credentials, /etc/berth and Caddy's configuration and CA. Databases and
        volumes have their own backups.
      </p>
      {q.isPending ? <Loading what="the backups of Berth" /> : null}
      {!a ? <ErrorNote error={q.error} /> : null}
      {a ? (
        <>
          <dl className="facts-grid">
            <div>
              <dt>Schedule</dt>
              <dd>{scheduleText(a.serverBackups.schedule)}</dd>
            </div>
            <div>
              <dt>Next run</dt>
              <dd>{a.serverBackups.nextRunAt ? new Date(a.serverBackups.nextRunAt).toLocaleString() : '—'}</dd>
            </div>
            <div>
              <dt>Destination</dt>
              <dd>{a.serverBackups.storageId === 'remote' ? 'The S3 storage' : "This server's disk"}</dd>
            </div>
            <div>
              <dt>Passphrase</dt>
              <dd>{a.serverBackups.passphraseSet ? 'Set' : 'Not set'}</dd>
            </div>
          </dl>
          {canWrite ? <SettingsForm answer={a} s3Connected={storage.data?.connected ?? false} /> : null}
          {a.runs.length === 0 ? (
            <Empty title="No backups of Berth yet">{canWrite ? 'Set a passphrase, then back up now or choose a schedule.' : 'A write key over all projects can take one.'}</Empty>
          ) : (
            <div className="table-scroll">
              <table className="table">
                <caption className="sr-only">Backups of Berth, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Started</th>
                    <th scope="col">Trigger</th>
                    <th scope="col">Size</th>
                    <th scope="col">Where</th>
                    <th scope="col">Status</th>
                    <th scope="col" className="right">
                      <span className="sr-only">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {a.runs.map((r) => (
                    <RunRow key={r.id} run={r} canWrite={canWrite} />
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <p className="small muted">
            To restore, on a fresh server: <code>install.sh --from &lt;bundle&gt; --restore &lt;archive&gt; --passphrase-file &lt;file&gt;</code>
          </p>
        </>
      ) : null}
    </section>
  );
}
