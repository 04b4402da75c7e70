// The backup scheduler loads node-cron and arms its minute task only once a service has automatic
// backups (a daemon with nothing to schedule keeps node-cron's ICU data out of memory), and arms it
// as soon as such a schedule is saved. Real SQLite store.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BackupRunner } from '../../daemon/backups/backups.js';
import { BackupScheduler, type ScheduleLimits } from '../../daemon/backups/schedule.js';
import type { ServiceRecord } from '../../daemon/core/records.js';
import type { Store } from '../../daemon/core/ports/store.js';
import { openDataDir } from '../../daemon/runtime.js';

const NOW = '2026-01-01T00:00:00.000Z';

function database(id: string): ServiceRecord {
  return {
    id,
    projectId: 'p',
    name: id,
    slug: id,
    kind: 'database',
    repoFullName: null,
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
    internalPort: 6379,
    hostPort: null,
    databaseEngine: 'redis',
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
    createdAt: NOW,
    volumes: [],
    files: [],
    deployStrategy: 'rolling',
    releaseCommand: null,
    releaseTimeoutSeconds: null,
    replicas: 1,
    placement: {},
    nodeId: null,
    updatedAt: NOW,
  };
}

describe('backup schedules: the minute task is armed only when something is scheduled', () => {
  let dir: string;
  let store: Store;
  let scheduler: BackupScheduler;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'berth-schedule-'));
    store = await openDataDir(dir);
    // the runner is never reached: the test arms and disarms, it runs no due slot
    scheduler = new BackupScheduler(store, {} as BackupRunner, () => {}, {} as ScheduleLimits);
  });
  afterEach(async () => {
    scheduler.stop();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stays unarmed with no automatic backups, arms once one is saved, and disarms on stop', async () => {
    scheduler.start();
    await scheduler.armWhenScheduled();
    expect(scheduler.armed).to.equal(false);
    await store.projects.insert({ id: 'p', name: 'p', slug: 'p', description: '', createdAt: NOW, updatedAt: NOW });
    await store.services.insert(database('db'), []);
    await store.backups.putSettings({
      serviceId: 'db',
      volume: null,
      storage: 'disk',
      automaticEnabled: true,
      dailyEnabled: true,
      weeklyEnabled: false,
      monthlyEnabled: false,
      keepDaily: 7,
      keepWeekly: 4,
      keepMonthly: 12,
      verifySchedule: null,
      gfs: null,
      createdAt: NOW,
      updatedAt: NOW,
    });
    await scheduler.armWhenScheduled();
    expect(scheduler.armed).to.equal(true);
    scheduler.stop();
    expect(scheduler.armed).to.equal(false);
    await scheduler.armWhenScheduled();
    expect(scheduler.armed, 'a stopped scheduler stays stopped').to.equal(false);
  });
});
