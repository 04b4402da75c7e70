// Backups of a database service: take one now, schedule with retention, restore (asks first), test a restore,
// download, delete (./backup-pieces.tsx, shared with volume backups); and imports from another
// server with their logs.
import { useState } from 'react';
import { IMPORT_SOURCES, offeredImport } from '../../../../../shared/engines.js';
import type { DataImport, ImportSource, Service } from '../../../../../shared/types.js';
import { useAction, useGet } from '../../api/context';
import { Button, ErrorNote, Field, Status, timeAgo } from '../../ui/kit';
import { databaseEngine } from '../service/service-kind';
import { BackupsPanel, type BackupRoutes } from './backup-pieces';
import { apiPath } from '../../../../../shared/api-routes.js';

export default function BackupsTab({ service: s }: { service: Service }) {
  const importSource = offeredImport(databaseEngine(s));
  const routes: BackupRoutes = {
    ids: {
      list: 'backups.list',
      create: 'backups.create',
      settings: 'backups.settings.patch',
      restore: 'backups.restore',
      download: 'backups.download',
      delete: 'backups.delete',
      verify: 'backups.verify',
    },
    params: { serviceId: s.id },
    key: ['backups', s.id],
    restores: [
      ['tables', s.id],
      ['rows', s.id],
    ],
    restoreMessage: (b) => `The database is replaced by its state of ${new Date(b.createdAt).toLocaleString()}. Changes since then are lost.`,
    fileName: (b) => `backup-${b.id}.${b.engine}.dump`,
    label: 'the database',
  };
  return (
    <div className="stack">
      <BackupsPanel routes={routes} />
      {importSource ? <Imports serviceId={s.id} source={importSource} /> : null}
    </div>
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
