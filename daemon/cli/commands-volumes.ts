// volumes [list], volumes backup|backups|restore|download: a project's volumes and their backups.
import type { Command } from 'commander';
import { rm } from 'node:fs/promises';
import { BACKUP_STORAGES } from '../../shared/constants.js';
import type { BackupStorageKind } from '../../shared/types.js';
import { deadlineOf, storageOption, waitForJob } from './commands-db.js';
import { confirm } from './confirm.js';
import { parseDuration } from './durations.js';
import { saveDownload } from './save-download.js';
import { CliError, usageError } from './exit-codes.js';
import { table } from './output.js';
import { openSession } from './session.js';

/** Bytes in a unit people read (1024-based). */
export function sizeText(bytes: number | null): string {
  if (bytes === null) return '';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? v : v.toFixed(1)} ${units[u]}`;
}

export function registerVolumeCommands(program: Command): void {
  const volumes = program.command('volumes').description("a project's volumes and their backups");

  volumes
    .command('list', { isDefault: true })
    .description("the project's volumes (--project, or the linked one), with their size and service")
    .action(async (_o, cmd: Command) => {
      const s = openSession(cmd);
      const project = await s.scopeProject();
      if (!project) throw usageError('which project? pass --project or link one (berth link)');
      const { volumes: list } = await s.client.listVolumes(project.id);
      if (s.out.json) return list.forEach((v) => s.out.event(v));
      const name = (id: string | null) => (id === null ? '(kept, not mounted)' : (project.services.find((x) => x.id === id)?.slug ?? id));
      s.out.line(
        table(
          ['NAME', 'SERVICE', 'MOUNT', 'SIZE', 'CREATED'],
          list.map((v) => [v.name, name(v.serviceId), v.mountPath ?? '', sizeText(v.sizeBytes), v.createdAt]),
        ),
      );
    });

  volumes
    .command('backup')
    .description('back up a volume of a service (a tarball)')
    .argument('<service>')
    .argument('<volume>')
    .option('--storage <kind>', BACKUP_STORAGES.join(', '), storageOption, 'disk')
    .option('--wait', 'wait until the backup has finished; exit 1 when it failed')
    .option('--timeout <duration>', 'with --wait, give up after this long', parseDuration)
    .action(async (ref: string, volume: string, o: { storage: BackupStorageKind; wait?: boolean; timeout?: number }, cmd: Command) => {
      const s = openSession(cmd);
      const service = await s.service(ref);
      let { backup: b } = await s.client.createVolumeBackup(service.id, volume, o.storage);
      if (o.wait) {
        s.out.info(`backing up volume ${volume} of ${service.slug} (${b.id})...`);
        const id = b.id;
        b = await waitForJob(`backup ${id}`, async () => (await s.client.listVolumeBackups(service.id, volume)).backups.find((x) => x.id === id), deadlineOf(o.timeout));
      }
      s.out.result(b, () => b.id);
      if (b.status === 'failed') throw new CliError(`backup ${b.id} failed: ${b.error ?? 'unknown error'}`);
      s.out.success(o.wait ? `backup ${b.id} ${b.status} (${sizeText(b.sizeBytes)}, ${b.checksum})` : `backup ${b.id} started`);
    });

  volumes
    .command('backups')
    .description("a volume's backups, newest first")
    .argument('<service>')
    .argument('<volume>')
    .action(async (ref: string, volume: string, _o, cmd: Command) => {
      const s = openSession(cmd);
      const { backups } = await s.client.listVolumeBackups((await s.service(ref)).id, volume);
      if (s.out.json) return backups.forEach((b) => s.out.event(b));
      s.out.line(
        table(
          ['ID', 'STATUS', 'TRIGGER', 'STORAGE', 'SIZE', 'CREATED', 'ERROR'],
          backups.map((b) => [b.id, b.status, b.trigger, b.storage, sizeText(b.sizeBytes), b.createdAt, b.error ?? '']),
        ),
      );
    });

  volumes
    .command('restore')
    .description("replace a volume's contents with a backup; the service is stopped meanwhile (asks unless --yes)")
    .argument('<service>')
    .argument('<volume>')
    .argument('<backup>', 'backup id')
    .action(async (ref: string, volume: string, backupId: string, _o, cmd: Command) => {
      const s = openSession(cmd);
      const service = await s.service(ref);
      await confirm(s, `restore replaces everything in volume ${volume} of ${service.slug} with backup ${backupId}, stopping ${service.slug} meanwhile`, 'not restored');
      s.out.info(`restoring volume ${volume} of ${service.slug}; ${service.slug} is stopped until it is done...`);
      const res = await s.client.restoreVolumeBackup(service.id, volume, backupId);
      s.out.result(res, () => res.detail.join('\n'));
      s.out.success(`restored ${backupId} at ${res.restoredAt}`);
    });

  volumes
    .command('download')
    .description("a volume backup's tarball, checked against its checksum")
    .argument('<service>')
    .argument('<volume>')
    .argument('<backup>', 'backup id')
    .option('-o, --output <file>', 'where to write it (- for stdout; default: the name the server gives)')
    .action(async (ref: string, volume: string, backupId: string, o: { output?: string }, cmd: Command) => {
      if (o.output === '-' && process.stdout.isTTY) throw usageError('-o - writes the tarball to stdout, which is a terminal here: redirect it to a file or a pipe');
      const s = openSession(cmd);
      const res = await s.client.openVolumeBackupDownload((await s.service(ref)).id, volume, backupId);
      const expected = res.headers.get('x-berth-checksum');
      const saved = await saveDownload(res, o.output, `${backupId}.tar`);
      const { file } = saved;
      const actual = `sha256:${saved.sha256}`;
      if (expected && actual !== expected) {
        if (file !== '-') await rm(file, { force: true });
        throw new CliError(`the download does not match its checksum (${actual} instead of ${expected})${file !== '-' ? `; ${file} was removed` : ''}`);
      }
      if (file !== '-') {
        s.out.result({ file, backupId, checksum: actual }, () => '');
        s.out.success(`wrote ${file} (${actual})`);
      }
    });
}
