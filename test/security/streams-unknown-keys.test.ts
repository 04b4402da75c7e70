// Requests with unknown bearer tokens (anyone can send them) must not grow the daemon's memory:
// neither the read cache nor the token-hash memo keeps anything for a token that is no key.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { BerthClient } from '../../shared/client.js';
import { MAX_CACHED_READS } from '../../daemon/store/read-cache.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniq } from '../helpers/fixtures.js';
import { expectHealthy } from '../helpers/hostile-checks.js';
import { snapshotStore } from '../helpers/snapshot.js';

const TOKENS = 20_000;
const PARALLEL = 16;

describe('security: unknown bearer tokens', () => {
  let t: TestDaemon;
  let tenant: BerthClient;
  let projectId: string;
  before(async () => {
    t = await startTestDaemon();
    projectId = (await t.admin.createProject({ name: uniq('tenant') })).project.id;
    tenant = await t.clientWith('write', [projectId]);
  });
  after(async () => t.stop());

  it(`${TOKENS} distinct unknown tokens are all refused 401 and leave the read cache as it was`, async function () {
    this.timeout(120_000);
    await tenant.listProjects();
    const before = await snapshotStore(t.dataDir);
    const cachedBefore = t.daemon.store.cachedReads();
    const heapBefore = process.memoryUsage().heapUsed;
    let next = 0;
    const statuses = new Map<number, number>();
    // the most the cache held at any point (it starts over past MAX_CACHED_READS, so the end alone says little)
    let most = 0;
    const worker = async () => {
      while (next < TOKENS) {
        next++;
        const token = `berth_${randomBytes(32).toString('base64url')}`;
        const res = await fetch(`${t.url}/api/projects`, { headers: { authorization: `Bearer ${token}` } });
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        most = Math.max(most, t.daemon.store.cachedReads());
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
    expect(Object.fromEntries(statuses)).to.deep.equal({ 401: TOKENS });
    expect(most, 'memoised reads').to.be.at.most(cachedBefore + 50);
    expect(most).to.be.below(MAX_CACHED_READS);
    const gc = (globalThis as { gc?: () => void }).gc;
    if (gc) {
      gc();
      // the test's own fetches share this heap: the bound is generous, the leak was ~1 KB a token
      expect(process.memoryUsage().heapUsed - heapBefore, 'heap growth').to.be.below(8 * 1024 * 1024);
    }
    expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
    await expectHealthy(t.url);
    // the tenant's real key still works, from the cache
    expect((await tenant.listProjects()).projects.map((p) => p.id)).to.deep.equal([projectId]);
  });
});
