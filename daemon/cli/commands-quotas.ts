// quotas (a project's quotas and usage; `quotas set` for a key over all projects) and
// `server disk` (whether new builds, deploys and backups are paused for lack of disk).
import type { Command } from 'commander';
import type { DiskState, ProjectQuotas, ProjectQuotasAnswer } from '../../shared/types.js';
import { CliError, EXIT, usageError } from './exit-codes.js';
import { table } from './output.js';
import { openSession } from './session.js';

const gib = (n: number) => `${(n / 1024 ** 3).toFixed(2)} GiB`;
const MiB = 1024 * 1024;

/** Parsed from `default` (commander keeps no null an option parser returns). */
const DEFAULT = -1;
const orNull = (v: number | undefined) => (v === DEFAULT ? null : v);

/** A whole number, or `default` (back to the server's default). */
function quotaValue(flag: string, scale = 1): (raw: string) => number {
  return (raw) => {
    if (raw === 'default') return DEFAULT;
    if (!/^[0-9]+$/.test(raw)) throw usageError(`${flag} must be a whole number or "default", got "${raw}"`);
    return Number(raw) * scale;
  };
}

function quotaTable(a: ProjectQuotasAnswer): string {
  const row = (name: string, used: string, limit: string, own: number | null) => [name, used, limit, own === null ? 'server default' : 'set for the project'];
  return table(
    ['QUOTA', 'USED', 'LIMIT', 'FROM'],
    [
      row('services', String(a.usage.services), String(a.quotas.maxServices), a.overrides.maxServices),
      row('backups', String(a.usage.backups), String(a.quotas.maxBackups), a.overrides.maxBackups),
      row('backup size', gib(a.usage.backupBytes), gib(a.quotas.maxBackupBytes), a.overrides.maxBackupBytes),
      row('images per service', '-', String(a.quotas.maxImagesPerService), a.overrides.maxImagesPerService),
    ],
  );
}

function diskLines(d: DiskState): string {
  const lines = [d.low ? `LOW DISK: ${d.message}` : 'disk ok: new builds, deploys and backups may start'];
  if (d.minFreeBytes !== undefined) lines.push(`threshold  ${gib(d.minFreeBytes)} free`);
  for (const v of d.volumes ?? []) lines.push(`${v.role.padEnd(10)} ${v.path}: ${gib(v.freeBytes)} free of ${gib(v.totalBytes)}`);
  return lines.join('\n');
}

export function registerQuotaCommands(program: Command): void {
  const quotas = program
    .command('quotas')
    .description("a project's quotas and usage (berth quotas [PROJECT]; berth quotas set PROJECT --max-services N ...)")
    .argument('[project]', 'project id, slug or name (default: --project or the linked one)')
    .action(async (ref: string | undefined, _o, cmd: Command) => {
      const s = openSession(cmd);
      const project = await s.project(ref);
      const answer = await s.client.projectQuotas(project.id);
      s.out.result({ project: project.slug, ...answer }, () => `project ${project.slug}\n${quotaTable(answer)}`);
    });

  quotas
    .command('set')
    .description('change a project\'s quotas (a write key over all projects); "default" goes back to the server\'s default')
    .argument('<project>', 'project id, slug or name')
    .option('--max-services <n>', 'services in the project', quotaValue('--max-services'))
    .option('--max-backups <n>', 'backups kept over all its databases', quotaValue('--max-backups'))
    .option('--max-backup-mb <n>', 'their total size, in MiB', quotaValue('--max-backup-mb', MiB))
    .option('--max-images <n>', 'images kept per service for rollbacks', quotaValue('--max-images'))
    .action(async (ref: string, o: { maxServices?: number; maxBackups?: number; maxBackupMb?: number; maxImages?: number }, cmd: Command) => {
      const s = openSession(cmd);
      const patch: Partial<ProjectQuotas> = {};
      if (o.maxServices !== undefined) patch.maxServices = orNull(o.maxServices);
      if (o.maxBackups !== undefined) patch.maxBackups = orNull(o.maxBackups);
      if (o.maxBackupMb !== undefined) patch.maxBackupBytes = orNull(o.maxBackupMb);
      if (o.maxImages !== undefined) patch.maxImagesPerService = orNull(o.maxImages);
      if (Object.keys(patch).length === 0) throw usageError('give at least one of --max-services, --max-backups, --max-backup-mb, --max-images');
      const project = await s.project(ref);
      const answer = await s.client.patchProjectQuotas(project.id, patch);
      s.out.result({ project: project.slug, ...answer }, () => `project ${project.slug}\n${quotaTable(answer)}`);
    });
}

/** `berth server disk` (the `server` group: commands-server.ts). */
export function registerServerDiskCommand(server: Command): void {
  server
    .command('disk')
    .description('free disk, the threshold, and whether new builds, deploys and backups are paused (exit 1 when they are)')
    .option('--min-free-mb <n>', 'set the threshold (a write key over all projects); "default" goes back to BERTH_DISK_MIN_FREE_MB', quotaValue('--min-free-mb', MiB))
    .action(async (o: { minFreeMb?: number }, cmd: Command) => {
      const s = openSession(cmd);
      const { disk } = o.minFreeMb !== undefined ? await s.client.patchSystemDisk({ minFreeBytes: orNull(o.minFreeMb) ?? null }) : await s.client.systemDisk();
      s.out.result(disk, () => diskLines(disk));
      if (disk.low) throw new CliError('new builds, deploys and backups are paused until disk space is freed', EXIT.failed);
    });
}
