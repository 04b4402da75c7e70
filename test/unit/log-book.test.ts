import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../daemon/core/clock.js';
import type { Store } from '../../daemon/core/ports/store.js';
import { LogBook } from '../../daemon/deploy/log-book.js';
import { openDataDir } from '../../daemon/runtime.js';

describe('log book (real SQLite)', () => {
  let dir: string;
  let store: Store;
  const errors: unknown[] = [];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'berth-logbook-'));
    store = await openDataDir(dir);
    const now = systemClock.now();
    await store.projects.insert({ id: 'p', name: 'p', slug: 'p', description: '', createdAt: now, updatedAt: now });
    await store.services.insert(
      {
        id: 's',
        projectId: 'p',
        name: 's',
        slug: 's',
        kind: 'git',
        repoFullName: 'a/b',
        repoUrl: null,
        dockerImage: null,
        branch: 'main',
        rootDir: null,
        githubToken: null,
        installCommand: null,
        buildCommand: null,
        startCommand: null,
        staticOutput: null,
        buildMethod: 'auto',
        dockerfilePath: null,
        detectedBuildMethod: null,
        runtimeMode: 'web',
        internalPort: 3000,
        hostPort: null,
        databaseEngine: null,
        databasePublicEnabled: false,
        databasePublicHostname: null,
        generatedLabel: null,
        postgresLogicalReplicationEnabled: false,
        memoryLimitMb: null,
        cpuLimit: null,
        pidsLimit: null,
        status: 'idle',
        reachable: false,
        framework: null,
        lastDeployedAt: null,
        createdAt: now,
        volumes: [],
        files: [],
        deployStrategy: 'rolling',
        releaseCommand: null,
        releaseTimeoutSeconds: null,
        replicas: 1,
        placement: {},
        nodeId: null,
        updatedAt: now,
      },
      [],
    );
    await store.deployments.insert({
      id: 'd',
      serviceId: 's',
      commitSha: null,
      status: 'building',
      trigger: 'manual',
      imageTag: null,
      containerName: null,
      startedAt: null,
      finishedAt: null,
      createdAt: now,
      branch: null,
      containerId: null,
      upstreamPort: null,
      buildMethod: null,
    });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes every line exactly once, even when flushes overlap and reads run meanwhile', async () => {
    const book = new LogBook(store.logs, 'deployment_logs', systemClock, (e) => errors.push(e));
    await book.init();
    const reads: Promise<unknown>[] = [];
    for (let i = 0; i < 1000; i++) {
      book.append('d', 'd', `line ${i}`);
      if (i % 37 === 0) void book.flush();
      if (i % 101 === 0) {
        reads.push(
          book.read('d', 0).then((lines) => {
            const ids = lines.map((l) => l.id);
            expect(ids, 'a read sees a gap-free prefix').to.deep.equal(ids.map((_, k) => ids[0]! + k));
          }),
        );
      }
      if (i % 50 === 0) await new Promise((r) => setImmediate(r));
    }
    await Promise.all(reads);
    await book.flush();
    expect(errors).to.deep.equal([]);
    const stored = await store.logs.list('deployment_logs', 'd', 0, 5000);
    expect(stored.map((l) => l.line)).to.deep.equal([...Array(1000).keys()].map((i) => `line ${i}`));
  });

  it('ids keep increasing across restarts', async () => {
    const first = new LogBook(store.logs, 'deployment_logs', systemClock, (e) => errors.push(e));
    await first.init();
    const a = first.append('d', 'd', 'before');
    await first.flush();
    const second = new LogBook(store.logs, 'deployment_logs', systemClock, (e) => errors.push(e));
    await second.init();
    expect(second.append('d', 'd', 'after').id).to.be.greaterThan(a.id);
  });

  it('retention keeps the newest lines per owner', async () => {
    const book = new LogBook(store.logs, 'deployment_logs', systemClock, (e) => errors.push(e));
    await book.init();
    for (let i = 0; i < 300; i++) book.append('d', 'd', `l${i}`);
    await book.flush();
    expect(await store.logs.trim('deployment_logs', 100)).to.equal(200);
    const kept = await store.logs.list('deployment_logs', 'd', 0, 1000);
    expect(kept.map((l) => l.line)).to.deep.equal([...Array(100).keys()].map((i) => `l${i + 200}`));
  });
});
