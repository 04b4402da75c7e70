// At start-up: backups, imports and restore tests that a crash left `running` did not finish. They
// become `failed` with a reason, and partial files are removed (the restore tests' throwaway
// containers: compose.ts's recoverBackups).
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { recordBackupStatus, recordImportStatus, recordVerification } from '../core/backup-states.js';
import type { Clock } from '../core/clock.js';
import type { Store } from '../core/ports/store.js';
import { PARTIAL_SUFFIX } from './backup-file.js';

export async function recoverInterrupted(store: Store, clock: Clock, dir: string): Promise<void> {
  const reason = 'the daemon stopped while this was running; it did not finish';
  for (const b of await store.backups.listByStatus('running')) {
    await recordBackupStatus(store.backups, b.id, 'failed', { error: reason, finishedAt: clock.now() });
  }
  for (const b of await store.backups.listByVerification('running')) {
    if (b.verification) await recordVerification(store.backups, b.id, { ...b.verification, status: 'failed', finishedAt: clock.now(), error: reason });
  }
  for (const i of await store.backups.listImportsByStatus('running')) {
    await recordImportStatus(store.backups, i.id, 'failed', { error: reason, finishedAt: clock.now() });
  }
  for (const serviceDir of await readdir(dir).catch(() => [] as string[])) {
    for (const file of await readdir(join(dir, serviceDir)).catch(() => [] as string[])) {
      if (file.endsWith(PARTIAL_SUFFIX) || file.endsWith('.restore')) await rm(join(dir, serviceDir, file), { force: true });
    }
  }
}
