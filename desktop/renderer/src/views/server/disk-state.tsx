// The server's free disk (GET /api/system/disk): a banner on every page while new builds, deploys
// and backups are paused for lack of space, and on the server page the volumes and the threshold
// (keys over all projects; a write key over all projects may change it).
import { useState } from 'react';
import type { DiskState } from '../../../../../shared/types.js';
import { useAction, useGet } from '../../api/context';
import { Button, ErrorNote, Field, bytes } from '../../ui/kit';
import { apiPath } from '../../../../../shared/api-routes.js';

const EVERY_MS = 30_000;
const MiB = 1024 * 1024;

function useDiskState() {
  return useGet<{ disk: DiskState }>(['disk'], apiPath('system.disk'), { refetchInterval: EVERY_MS });
}

/** Shown above every page while disk is low. */
export function DiskBanner() {
  const disk = useDiskState().data?.disk;
  if (!disk?.low) return null;
  return (
    <div className="note note-warn disk-banner" role="alert">
      <strong>Low disk: new builds, deploys and backups are paused.</strong> {disk.message}
    </div>
  );
}

export function DiskCard() {
  const q = useDiskState();
  const disk = q.data?.disk;
  const [threshold, setThreshold] = useState('');
  const save = useAction<{ minFreeBytes: number | null }>('PATCH', apiPath('system.disk.patch'), { invalidate: [['disk']], success: 'Free disk threshold saved', onSuccess: () => setThreshold('') });
  return (
    <section className="card stack" aria-label="Free disk">
      <h2 className="h3">Free disk</h2>
      <ErrorNote error={q.error} />
      {disk ? <p className={disk.low ? 'tone-bad-text' : 'muted'}>{disk.low ? disk.message : 'Enough free space: new builds, deploys and backups may start.'}</p> : null}
      {(disk?.volumes ?? []).map((v) => (
        <div key={v.role} className="meter-row">
          <span className="small">
            {v.role === 'docker' ? "Docker's data root" : "Berth's data dir"} <span className="mono muted">{v.path}</span>
          </span>
          <meter min={0} max={v.totalBytes} value={v.totalBytes - v.freeBytes} aria-label={`${v.path} used`} />
          <span className="small muted">
            {bytes(v.freeBytes)} free of {bytes(v.totalBytes)}
          </span>
        </div>
      ))}
      {disk?.minFreeBytes !== undefined ? (
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate({ minFreeBytes: threshold.trim() === '' ? null : Math.round(Number(threshold) * MiB) });
          }}
        >
          <Field label="Pause new work below (MiB free)" hint={`Now ${bytes(disk.minFreeBytes)}. Empty returns to the server's default (BERTH_DISK_MIN_FREE_MB).`}>
            {(id) => <input id={id} type="number" min={0} step={1} value={threshold} onChange={(e) => setThreshold(e.target.value)} placeholder={String(Math.round(disk.minFreeBytes! / MiB))} />}
          </Field>
          <Button type="submit" busy={save.isPending}>
            Save threshold
          </Button>
        </form>
      ) : null}
    </section>
  );
}
