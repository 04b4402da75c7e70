// core/audit.ts on its own: a store that refuses a write never fails the caller (the failure is
// logged with the number of entries lost); entries wait for their target; the queue is bounded (the
// entries dropped past it are counted in the log); a detail loses what looks like a credential.
import { expect } from 'chai';
import { AuditLog, type AuditCall } from '../../daemon/core/audit.js';
import type { AuditDraft, AuditRepo } from '../../daemon/core/ports/audit-repo.js';
import type { Store } from '../../daemon/core/ports/store.js';
import type { DaemonEvent } from '../../shared/events.js';

const call: AuditCall = {
  actor: { kind: 'key', keyId: 'k1', keyName: 'ci' },
  clientAddress: '203.0.113.9',
  method: 'POST',
  route: 'projects.create',
  path: '/api/projects',
  detail: null,
  status: 200,
  outcome: 'ok',
  errorCode: null,
  durationMs: 3,
};

function memoryRepo(fail = false): AuditRepo & { rows: AuditDraft[] } {
  const rows: AuditDraft[] = [];
  return {
    rows,
    async insert(entries) {
      if (fail) throw new Error('SQLITE_FULL: database or disk is full');
      const first = rows.length + 1;
      rows.push(...entries);
      return entries.map((_e, i) => String(first + i));
    },
    async page() {
      return [];
    },
    async pruneBefore() {
      return 0;
    },
    async pruneToRows() {
      return 0;
    },
  };
}

function auditLog(repo: AuditRepo) {
  const logged: string[] = [];
  const events: DaemonEvent[] = [];
  const log = new AuditLog({
    repo,
    store: {} as Pick<Store, 'projects' | 'services' | 'deployments' | 'settings'>,
    clock: { now: () => '2030-01-01T00:00:00.000Z' },
    events: { publish: (e) => events.push(e) },
    log: (m) => logged.push(m),
    maxRows: 1000,
  });
  return { log, logged, events };
}

describe('the audit log use case (core/audit.ts)', () => {
  it('writes queued entries in one batch with their targets and the clock time, and publishes one event per batch', async () => {
    const repo = memoryRepo();
    const { log, events } = auditLog(repo);
    log.record(call, Promise.resolve({ projectId: 'p1', serviceId: null }));
    log.record({ ...call, route: 'services.create' }, { projectId: 'p1', serviceId: 's1' });
    expect(repo.rows).to.have.length(0); // not on the caller's path
    await log.flush();
    expect(repo.rows.map((r) => [r.route, r.projectId, r.serviceId, r.at])).to.deep.equal([
      ['projects.create', 'p1', null, '2030-01-01T00:00:00.000Z'],
      ['services.create', 'p1', 's1', '2030-01-01T00:00:00.000Z'],
    ]);
    expect(events).to.deep.equal([{ type: 'audit', allProjects: true, data: { entryId: '2', route: 'services.create', outcome: 'ok', count: 2 } }]);
  });

  it('never rejects when the store refuses a write: the loss is logged with its size', async () => {
    const { log, logged } = auditLog(memoryRepo(true));
    log.record(call);
    log.record(call);
    await log.flush(); // resolves
    expect(logged).to.deep.equal(['audit log: 2 entries could not be recorded']);
  });

  it('writes by itself a moment later (no flush asked for)', async () => {
    const repo = memoryRepo();
    const { log } = auditLog(repo);
    log.record(call);
    await new Promise((r) => setTimeout(r, 150));
    expect(repo.rows).to.have.length(1);
  });

  it('redacts credentials in a detail (an exec command)', async () => {
    const repo = memoryRepo();
    const { log } = auditLog(repo);
    log.record({ ...call, route: 'exec.start', detail: 'psql postgres://app:hunter2@db/app -c "select 1" PGPASSWORD=topsecret' });
    await log.flush();
    expect(repo.rows[0]!.detail).to.not.include('hunter2').and.not.include('topsecret');
    expect(repo.rows[0]!.detail).to.include('psql');
  });

  it('bounds the queue: past 20,000 waiting entries new ones are dropped and counted in the log', async () => {
    const repo = memoryRepo();
    const { log, logged } = auditLog(repo);
    for (let i = 0; i < 20_005; i++) log.record(call);
    await log.flush();
    expect(repo.rows).to.have.length(20_000);
    expect(logged).to.deep.equal(['audit log: 5 entries were dropped: more than 20000 waited for the store']);
  });
});
