// Picking a new service's generated label and telling whose a hostname is look the name up in the
// store (indexed, migration 027) instead of reading every service: before, each creation read the
// whole services table inside the daemon's one-at-a-time allocation, so creating the 1,000th service
// took 341 ms against 130 ms for the first (bench:api's seeding went from 32 to 9 s). Real SQLite store.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory from 'knex';
import { generatedOwner, newGeneratedLabel } from '../../daemon/core/generated-names.js';
import type { Store } from '../../daemon/core/ports/store.js';
import { openDataDir } from '../../daemon/runtime.js';
import { serviceRecord } from '../helpers/service-record.js';

const NOW = '2026-01-01T00:00:00.000Z';

/** The store with `services.list` refused: what is under test must not read every service. */
function withoutWholeList(store: Store): Store {
  const services = new Proxy(store.services, {
    get(target, prop, receiver) {
      if (prop === 'list') return () => Promise.reject(new Error('services.list() read every service'));
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
  return new Proxy(store, { get: (target, prop, receiver) => (prop === 'services' ? services : (Reflect.get(target, prop, receiver) as unknown)) });
}

describe('generated names: looked up by name, not by reading every service', () => {
  let dir: string;
  let store: Store;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'berth-names-'));
    store = await openDataDir(dir);
    for (const id of ['p', 'q']) await store.projects.insert({ id, name: id, slug: id, description: '', createdAt: NOW, updatedAt: NOW });
    await store.services.insert({ ...serviceRecord('web', 'p'), generatedLabel: 'web-p' }, []);
    await store.services.insert({ ...serviceRecord('db', 'p'), kind: 'database', databaseEngine: 'postgres', databasePublicHostname: 'DB.Example.test', generatedLabel: 'db-p' }, []);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds the holders of a generated label, and of a database hostname in any case', async () => {
    expect(await store.services.withGeneratedLabel('web-p')).to.deep.equal(['web']);
    expect(await store.services.withGeneratedLabel('web')).to.deep.equal([]);
    expect(await store.services.withDatabaseHostname('db.example.TEST')).to.deep.equal(['db']);
    expect(await store.services.withDatabaseHostname('other.example.test')).to.deep.equal([]);
  });

  it('picks the next free label without reading every service', async () => {
    const lean = withoutWholeList(store);
    expect(await newGeneratedLabel(lean, 'p', 'p', 'web')).to.equal('web-p-2');
    expect(await newGeneratedLabel(lean, 'p', 'p', 'api')).to.equal('api-p');
    await store.settings.set('rootDomain', 'apps.example.test', NOW);
    expect(await newGeneratedLabel(lean, 'q', 'p', 'web')).to.equal('web-p-2');
  });

  it('tells whose a hostname is without reading every service', async () => {
    const lean = withoutWholeList(store);
    await store.settings.set('rootDomain', 'apps.example.test', NOW);
    expect(await generatedOwner(lean, 'db.example.test', null)).to.equal('the public hostname of a database service');
    expect(await generatedOwner(lean, 'db.example.test', 'db')).to.equal(null);
    expect(await generatedOwner(lean, 'web-p.apps.example.test', null)).to.equal('the generated hostname of another service');
    expect(await generatedOwner(lean, 'web-p.apps.example.test', 'web')).to.equal(null);
    expect(await generatedOwner(lean, 'free.apps.example.test', null, false)).to.match(/reserved for generated service hostnames/);
  });

  it('answers both look-ups from an index (migration 027)', async () => {
    await store.close();
    const db = knexFactory({ client: 'sqlite3', connection: { filename: join(dir, 'berth.sqlite') }, useNullAsDefault: true });
    try {
      const plan = async (sql: string, value: string) => JSON.stringify(await db.raw(`EXPLAIN QUERY PLAN ${sql}`, [value]));
      expect(await plan('SELECT id FROM services WHERE generated_label = ?', 'web-p')).to.include('USING INDEX services_generated_label');
      expect(await plan('SELECT id FROM services WHERE lower(database_public_hostname) = ?', 'db.example.test')).to.include('USING INDEX services_database_hostname');
    } finally {
      await db.destroy();
    }
    store = await openDataDir(dir);
  });
});
