// The database browser: tables, paged rows with insert / edit / delete by primary key, a query
// console, and the TLS details with the CA certificate.
import { useState } from 'react';
import { ENGINE_CAPABILITIES } from '../../../../../shared/engines.js';
import type { DatabaseRowsPage, DatabaseTable, DbCell, DbRow, PostgresTls, Service } from '../../../../../shared/types.js';
import { useAction, useGet, useTransport } from '../../api/context';
import { Button, ConfirmButton, Empty, ErrorNote, Field, Loading, Modal } from '../../ui/kit';
import { useNotify } from '../../ui/notify';
import { databaseEngine } from '../service/service-kind';
import { QueryConsole } from './query-console';
import { apiPath } from '../../../../../shared/api-routes.js';

const PAGE = 50;

export function cellText(v: DbCell): string {
  if (v === null) return 'NULL';
  if (typeof v === 'string') return v;
  if (typeof v === 'object' && !Array.isArray(v)) {
    const tagged = Object.entries(v);
    if (tagged.length === 1 && tagged[0]![0].startsWith('$')) return String(tagged[0]![1]);
  }
  return JSON.stringify(v);
}

export default function DataTab({ service: s }: { service: Service }) {
  const engine = databaseEngine(s);
  const tables = useGet<{ tables: DatabaseTable[] }>(['tables', s.id], apiPath('database.tables', { serviceId: s.id }));
  const [table, setTable] = useState<string | null>(null);
  const current = table ?? tables.data?.tables[0]?.id ?? null;
  if (s.status !== 'active') return <Empty title="The database is not running">Deploy it first; its tables appear here once it is up.</Empty>;
  return (
    <div className="stack">
      <div className="split">
        <nav aria-label="Tables" className="list tables">
          {tables.isPending ? <Loading what="tables" /> : null}
          <ErrorNote error={tables.error} />
          {tables.data?.tables.length === 0 ? <p className="muted small">No tables yet. Create one with the query console below.</p> : null}
          {tables.data?.tables.map((t) => (
            <button key={t.id} type="button" className={t.id === current ? 'list-item active' : 'list-item'} aria-current={t.id === current ? 'true' : undefined} onClick={() => setTable(t.id)}>
              <span className="mono">{t.name}</span>
              <span className="muted small">
                {t.rowCountEstimated ? '~' : ''}
                {t.rowCount}
              </span>
            </button>
          ))}
        </nav>
        <div>{current ? <Rows serviceId={s.id} table={current} key={current} /> : null}</div>
      </div>
      <QueryConsole serviceId={s.id} engine={engine ?? 'postgres'} />
      {engine && ENGINE_CAPABILITIES[engine].tls ? <TlsCard serviceId={s.id} /> : null}
    </div>
  );
}

/** Where a page starts: after a cursor (keyset paging), or at an offset for tables with no key. */
interface PageStart {
  after: string | null;
  offset: number;
  /** The number of rows before this page, for the "1–50 of N" line. */
  start: number;
}

function Rows({ serviceId, table }: { serviceId: string; table: string }) {
  // The pages visited so far, so "previous" can go back (a cursor only points forward).
  const [trail, setTrail] = useState<PageStart[]>([{ after: null, offset: 0, start: 0 }]);
  const at = trail[trail.length - 1]!;
  const where = at.after !== null ? { after: at.after } : { offset: at.offset };
  const page = useGet<DatabaseRowsPage>(['rows', serviceId, table, at.after, at.offset], apiPath('database.rows', { serviceId }, { table, limit: PAGE, ...where }), {
    placeholderData: (prev) => prev,
  });
  const [editing, setEditing] = useState<DbRow | 'new' | null>(null);
  const del = useAction<{ table: string; primaryKey: DbRow }>('DELETE', apiPath('database.rows.delete', { serviceId }), {
    invalidate: [
      ['rows', serviceId, table],
      ['tables', serviceId],
    ],
    success: 'Row deleted',
  });
  if (!page.data) return page.error ? <ErrorNote error={page.error} /> : <Loading what="rows" />;
  const { columns, rows, total, totalEstimated, nextCursor } = page.data;
  const keys = columns.filter((c) => c.primary);
  const offset = at.start;
  // Next: the page's cursor; a table with no key to page by goes on by offset.
  const next: PageStart | null = nextCursor
    ? { after: nextCursor, offset: 0, start: at.start + rows.length }
    : at.after === null && keys.length === 0 && at.offset + rows.length < total
      ? { after: null, offset: at.offset + rows.length, start: at.start + rows.length }
      : null;
  const pk = (r: DbRow): DbRow => Object.fromEntries(keys.map((k) => [k.name, r[k.name] ?? null]));
  return (
    <div className="stack">
      <div className="row between">
        <h2 className="h3 mono">{table}</h2>
        <div className="row">
          <span className="muted small">{total === 0 ? 'empty' : `${offset + 1}–${offset + rows.length} of ${totalEstimated ? '~' : ''}${total}`}</span>
          <Button disabled={trail.length === 1} onClick={() => setTrail(trail.slice(0, -1))} aria-label="Previous page">
            ←
          </Button>
          <Button disabled={next === null} onClick={() => next && setTrail([...trail, next])} aria-label="Next page">
            →
          </Button>
          <Button variant="primary" onClick={() => setEditing('new')}>
            Insert row
          </Button>
        </div>
      </div>
      {keys.length === 0 ? <div className="note note-warn">This table has no primary key: rows can be inserted but not edited or deleted here.</div> : null}
      <div className="table-scroll">
        <table className="table grid-table">
          <caption className="sr-only">Rows of {table}</caption>
          <thead>
            <tr>
              {columns.map((c) => (
                <th key={c.name} scope="col">
                  {c.name} {c.primary ? <span className="badge tone-info">key</span> : null}
                  <div className="muted small">{c.type}</div>
                </th>
              ))}
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              <tr key={i}>
                {columns.map((c) => (
                  <td key={c.name} className={r[c.name] === null ? 'mono small muted truncate' : 'mono small truncate'}>
                    {cellText(r[c.name] ?? null)}
                  </td>
                ))}
                <td className="right nowrap">
                  {keys.length > 0 ? (
                    <>
                      <Button className="btn-small" onClick={() => setEditing(r)} aria-label={`Edit row ${i + 1 + offset}`}>
                        Edit
                      </Button>{' '}
                      <ConfirmButton
                        label="Delete"
                        title="Delete this row?"
                        message={<span className="mono small">{JSON.stringify(pk(r))}</span>}
                        confirmLabel="Delete row"
                        onConfirm={() => del.mutate({ table, primaryKey: pk(r) })}
                      />
                    </>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rows.length === 0 ? <p className="muted">No rows. Insert one, or load data with the query console.</p> : null}
      {editing ? (
        <RowEditor
          serviceId={serviceId}
          table={table}
          columns={columns}
          row={editing === 'new' ? null : editing}
          primaryKey={editing === 'new' ? null : pk(editing)}
          onClose={() => setEditing(null)}
        />
      ) : null}
    </div>
  );
}

function RowEditor({
  serviceId,
  table,
  columns,
  row,
  primaryKey,
  onClose,
}: {
  serviceId: string;
  table: string;
  columns: DatabaseRowsPage['columns'];
  row: DbRow | null;
  primaryKey: DbRow | null;
  onClose: () => void;
}) {
  const [values, setValues] = useState<Record<string, string>>(() => Object.fromEntries(columns.map((c) => [c.name, row ? (row[c.name] === null ? '' : cellText(row[c.name]!)) : ''])));
  const [nulls, setNulls] = useState<Record<string, boolean>>(() => Object.fromEntries(columns.map((c) => [c.name, row ? row[c.name] === null : false])));
  const opts = {
    invalidate: [
      ['rows', serviceId, table],
      ['tables', serviceId],
    ],
    onSuccess: onClose,
  };
  const insert = useAction<{ table: string; values: DbRow }>('POST', apiPath('database.rows.insert', { serviceId }), { ...opts, success: 'Row inserted' });
  const update = useAction<{ table: string; primaryKey: DbRow; values: DbRow }>('PATCH', apiPath('database.rows.update', { serviceId }), { ...opts, success: 'Row saved' });
  const submit = () => {
    const out: DbRow = {};
    for (const c of columns) {
      const v: DbCell = nulls[c.name] ? null : values[c.name]!;
      if (row) {
        const before = row[c.name] === null ? null : cellText(row[c.name]!);
        if (v !== before) out[c.name] = v;
      } else if (v !== '' || nulls[c.name]) out[c.name] = v;
    }
    if (row && primaryKey) update.mutate({ table, primaryKey, values: out });
    else insert.mutate({ table, values: out });
  };
  return (
    <Modal open title={row ? 'Edit row' : `Insert into ${table}`} onClose={onClose}>
      <form
        className="stack"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        {columns.map((c) => (
          <div key={c.name} className="row align-end">
            <Field label={`${c.name} (${c.type})`} hint={!row && c.primary ? 'Leave empty for a generated key' : undefined}>
              {(id) => <input id={id} className="mono" value={values[c.name]} disabled={nulls[c.name]} onChange={(e) => setValues({ ...values, [c.name]: e.target.value })} />}
            </Field>
            <label className="check small">
              <input type="checkbox" checked={nulls[c.name]} onChange={(e) => setNulls({ ...nulls, [c.name]: e.target.checked })} /> NULL
            </label>
          </div>
        ))}
        <ErrorNote error={insert.error ?? update.error} />
        <div className="row end">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" busy={insert.isPending || update.isPending}>
            {row ? 'Save row' : 'Insert row'}
          </Button>
        </div>
      </form>
    </Modal>
  );
}

function TlsCard({ serviceId }: { serviceId: string }) {
  const tls = useGet<{ tls: PostgresTls }>(['tls', serviceId], apiPath('database.tls', { serviceId }));
  const t = useTransport();
  const notify = useNotify();
  if (!tls.data) return <ErrorNote error={tls.error} />;
  const x = tls.data.tls;
  return (
    <section className="card stack" aria-label="TLS">
      <h2 className="h3">TLS</h2>
      <dl className="facts-grid">
        <div>
          <dt>TLS</dt>
          <dd>{x.active ? 'On (certificate from the Berth CA)' : 'Off'}</dd>
        </div>
        <div>
          <dt>Public address</dt>
          <dd className="mono">{x.publicHostname ? `${x.publicHostname}:${x.publicPort}` : 'not public'}</dd>
        </div>
      </dl>
      {x.caCertAvailable ? (
        <div>
          <Button onClick={() => void t.download(apiPath('database.tls.ca', { serviceId }), 'berth-ca.pem').catch((e: Error) => notify.error(e.message))}>Download CA certificate</Button>
          <p className="hint">Clients verify the server with it: sslmode=verify-full sslrootcert=berth-ca.pem</p>
        </div>
      ) : null}
    </section>
  );
}
