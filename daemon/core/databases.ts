// Browsing and editing a database service's data through its engine adapter: who may, which
// server, which credentials, and the limits every request gets. The adapters do the engine work;
// nothing here knows a driver.
import { DATABASE_ENGINES } from '../../shared/constants.js';
import { ENGINE_CAPABILITIES } from '../../shared/engines.js';
import type { DatabaseEngine } from '../../shared/types.js';
import type { DatabaseAdapter, OpenAdapter, QueryResult, Row, RowsPage, Scope, TableEntry } from './ports/database-adapter.js';
import { visibleService, type Access } from './access.js';
import type { Catalog } from './catalog.js';
import { databaseLogin } from './engines.js';
import { DatabaseUnavailable, InvalidInput } from './errors.js';
import { liveDeployment } from './deployment-states.js';
import type { ServiceRecord } from './records.js';
import type { Store } from './ports/store.js';
import type { CaPort } from './ports/ca.js';

const ROWS_DEFAULT_LIMIT = 50;
const ROWS_MAX_LIMIT = 500;
const QUERY_TIMEOUT_MS = 30_000;
const QUERY_MAX_ROWS = 1000;
/** The most bytes one query result or row page may bring into the daemon (rows past it are left out, `truncated`). */
export const ANSWER_MAX_BYTES = 16 * 1024 * 1024;

export interface DatabasesDeps {
  store: Store;
  catalog: Catalog;
  open: OpenAdapter;
  ca: CaPort;
  publicIp: () => Promise<string>;
  /** Where the service's published port answers the daemon: loopback, or the Swarm node it was created on. */
  address: (service: ServiceRecord) => Promise<string>;
  /** Overrides ANSWER_MAX_BYTES (tests). */
  maxAnswerBytes?: number;
}

export interface TlsInfo {
  active: boolean;
  caCertAvailable: boolean;
  publicHostname: string;
  publicPort: number;
}

const TLS_ENGINES: readonly DatabaseEngine[] = DATABASE_ENGINES.filter((e) => ENGINE_CAPABILITIES[e].tls);

export class Databases {
  constructor(private d: DatabasesDeps) {}

  private get maxBytes(): number {
    return this.d.maxAnswerBytes ?? ANSWER_MAX_BYTES;
  }

  async tables(access: Access, serviceId: string, scope: Scope): Promise<{ engine: DatabaseEngine; tables: TableEntry[] }> {
    return this.with(access, serviceId, 'read', async (a, engine) => ({ engine, tables: await a.listTables(scope) }));
  }

  /**
   * A page of rows: from the start, `offset` rows in, or after a cursor (`after`, the `nextCursor`
   * of an earlier page: keyset paging, as fast at any depth as the engine's key allows).
   */
  async rows(access: Access, serviceId: string, q: { table: string; limit?: number; offset?: number; after?: string } & Scope): Promise<RowsPage & { engine: DatabaseEngine }> {
    const limit = q.limit ?? ROWS_DEFAULT_LIMIT;
    if (limit > ROWS_MAX_LIMIT) throw new InvalidInput(`limit is at most ${ROWS_MAX_LIMIT}`);
    if (q.after !== undefined && (q.offset ?? 0) !== 0) throw new InvalidInput('give either after (a cursor) or offset, not both');
    const page = { limit, offset: q.offset ?? 0, after: q.after ?? null };
    return this.with(access, serviceId, 'read', async (a, engine) => ({ engine, ...(await a.readRows(q.table, page, scopeOf(q), this.maxBytes)) }));
  }

  async query(access: Access, serviceId: string, statement: string, scope: Scope): Promise<QueryResult> {
    return this.with(access, serviceId, 'write', (a) => a.query(statement, { timeoutMs: QUERY_TIMEOUT_MS, maxRows: QUERY_MAX_ROWS, maxBytes: this.maxBytes }, scope));
  }

  async insert(access: Access, serviceId: string, table: string, values: Row, scope: Scope): Promise<{ table: string; id: Row[string] }> {
    return this.with(access, serviceId, 'write', async (a) => {
      const key = await a.insertRow(table, values, scope);
      const names = Object.keys(key);
      // one primary column: its value; a composite key: the object; no key: null
      return { table, id: names.length === 0 ? null : names.length === 1 ? key[names[0]!]! : key };
    });
  }

  async update(access: Access, serviceId: string, table: string, primaryKey: Row, values: Row, scope: Scope): Promise<void> {
    await this.with(access, serviceId, 'write', (a) => a.updateRow(table, primaryKey, values, scope));
  }

  async delete(access: Access, serviceId: string, table: string, primaryKey: Row, scope: Scope): Promise<void> {
    await this.with(access, serviceId, 'write', (a) => a.deleteRow(table, primaryKey, scope));
  }

  /** TLS as the server reports it now: `active` is the server's own `ssl` setting, asked live. */
  async tls(access: Access, serviceId: string): Promise<TlsInfo> {
    const service = await this.tlsService(access, serviceId);
    let active = false;
    if (service.status === 'active') {
      active = await this.with(access, serviceId, 'read', async (a) => {
        const r = await a.query('SHOW ssl', { timeoutMs: 5000, maxRows: 1, maxBytes: 64 * 1024 }, {});
        return Object.values(r.rows[0] ?? {})[0] === 'on';
      }).catch(() => false);
    }
    return {
      active,
      caCertAvailable: this.d.ca.hasCa(),
      publicHostname: service.databasePublicHostname ?? (await this.d.publicIp()),
      publicPort: service.hostPort!,
    };
  }

  async caPem(access: Access, serviceId: string): Promise<string> {
    await this.tlsService(access, serviceId);
    return this.d.ca.caPem();
  }

  private async tlsService(access: Access, serviceId: string): Promise<ServiceRecord> {
    const service = await this.databaseService(access, serviceId);
    if (!TLS_ENGINES.includes(service.databaseEngine!)) {
      throw new InvalidInput(`TLS with a Berth certificate is offered for ${TLS_ENGINES.join(' and ')} services; this one runs ${service.databaseEngine}`, 'tls_not_supported');
    }
    return service;
  }

  private async databaseService(access: Access, serviceId: string): Promise<ServiceRecord> {
    const service = await visibleService(this.d.store, access, serviceId);
    if (service.kind !== 'database' || !service.databaseEngine) throw new InvalidInput('this service is not a database', 'not_a_database');
    return service;
  }

  private async with<T>(access: Access, serviceId: string, level: 'read' | 'write', work: (a: DatabaseAdapter, engine: DatabaseEngine) => Promise<T>): Promise<T> {
    if (level === 'write') access.requireWrite();
    const service = await this.databaseService(access, serviceId);
    const engine = service.databaseEngine!;
    const live = await liveDeployment(this.d.store, service.id);
    if (!live || service.hostPort === null) throw new DatabaseUnavailable(`${service.name} is not running: deploy it first`);
    const vars = await this.d.catalog.resolvedEnv(service);
    const adapter = await this.d.open(engine, { host: await this.d.address(service), port: service.hostPort, ...databaseLogin(engine, vars) });
    try {
      return await work(adapter, engine);
    } finally {
      await adapter.close().catch(() => undefined);
    }
  }
}

function scopeOf(q: Scope): Scope {
  return q.database === undefined ? {} : { database: q.database };
}
