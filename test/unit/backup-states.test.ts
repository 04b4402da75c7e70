import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BACKUP_STATUSES,
  BACKUP_TRANSITIONS,
  IllegalBackupTransition,
  INITIAL_STATUS,
  beyondRetention,
  defaultSettings,
  isFinal,
  lastSlot,
  predecessorsOf,
  recordBackupStatus,
  recordImportStatus,
  requireDeletable,
  requireDownloadable,
  requireImportTarget,
  requireRestorable,
  requireStorageAvailable,
  roomCandidate,
  slotTaken,
  transition,
} from '../../daemon/core/backup-states.js';
import { Conflict, InvalidInput } from '../../daemon/core/errors.js';
import type { BackupRecord, BackupStatus, ImportRecord } from '../../daemon/core/ports/backups-repo.js';
import type { ServiceRecord } from '../../daemon/core/records.js';
import type { Store } from '../../daemon/core/ports/store.js';
import { openDataDir } from '../../daemon/runtime.js';

const NOW = '2026-01-01T00:00:00.000Z';
// The moves the backup code makes (a job ends; start-up recovery fails what a crash left running),
// written out once more here on purpose: the table must say exactly this.
const ALLOWED: [BackupStatus, BackupStatus][] = [
  ['running', 'succeeded'],
  ['running', 'failed'],
];
const ALL: BackupStatus[] = ['running', 'succeeded', 'failed'];

function service(id: string): ServiceRecord {
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
    internalPort: 5432,
    hostPort: null,
    databaseEngine: 'postgres',
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

function backup(id: string, status: BackupStatus, trigger: BackupRecord['trigger'] = 'manual', createdAt = NOW): BackupRecord {
  return {
    id,
    serviceId: 's',
    volume: null,
    engine: 'postgres',
    status,
    trigger,
    storage: 'disk',
    format: 'pg_dump',
    localPath: null,
    remoteKey: null,
    sizeBytes: 0,
    checksum: '',
    error: null,
    createdAt,
    startedAt: createdAt,
    finishedAt: null,
    verification: null,
  };
}

function dataImport(id: string, status: BackupStatus): ImportRecord {
  return {
    id,
    serviceId: 's',
    engine: 'postgres',
    source: 'postgres-url',
    sourceLabel: 'postgres://db',
    status,
    error: null,
    log: [],
    createdAt: NOW,
    startedAt: NOW,
    finishedAt: null,
  };
}

describe('backup state table', () => {
  it('knows every backup status and starts at running', () => {
    expect([...BACKUP_STATUSES].sort()).to.deep.equal([...ALL].sort());
    expect(INITIAL_STATUS).to.equal('running');
  });

  it('accepts running -> succeeded | failed and refuses every other move with a 409 illegal_transition', () => {
    for (const [from, to] of ALLOWED) expect(transition(from, to)).to.equal(to);
    let refused = 0;
    for (const from of ALL) {
      for (const to of ALL) {
        if (ALLOWED.some(([f, t]) => f === from && t === to)) continue;
        let caught: unknown = null;
        try {
          transition(from, to, 'backup b-1');
        } catch (err) {
          caught = err;
        }
        expect(caught, `${from} -> ${to}`).to.be.instanceOf(IllegalBackupTransition).and.instanceOf(Conflict);
        const err = caught as IllegalBackupTransition;
        expect([err.from, err.to, err.code, err.status, err.message]).to.deep.equal([from, to, 'illegal_transition', 409, `backup b-1 is ${from}; it cannot become ${to}`]);
        refused++;
      }
    }
    expect(refused).to.equal(ALL.length * ALL.length - ALLOWED.length);
  });

  it('keeps succeeded and failed final, and names running as the one predecessor', () => {
    expect(isFinal('succeeded')).to.equal(true);
    expect(isFinal('failed')).to.equal(true);
    expect(isFinal('running')).to.equal(false);
    expect(BACKUP_TRANSITIONS.succeeded).to.deep.equal([]);
    expect(predecessorsOf('succeeded')).to.deep.equal(['running']);
    expect(predecessorsOf('failed')).to.deep.equal(['running']);
    expect(predecessorsOf('running')).to.deep.equal([]);
  });

  it('restores and downloads only a succeeded backup, deletes anything but a running one', () => {
    expect(() => requireRestorable(backup('a', 'succeeded'))).not.to.throw();
    expect(() => requireRestorable(backup('a', 'failed'))).to.throw(Conflict, 'only a succeeded backup can be restored');
    expect(() => requireRestorable(backup('a', 'running'))).to.throw(Conflict);
    expect(() => requireDownloadable(backup('a', 'succeeded'))).not.to.throw();
    expect(() => requireDownloadable(backup('a', 'running'))).to.throw(Conflict, 'there is no file to download');
    expect(() => requireDeletable(backup('a', 'running'))).to.throw(Conflict, 'the backup is still running');
    expect(() => requireDeletable(backup('a', 'failed'))).not.to.throw();
    expect(() => requireDeletable(backup('a', 'succeeded'))).not.to.throw();
  });

  it('asks for remote storage for anything but disk, and imports only into a matching engine', () => {
    expect(() => requireStorageAvailable('disk', false)).not.to.throw();
    expect(() => requireStorageAvailable('remote', false)).to.throw(InvalidInput);
    expect(() => requireStorageAvailable('disk+remote', false)).to.throw(InvalidInput);
    expect(() => requireStorageAvailable('remote', true)).not.to.throw();
    expect(() => requireImportTarget('postgres-url', 'postgres')).not.to.throw();
    expect(() => requireImportTarget('postgres-url', 'timescale')).not.to.throw();
    expect(() => requireImportTarget('postgres-url', 'redis')).to.throw(InvalidInput, 'postgres-url imports into postgres or timescale services; this one runs redis');
    expect(() => requireImportTarget('redis-url', 'redis')).not.to.throw();
    expect(() => requireImportTarget('redis-url', 'mysql')).to.throw(InvalidInput);
  });

  it('keeps the newest N succeeded backups of each schedule and makes room without removing the last one', () => {
    const settings = { ...defaultSettings(service('s')), keepDaily: 2 };
    // newest first, as the repository lists them
    const history = [backup('d4', 'succeeded', 'daily'), backup('d3', 'failed', 'daily'), backup('d2', 'succeeded', 'daily'), backup('m1', 'succeeded', 'manual'), backup('d1', 'succeeded', 'daily')];
    expect(beyondRetention(settings, history).map((b) => b.id)).to.deep.equal(['d1']);
    expect(roomCandidate(history, 'daily')?.id).to.equal('d1');
    expect(roomCandidate([backup('w1', 'succeeded', 'weekly')], 'weekly')).to.equal(null);
  });

  it('places slots at 03:00 UTC and counts a slot taken once a backup of its schedule started since', () => {
    expect(lastSlot('daily', new Date('2026-03-04T02:00:00Z')).toISOString()).to.equal('2026-03-03T03:00:00.000Z');
    expect(lastSlot('weekly', new Date('2026-03-04T12:00:00Z')).toISOString()).to.equal('2026-03-01T03:00:00.000Z');
    expect(lastSlot('monthly', new Date('2026-03-01T01:00:00Z')).toISOString()).to.equal('2026-02-01T03:00:00.000Z');
    const now = new Date('2026-03-04T12:00:00Z');
    expect(slotTaken([backup('a', 'failed', 'daily', '2026-03-04T03:00:00.000Z')], 'daily', now)).to.equal(true);
    expect(slotTaken([backup('a', 'succeeded', 'daily', '2026-03-04T02:59:00.000Z')], 'daily', now)).to.equal(false);
  });
});

describe('backup and import status writes (real SQLite)', () => {
  let dir: string;
  let store: Store;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'berth-backup-states-'));
    store = await openDataDir(dir);
    await store.projects.insert({ id: 'p', name: 'p', slug: 'p', description: '', createdAt: NOW, updatedAt: NOW });
    await store.services.insert(service('s'), []);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a job ending after start-up recovery failed its backup changes nothing', async () => {
    await store.backups.insert(backup('b', 'running'));
    expect(await recordBackupStatus(store.backups, 'b', 'failed', { error: 'the daemon stopped', finishedAt: NOW })).to.include({ status: 'failed' });
    let caught: unknown = null;
    try {
      await recordBackupStatus(store.backups, 'b', 'succeeded', { sizeBytes: 10, checksum: 'x' });
    } catch (err) {
      caught = err;
    }
    expect(caught).to.be.instanceOf(IllegalBackupTransition);
    expect(await store.backups.get('b')).to.include({ status: 'failed', error: 'the daemon stopped', sizeBytes: 0, checksum: '' });
  });

  it('the conditional write refuses a record that is no longer running, even when the read saw it running', async () => {
    await store.backups.insert(backup('b', 'running'));
    // another writer ends it between the read and the write
    const racing = {
      get: (id: string) => store.backups.get(id),
      setStatus: async (...args: Parameters<Store['backups']['setStatus']>) => {
        await store.backups.setStatus('b', 'failed', ['running'], { error: 'first' });
        return store.backups.setStatus(...args);
      },
    };
    let caught: unknown = null;
    try {
      await recordBackupStatus(racing, 'b', 'succeeded', {});
    } catch (err) {
      caught = err;
    }
    expect(caught).to.be.instanceOf(IllegalBackupTransition);
    expect(await store.backups.get('b')).to.include({ status: 'failed', error: 'first' });
  });

  it('an import moves from running to succeeded once, and a missing record answers null', async () => {
    await store.backups.insertImport(dataImport('i', 'running'));
    expect(await recordImportStatus(store.backups, 'i', 'succeeded', { log: ['done'], finishedAt: NOW })).to.include({ status: 'succeeded' });
    expect(await store.backups.getImport('i')).to.deep.include({ status: 'succeeded', log: ['done'] });
    let caught: unknown = null;
    try {
      await recordImportStatus(store.backups, 'i', 'failed', {});
    } catch (err) {
      caught = err;
    }
    expect(caught).to.be.instanceOf(IllegalBackupTransition);
    expect(await recordBackupStatus(store.backups, 'gone', 'failed', {})).to.equal(null);
  });
});
