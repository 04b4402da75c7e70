// The server's free disk: new builds, deploys and backups are refused while the free space on
// Berth's data dir or Docker's data root is below a threshold (a setting, else the configuration's
// BERTH_DISK_MIN_FREE_MB), so a full disk does not take the store, the logs and every tenant's apps
// down with it. Keys over all projects see the volumes and the threshold and may change it;
// project keys see only whether new work is paused and why.
import type { DiskState, DiskVolume } from '../../shared/types.js';
import type { Access } from './access.js';
import type { Clock } from './clock.js';
import { Conflict, InvalidInput } from './errors.js';
import type { SettingsRepo } from './ports/store.js';
import type { DiskProbe } from './ports/disk-probe.js';

const DISK_MIN_FREE_SETTING = 'diskMinFreeBytes';
const MAX_THRESHOLD = 2 ** 50;

export class DiskSpace {
  constructor(
    private settings: SettingsRepo,
    private clock: Clock,
    private probe: DiskProbe,
    /** BERTH_DISK_MIN_FREE_MB, in bytes: used while no setting says otherwise. */
    private configuredMinFree: number,
  ) {}

  async state(access: Access): Promise<DiskState> {
    const { volumes, minFreeBytes, low } = await this.measure();
    const message = low ? lowMessage(low, minFreeBytes, access.allProjects) : null;
    if (!access.allProjects) return { low: low !== null, message };
    return { low: low !== null, message, minFreeBytes, volumes };
  }

  async patch(access: Access, input: { minFreeBytes: number | null }): Promise<DiskState> {
    access.requireWrite();
    access.requireAllProjects('changing the free disk threshold');
    const v = input.minFreeBytes;
    if (v === null) await this.settings.delete(DISK_MIN_FREE_SETTING);
    else {
      if (!Number.isSafeInteger(v) || v < 0 || v > MAX_THRESHOLD) throw new InvalidInput(`minFreeBytes must be a whole number of bytes from 0 to ${MAX_THRESHOLD}, or null for the server's default`);
      await this.settings.set(DISK_MIN_FREE_SETTING, String(v), this.clock.now());
    }
    return this.state(access);
  }

  /** Why new work must wait (a sentence for a log line or an error), or null while there is room. */
  async lowReason(what: string): Promise<string | null> {
    const { low, minFreeBytes } = await this.measure();
    return low ? `${what} refused: ${lowMessage(low, minFreeBytes, false)}` : null;
  }

  /** Refuses a request-driven job (a manual backup) while disk is low: 409 disk_low. */
  async requireRoom(what: string): Promise<void> {
    const reason = await this.lowReason(what);
    if (reason) throw new Conflict(reason, 'disk_low');
  }

  private async measure(): Promise<{ volumes: DiskVolume[]; minFreeBytes: number; low: DiskVolume | null }> {
    const stored = await this.settings.get(DISK_MIN_FREE_SETTING);
    const minFreeBytes = stored !== null && /^\d+$/.test(stored) ? Number(stored) : this.configuredMinFree;
    const volumes = await this.probe.volumes();
    return { volumes, minFreeBytes, low: volumes.find((v) => v.freeBytes < minFreeBytes) ?? null };
  }
}

function lowMessage(v: DiskVolume, minFreeBytes: number, withPath: boolean): string {
  const where = v.role === 'docker' ? "Docker's data root" : "Berth's data dir";
  return (
    `low disk: ${where}${withPath ? ` (${v.path})` : ''} has ${gib(v.freeBytes)} free, below the server's threshold of ${gib(minFreeBytes)}; ` +
    'new builds, deploys and backups are paused until space is freed (or the threshold is lowered by a key over all projects)'
  );
}

function gib(bytes: number): string {
  return `${(bytes / 2 ** 30).toFixed(2)} GiB`;
}
