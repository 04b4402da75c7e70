// Limits on deployment work that keep one tenant from holding the server's build slots: how long
// a build, an image pull and a git clone may take (wall clock), and how many deployments one
// project may have queued at once. System settings (an all-projects write key changes them),
// stored as plain strings in the settings table; a missing or unreadable value means the default.
// The deployment engine reads them when a step starts, so a change applies to the next step.
import { InvalidInput } from './errors.js';
import type { SettingsRepo } from './ports/store.js';

export interface DeployLimits {
  /** Wall-clock seconds one image build may take; over it the build is stopped and the deployment fails. */
  buildTimeoutSeconds: number;
  /** Wall-clock seconds pulling one image may take. */
  pullTimeoutSeconds: number;
  /** Wall-clock seconds one checkout (clone, and the fetch of a pushed commit) may take. */
  cloneTimeoutSeconds: number;
  /** Deployments one project may have waiting in the queue; one more is refused (429). */
  maxQueuedPerProject: number;
}

export type DeployLimitName = keyof DeployLimits;

interface Bound {
  min: number;
  max: number;
  default: number;
}

const DAY = 86_400;

/** Bounds and defaults. The clone default can come from BERTH_CLONE_TIMEOUT (see DeployLimitSettings). */
const DEPLOY_LIMIT_BOUNDS: Readonly<Record<DeployLimitName, Bound>> = {
  buildTimeoutSeconds: { min: 5, max: DAY, default: 30 * 60 },
  pullTimeoutSeconds: { min: 5, max: DAY, default: 10 * 60 },
  cloneTimeoutSeconds: { min: 5, max: DAY, default: 10 * 60 },
  maxQueuedPerProject: { min: 1, max: 1000, default: 20 },
};

export const DEPLOY_LIMIT_NAMES = Object.keys(DEPLOY_LIMIT_BOUNDS) as DeployLimitName[];

/** Which limits the settings table holds (the others are defaults): a log line names the right source. */
export interface DeployLimitsRead extends DeployLimits {
  stored: ReadonlySet<DeployLimitName>;
}

/** A patch: a number sets a limit, null returns it to its default. */
export type DeployLimitsPatch = { [K in DeployLimitName]?: number | null | undefined };

export class DeployLimitSettings {
  private defaults: DeployLimits;

  constructor(
    private settings: SettingsRepo,
    /** Defaults the daemon's configuration gives (BERTH_CLONE_TIMEOUT); the bounds' defaults otherwise. */
    overrides: Partial<DeployLimits> = {},
  ) {
    this.defaults = Object.fromEntries(DEPLOY_LIMIT_NAMES.map((n) => [n, overrides[n] ?? DEPLOY_LIMIT_BOUNDS[n].default])) as unknown as DeployLimits;
  }

  async read(): Promise<DeployLimitsRead> {
    const stored = new Set<DeployLimitName>();
    const values = { ...this.defaults };
    for (const name of DEPLOY_LIMIT_NAMES) {
      const raw = await this.settings.get(name);
      const value = raw === null ? NaN : Number(raw);
      const { min, max } = DEPLOY_LIMIT_BOUNDS[name];
      if (Number.isInteger(value) && value >= min && value <= max) {
        values[name] = value;
        stored.add(name);
      }
    }
    return { ...values, stored };
  }

  /** Checks a patch whole and returns the writes (null: delete the stored value); throws InvalidInput for any value out of bounds. */
  writes(patch: DeployLimitsPatch): [DeployLimitName, string | null][] {
    const out: [DeployLimitName, string | null][] = [];
    for (const name of DEPLOY_LIMIT_NAMES) {
      const value = patch[name];
      if (value === undefined) continue;
      if (value === null) {
        out.push([name, null]);
        continue;
      }
      const { min, max } = DEPLOY_LIMIT_BOUNDS[name];
      if (!Number.isInteger(value) || value < min || value > max) {
        const unit = name === 'maxQueuedPerProject' ? 'deployments' : `seconds (${describeSeconds(min)} to ${describeSeconds(max)})`;
        throw new InvalidInput(`${name} must be a whole number from ${min} to ${max} ${unit}; null returns it to the default`);
      }
      out.push([name, String(value)]);
    }
    return out;
  }
}

/** `5 s`, `90 s`, `30 min`, `2 h`, `1 h 30 min`: for log lines and messages. */
export function describeSeconds(seconds: number): string {
  if (seconds < 120 && seconds % 60 !== 0) return `${seconds} s`;
  if (seconds < 3600) return seconds % 60 === 0 ? `${seconds / 60} min` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  const h = Math.floor(seconds / 3600);
  const min = Math.round((seconds % 3600) / 60);
  return min === 0 ? `${h} h` : `${h} h ${min} min`;
}
