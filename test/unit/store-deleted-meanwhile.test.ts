// A write naming a row that another request deleted meanwhile (a domain added while its service is
// deleted: the fuzz suite's race) is a 404 NotFound from the store, never a raw SQLite error that
// the error funnel would answer as a 500. Real SQLite store.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NotFound } from '../../daemon/core/errors.js';
import type { Store } from '../../daemon/core/ports/store.js';
import { openDataDir } from '../../daemon/runtime.js';

const NOW = '2026-01-01T00:00:00.000Z';

describe('store: a write about a row deleted meanwhile', () => {
  let dir: string;
  let store: Store;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'berth-deleted-'));
    store = await openDataDir(dir);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers NotFound for a domain of a service that no longer exists, and stores nothing', async () => {
    const err = await store.domains.insert({ id: 'd1', serviceId: 'gone', hostname: 'a.example.test', status: 'active', createdAt: NOW, updatedAt: NOW }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(NotFound);
    expect((err as Error).message).to.match(/no longer exists/);
    expect(await store.domains.findByHostname('a.example.test')).to.equal(null);
  });

  it('leaves other errors as they are (a unique violation still reaches core as one)', async () => {
    await store.projects.insert({ id: 'p', name: 'p', slug: 'p', description: '', createdAt: NOW, updatedAt: NOW });
    const err = await store.projects.insert({ id: 'p', name: 'p', slug: 'p', description: '', createdAt: NOW, updatedAt: NOW }).catch((e: unknown) => e);
    expect(store.isUniqueViolation(err)).to.equal(true);
  });
});
