// `backup` events on GET /api/events: `running` when a backup starts, then `succeeded` or
// `failed`, each with its backup, service and project, read from a real event stream.
import { expect } from 'chai';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BerthClient } from '../../shared/client.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { requireDatabaseImages } from '../helpers/databases.js';
import { uniq } from '../helpers/fixtures.js';
import { until, waitForDeployment } from '../helpers/wait.js';

type Received = { event: string; json: Record<string, unknown> };

function listen(client: BerthClient): { events: Received[]; stop(): void } {
  const controller = new AbortController();
  const events: Received[] = [];
  void (async () => {
    try {
      for await (const e of client.stream('/api/events', { signal: controller.signal })) events.push({ event: e.event, json: JSON.parse(e.data) as Record<string, unknown> });
    } catch {
      // aborted
    }
  })();
  return { events, stop: () => controller.abort() };
}

describe('backup events on the daemon event stream', function () {
  this.timeout(300_000);
  let t: TestDaemon;
  let projectId: string;
  let serviceId: string;

  before(async function () {
    this.timeout(600_000);
    t = await startTestDaemon(requireDatabaseImages());
    projectId = (await t.admin.createProject({ name: uniq('bev') })).project.id;
    const { service } = await t.admin.createService(projectId, { name: 'cache', repoFullName: 'database:redis' });
    serviceId = service.id;
    const { deployment } = await t.admin.deploy(service.id);
    const done = await waitForDeployment(t.admin, service.id, deployment.id, ['running', 'failed'], 300_000);
    expect(done.status).to.equal('running');
  });
  after(async () => {
    if (projectId) await t?.admin.deleteProject(projectId);
    await t?.stop();
  });

  const backupEvents = (events: Received[], backupId: string) => events.filter((e) => e.event === 'backup' && e.json.backupId === backupId);

  it('a backup that succeeds is announced running, then succeeded, to a key that can see its project only', async () => {
    const other = (await t.admin.createProject({ name: uniq('bev-other') })).project.id;
    const scoped = await t.clientWith('read', [projectId]);
    const blind = await t.clientWith('read', [other]);
    const seen = listen(scoped);
    const unseen = listen(blind);
    await new Promise((r) => setTimeout(r, 200));
    const { backup } = await t.admin.createBackup(serviceId, 'disk');
    await until('the succeeded event', async () => backupEvents(seen.events, backup.id).some((e) => e.json.status === 'succeeded'), 120_000);
    await new Promise((r) => setTimeout(r, 200));
    seen.stop();
    unseen.stop();
    const mine = backupEvents(seen.events, backup.id);
    expect(mine.map((e) => e.json.status)).to.deep.equal(['running', 'succeeded']);
    for (const e of mine) {
      expect(e.json).to.include({ backupId: backup.id, serviceId, projectId });
      expect(Date.parse(String(e.json.at)))
        .to.be.a('number')
        .and.not.satisfy(Number.isNaN);
    }
    expect(unseen.events.filter((e) => e.event === 'backup')).to.deep.equal([]);
    await t.admin.deleteProject(other);
  });

  it('a backup that fails is announced running, then failed', async () => {
    const dir = join(t.dataDir, 'backups', serviceId);
    mkdirSync(dir, { recursive: true });
    renameSync(dir, `${dir}.moved`);
    writeFileSync(dir, 'not a directory');
    const sub = listen(t.admin);
    try {
      await new Promise((r) => setTimeout(r, 200));
      const { backup } = await t.admin.createBackup(serviceId, 'disk');
      await until('the failed event', async () => backupEvents(sub.events, backup.id).some((e) => e.json.status === 'failed'), 120_000);
      expect(backupEvents(sub.events, backup.id).map((e) => e.json.status)).to.deep.equal(['running', 'failed']);
      const stored = (await t.admin.listBackups(serviceId)).backups.find((b) => b.id === backup.id)!;
      expect(stored.status).to.equal('failed');
    } finally {
      sub.stop();
      rmSync(dir, { force: true });
      renameSync(`${dir}.moved`, dir);
    }
  });
});
