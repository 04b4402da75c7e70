// The read cache's table of repository methods (store/read-cache.ts METHOD_KINDS): it names every
// method the real repositories have, so none is cached or uncached by accident, and the kinds act
// as declared on a real SQLite store.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../daemon/core/clock.js';
import { secretBoxFromKey } from '../../daemon/crypto/secret-box.js';
import { tokenHasherFromKey } from '../../daemon/crypto/token-hash.js';
import { openStore } from '../../daemon/store/open.js';
import { cachedStore, METHOD_KINDS, type CachedStore } from '../../daemon/store/read-cache.js';
import type { Store } from '../../daemon/core/ports/store.js';

describe('read cache: every repository method declared read or write', () => {
  let dir: string;
  let inner: Store;
  let store: CachedStore;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'berth-read-cache-'));
    const secret = Buffer.alloc(32, 7);
    inner = await openStore(dir, secretBoxFromKey(secret), tokenHasherFromKey(secret));
    store = cachedStore(inner, join(dir, 'store.changed'));
  });

  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the table names exactly the methods of each cached repository', () => {
    for (const [name, kinds] of Object.entries(METHOD_KINDS)) {
      const methods = Object.keys(inner[name as keyof typeof METHOD_KINDS]).sort();
      expect(Object.keys(kinds).sort(), `store.${name}`).to.deep.equal(methods);
    }
  });

  it('a read is memoised until a write; a write starts the cache over', async () => {
    await store.projects.list();
    await store.projects.list();
    expect(store.cachedReads()).to.equal(1);
    const before = store.version();
    await store.projects.deleteCascade('no-such-project');
    expect(store.cachedReads()).to.equal(0);
    expect(store.version()).to.not.equal(before);
    await store.settings.get('x');
    expect(store.cachedReads()).to.equal(1);
    await store.settings.set('x', 'y', systemClock.now());
    expect(store.cachedReads()).to.equal(0);
    expect(await store.settings.get('x')).to.equal('y');
  });

  it('a read with and without a trailing undefined argument is one memoised read (one copy of its rows)', async () => {
    await store.settings.set('reset', 'x', systemClock.now());
    const a = await store.services.list();
    const b = await store.services.list(undefined);
    expect(b).to.equal(a);
    expect(store.cachedReads()).to.equal(1);
  });

  it('a fresh read (listByStatus) is never memoised and drops nothing', async () => {
    await store.projects.list();
    const before = store.version();
    const cached = store.cachedReads();
    expect(await store.deployments.listByStatus(['queued'])).to.deep.equal([]);
    expect(store.cachedReads()).to.equal(cached);
    expect(store.version()).to.equal(before);
  });

  it("a key's touch (bookkeeping) drops only the keys' memoised reads and leaves the version and other reads alone", async () => {
    const at = systemClock.now();
    await store.keys.insert({ id: 'k-touch', name: 'ci', access: 'read', projects: 'all', createdAt: at, lastUsedAt: null }, 'hash-touch');
    expect((await store.keys.get('k-touch'))?.lastUsedAt).to.equal(null);
    await store.projects.list();
    expect(store.cachedReads()).to.equal(2);
    const before = store.version();
    const later = new Date(Date.parse(at) + 60_000).toISOString();
    await store.keys.touch('k-touch', later);
    expect(store.version()).to.equal(before);
    expect(store.cachedReads()).to.equal(1); // the projects list is still memoised
    expect((await store.keys.get('k-touch'))?.lastUsedAt).to.equal(later);
  });
});
