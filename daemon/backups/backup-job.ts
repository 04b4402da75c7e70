// A backup's files: the dump written whole on disk (fsynced, renamed) and uploaded when asked, the
// file a restore reads (the local one or a fetched remote copy), a download, and removal from every
// storage. The end of a backup is written through core's state table (core/backup-states.ts).
import { createReadStream, existsSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../core/clock.js';
import { keepsLocalFile, recordBackupStatus } from '../core/backup-states.js';
import { Conflict } from '../core/errors.js';
import type { BackupDownload } from '../core/ports/backup-jobs.js';
import type { BackupRecord } from '../core/ports/backups-repo.js';
import type { RemoteStore } from '../core/ports/remote-store.js';
import type { Store } from '../core/ports/store.js';
import type { EngineBackupTool, ToolContext } from '../databases/backup-tool.js';
import { writeWhole } from './backup-file.js';
import { messageOf } from './job-parts.js';

export interface BackupFilesDeps {
  store: Store;
  clock: Clock;
  /** `<data dir>/backups`: one folder per service. */
  dir: string;
  /** The configured S3-compatible store, or null. */
  remote(): Promise<RemoteStore | null>;
  log(message: string, err?: unknown): void;
}

/**
 * Takes a backup recorded `running`: dumps it into its file, uploads it when a remote store is
 * given, and records `succeeded` (or `failed`, removing the partial file). `ended` is told the
 * status written.
 */
export async function runBackup(
  d: BackupFilesDeps,
  record: BackupRecord,
  tool: EngineBackupTool,
  ctx: ToolContext,
  remote: RemoteStore | null,
  ended: (status: 'succeeded' | 'failed') => void,
): Promise<void> {
  const path = join(d.dir, record.serviceId, `${record.id}.${tool.extension}`);
  try {
    const written = await writeWhole(path, (out) => tool.dump(ctx, out));
    let remoteKey: string | null = null;
    if (remote) {
      remoteKey = `${record.serviceId}/${record.id}.${tool.extension}`;
      await remote.upload(remoteKey, path, written.sizeBytes, ctx.signal);
    }
    const keepLocal = keepsLocalFile(record.storage);
    if (!keepLocal) await rm(path, { force: true });
    await recordBackupStatus(d.store.backups, record.id, 'succeeded', {
      localPath: keepLocal ? path : null,
      remoteKey,
      sizeBytes: written.sizeBytes,
      checksum: written.checksum,
      finishedAt: d.clock.now(),
    });
    ended('succeeded');
  } catch (err) {
    // the failure is recorded whatever the clean-up meets (the folder may be what failed)
    try {
      await recordBackupStatus(d.store.backups, record.id, 'failed', { error: messageOf(err), finishedAt: d.clock.now() });
    } finally {
      ended('failed');
    }
    await rm(path, { force: true }).catch((e: unknown) => d.log(`removing the file of failed backup ${record.id}`, e));
  }
}

/** The file to restore from: the local one, or the remote copy fetched into a temporary file. */
export async function localCopy(d: BackupFilesDeps, backup: BackupRecord, signal: AbortSignal): Promise<{ path: string; temporary: boolean }> {
  if (backup.localPath && existsSync(backup.localPath)) return { path: backup.localPath, temporary: false };
  const remote = backup.remoteKey ? await d.remote() : null;
  if (!remote || !backup.remoteKey) throw new Conflict('the backup file is gone from disk and there is no remote copy');
  const path = join(d.dir, backup.serviceId, `${backup.id}.restore`);
  const { body } = await remote.download(backup.remoteKey, signal);
  await writeWhole(path, async (out) => {
    for await (const chunk of body) if (!out.write(chunk)) await new Promise((r) => out.once('drain', r));
  });
  return { path, temporary: true };
}

/** A succeeded backup's file as a stream: from disk, else from its remote copy. */
export async function openDownload(d: BackupFilesDeps, backup: BackupRecord, filename: string): Promise<BackupDownload> {
  if (backup.localPath && existsSync(backup.localPath)) {
    return { body: createReadStream(backup.localPath), sizeBytes: (await stat(backup.localPath)).size, filename };
  }
  const remote = backup.remoteKey ? await d.remote() : null;
  if (!remote || !backup.remoteKey) throw new Conflict('the backup file is gone from disk and there is no remote copy');
  const { body, sizeBytes } = await remote.download(backup.remoteKey);
  return { body, sizeBytes: sizeBytes ?? backup.sizeBytes, filename };
}

/** Removes a backup's file from every storage it is in. */
export async function removeFiles(d: BackupFilesDeps, backup: BackupRecord): Promise<void> {
  if (backup.remoteKey) {
    const remote = await d.remote();
    if (!remote) throw new Conflict('the backup has a remote copy, but remote storage is no longer configured');
    await remote.delete(backup.remoteKey);
  }
  if (backup.localPath) await rm(backup.localPath, { force: true });
}

/** The name a download is offered under: `<service slug>-<created at>.<extension>`. */
export function downloadName(serviceSlug: string, backup: BackupRecord): string {
  const path = backup.localPath ?? backup.remoteKey ?? '';
  const dot = path.lastIndexOf('.');
  const ext = dot >= 0 ? path.slice(dot + 1) : 'backup';
  return `${serviceSlug}-${backup.createdAt.replace(/[:.]/g, '-')}.${ext}`;
}
