// How much each project volume holds, from the Engine's `GET /system/df`. That call measures every
// volume on the host and can take seconds, so no request waits for it: a lookup answers from the
// last measure and, when that is older than a minute, starts one new measure in the background.
import type Docker from 'dockerode';
import type { VolumeSizes } from '../core/ports/volume-sizes.js';
import type { Labels, Ownership } from './labels.js';
import { projectVolumeName } from './volumes.js';

const MAX_AGE_MS = 60_000;

interface DfVolume {
  Name: string;
  Labels?: Labels | null;
  UsageData?: { Size?: number } | null;
}

export class DockerVolumeSizes implements VolumeSizes {
  private sizes = new Map<string, number>();
  private measuredAt = 0;
  private measuring = false;

  constructor(
    private docker: Docker,
    private own: Ownership,
    private log: (message: string, err?: unknown) => void,
    private maxAgeMs = MAX_AGE_MS,
  ) {}

  sizeOf(projectId: string, name: string): number | null {
    this.refreshWhenStale();
    return this.sizes.get(projectVolumeName(projectId, name)) ?? null;
  }

  private refreshWhenStale(): void {
    if (this.measuring || Date.now() - this.measuredAt < this.maxAgeMs) return;
    this.measuring = true;
    this.measuredAt = Date.now();
    void this.measure()
      .catch((err: unknown) => this.log('measuring volume sizes (GET /system/df)', err))
      .finally(() => {
        this.measuring = false;
      });
  }

  private async measure(): Promise<void> {
    const df = (await this.docker.df()) as { Volumes?: DfVolume[] | null };
    const sizes = new Map<string, number>();
    for (const v of df.Volumes ?? []) {
      const size = v.UsageData?.Size;
      // -1: the Engine has not measured it
      if (this.own.owns(v.Labels, {}) && typeof size === 'number' && size >= 0) sizes.set(v.Name, size);
    }
    this.sizes = sizes;
  }
}
