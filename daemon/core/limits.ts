// Resource limits of the containers Berth runs, so one tenant cannot exhaust the host: memory (MiB,
// no swap beyond it), CPUs (fractions of a core) and processes (PIDs, which stops fork bombs). A
// service stores only what it overrides (null = the server's default for its kind); the server's
// defaults and maxima come from the configuration (BERTH_DEFAULT_* / BERTH_MAX_*). Keys over all
// projects may go past the maxima (they belong to the server's administrator); selected-projects
// keys may not. Pure: no store, no Docker.
import type { ServiceLimits, ServiceLimitsInput } from '../../shared/types.js';
import type { Access } from './access.js';
import { InvalidInput } from './errors.js';
import type { ServiceRecord } from './records.js';

export type LimitValues = ServiceLimits;

export interface LimitPolicy {
  /** Defaults of apps, workers, static sites and image services. */
  app: LimitValues;
  /** Defaults of database services. */
  database: LimitValues;
  /** The most a selected-projects key may set. */
  max: LimitValues;
  /** Docker refuses more CPUs than the host has, whoever asks. */
  hostCpus: number;
}

/** A request's `limits`: a number sets a field, null goes back to the default, absent keeps it. */
export type LimitsInput = ServiceLimitsInput;

export type LimitOverrides = Pick<ServiceRecord, 'memoryLimitMb' | 'cpuLimit' | 'pidsLimit'>;

/** Below these a container cannot start its own entrypoint. */
const FLOOR: LimitValues = { memoryMb: 32, cpus: 0.01, pids: 16 };
/** Sanity bounds for any key: 1 TiB, the kernel's pid_max ceiling. */
const CEILING = { memoryMb: 1024 * 1024, pids: 4_194_304 };

export function effectiveLimits(policy: LimitPolicy, s: Pick<ServiceRecord, 'kind' | 'memoryLimitMb' | 'cpuLimit' | 'pidsLimit'>): LimitValues {
  const defaults = s.kind === 'database' ? policy.database : policy.app;
  return { memoryMb: s.memoryLimitMb ?? defaults.memoryMb, cpus: s.cpuLimit ?? defaults.cpus, pids: s.pidsLimit ?? defaults.pids };
}

/** Checks a request's limits against the floors, the host and (for selected-projects keys) the server's maxima. */
export function checkLimits(access: Access, policy: LimitPolicy, input: LimitsInput): Partial<LimitOverrides> {
  const out: Partial<LimitOverrides> = {};
  const overMax = (field: keyof LimitValues, value: number, unit: string) => {
    if (!access.allProjects && value > policy.max[field]) {
      throw new InvalidInput(`limits.${field} may be at most ${policy.max[field]}${unit} on this server (BERTH_MAX_${MAX_VARIABLE[field]})`, 'limit_exceeded');
    }
  };
  if (input.memoryMb !== undefined) {
    const v = input.memoryMb;
    if (v !== null) {
      if (!Number.isInteger(v) || v < FLOOR.memoryMb || v > CEILING.memoryMb) throw new InvalidInput(`limits.memoryMb must be a whole number of MiB from ${FLOOR.memoryMb} to ${CEILING.memoryMb}`);
      overMax('memoryMb', v, ' MiB');
    }
    out.memoryLimitMb = v;
  }
  if (input.cpus !== undefined) {
    const v = input.cpus;
    if (v !== null) {
      if (!Number.isFinite(v) || v < FLOOR.cpus || v > policy.hostCpus || Math.round(v * 100) / 100 !== v) {
        throw new InvalidInput(`limits.cpus must be from ${FLOOR.cpus} to ${policy.hostCpus} (the host's CPUs), in steps of 0.01`);
      }
      overMax('cpus', v, '');
    }
    out.cpuLimit = v;
  }
  if (input.pids !== undefined) {
    const v = input.pids;
    if (v !== null) {
      if (!Number.isInteger(v) || v < FLOOR.pids || v > CEILING.pids) throw new InvalidInput(`limits.pids must be a whole number from ${FLOOR.pids} to ${CEILING.pids}`);
      overMax('pids', v, '');
    }
    out.pidsLimit = v;
  }
  return out;
}

const MAX_VARIABLE: Record<keyof LimitValues, string> = { memoryMb: 'MEMORY_MB', cpus: 'CPUS', pids: 'PIDS' };
