// Durations and times on the command line: `90` (seconds), `90s`, `10m`, `2h`, `1d`; --since
// also takes an ISO 8601 timestamp.
import { InvalidArgumentError } from 'commander';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds; throws commander's InvalidArgumentError (exit 2) on anything else. */
export function parseDuration(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(value.trim());
  if (!m) throw new InvalidArgumentError('expected a duration such as 90, 90s, 10m or 2h');
  return Math.round(Number(m[1]) * UNITS[m[2] ?? 's']!);
}

/** An instant: now minus a duration, or an ISO timestamp. */
export function parseSince(value: string, now = Date.now()): Date {
  if (/^\d+(?:\.\d+)?(ms|s|m|h|d)$/.test(value.trim())) return new Date(now - parseDuration(value));
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw new InvalidArgumentError('expected a duration (10m, 2h) or an ISO timestamp');
  return new Date(t);
}

export function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number');
  return n;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
