// Remote backup storage (S3-compatible): endpoint, bucket and keys, saved and tested at once.
import { useEffect, useState } from 'react';
import type { BackupStorageStatus } from '../../../../../shared/types.js';
import { useAction, useGet } from '../../api/context';
import { Button, ConfirmButton, ErrorNote, Field } from '../../ui/kit';
import { apiPath } from '../../../../../shared/api-routes.js';

export function BackupStorage() {
  const q = useGet<BackupStorageStatus>(['backup-storage'], apiPath('backup-storage.get'));
  const [f, setF] = useState({ endpoint: '', region: 'us-east-1', bucket: '', prefix: '', accessKeyId: '', secretAccessKey: '', forcePathStyle: true });
  useEffect(() => {
    const s = q.data?.storage;
    if (s) setF((x) => ({ ...x, endpoint: s.endpoint, region: s.region, bucket: s.bucket, prefix: s.prefix, accessKeyId: s.accessKeyId, forcePathStyle: s.forcePathStyle }));
  }, [q.data]);
  const save = useAction<Record<string, unknown>, BackupStorageStatus>('PUT', apiPath('backup-storage.put'), {
    invalidate: [['backup-storage']],
    success: (r) => (r.connected ? 'Remote storage connected' : `Saved, but not reachable: ${r.detail}`),
  });
  const del = useAction('DELETE', apiPath('backup-storage.delete'), { invalidate: [['backup-storage']], success: 'Remote storage removed' });
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  return (
    <form
      className="card stack"
      aria-label="Backup storage"
      onSubmit={(e) => {
        e.preventDefault();
        const { secretAccessKey, ...rest } = f;
        save.mutate({ ...rest, ...(secretAccessKey ? { secretAccessKey } : {}) });
      }}
    >
      <div className="row between">
        <h2 className="h3">Backup storage (S3-compatible)</h2>
        {q.data ? <span className={`badge ${q.data.connected ? 'tone-ok' : 'tone-muted'}`}>{q.data.storage ? (q.data.connected ? 'connected' : 'not reachable') : 'not configured'}</span> : null}
      </div>
      {q.data?.storage && !q.data.connected ? <div className="note note-warn">{q.data.detail}</div> : null}
      <div className="cols">
        <Field label="Endpoint">{(id) => <input id={id} value={f.endpoint} onChange={set('endpoint')} placeholder="https://s3.example.com" required />}</Field>
        <Field label="Region">{(id) => <input id={id} value={f.region} onChange={set('region')} required />}</Field>
      </div>
      <div className="cols">
        <Field label="Bucket">{(id) => <input id={id} value={f.bucket} onChange={set('bucket')} required />}</Field>
        <Field label="Prefix" hint="Optional, ends with /">
          {(id) => <input id={id} value={f.prefix} onChange={set('prefix')} />}
        </Field>
      </div>
      <div className="cols">
        <Field label="Access key id">{(id) => <input id={id} value={f.accessKeyId} onChange={set('accessKeyId')} required autoComplete="off" />}</Field>
        <Field label="Secret access key" hint={q.data?.storage?.hasSecret ? 'Leave empty to keep the stored one' : undefined}>
          {(id) => <input id={id} type="password" value={f.secretAccessKey} onChange={set('secretAccessKey')} autoComplete="off" />}
        </Field>
      </div>
      <label className="check">
        <input type="checkbox" checked={f.forcePathStyle} onChange={(e) => setF({ ...f, forcePathStyle: e.target.checked })} /> Path-style addressing (MinIO, most self-hosted servers)
      </label>
      <ErrorNote error={save.error} />
      <div className="row end">
        {q.data?.storage ? (
          <ConfirmButton
            label="Remove"
            title="Remove remote storage?"
            message="Backups already uploaded stay in the bucket."
            confirmLabel="Remove"
            busy={del.isPending}
            onConfirm={() => del.mutate(undefined)}
          />
        ) : null}
        <Button type="submit" variant="primary" busy={save.isPending}>
          Save and test
        </Button>
      </div>
    </form>
  );
}
