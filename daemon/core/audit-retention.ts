// How long the audit log keeps its entries: a system setting (`auditRetentionDays`, 1 to 3650 days,
// default 90) in the settings table, changed through PATCH /api/system/settings; and a row cap
// (BERTH_AUDIT_MAX_ROWS, default 1,000,000) so that a flood of refused requests cannot grow the
// store without bound between two prunes.
import { InvalidInput } from './errors.js';
import type { SettingsRepo } from './ports/store.js';

const AUDIT_RETENTION_SETTING = 'auditRetentionDays';
const AUDIT_RETENTION_DAYS = { min: 1, max: 3650, default: 90 } as const;
export const AUDIT_MAX_ROWS_DEFAULT = 1_000_000;

/** The days in force (a missing or unreadable value: the default). */
export async function auditRetentionDays(settings: SettingsRepo): Promise<number> {
  const raw = await settings.get(AUDIT_RETENTION_SETTING);
  const value = raw === null ? NaN : Number(raw);
  return Number.isInteger(value) && value >= AUDIT_RETENTION_DAYS.min && value <= AUDIT_RETENTION_DAYS.max ? value : AUDIT_RETENTION_DAYS.default;
}

/** The settings write for a patch's value (null: back to the default); InvalidInput out of bounds. */
export function auditRetentionWrite(value: number | null): [string, string | null] {
  if (value === null) return [AUDIT_RETENTION_SETTING, null];
  const { min, max } = AUDIT_RETENTION_DAYS;
  if (!Number.isInteger(value) || value < min || value > max) throw new InvalidInput(`auditRetentionDays must be a whole number of days from ${min} to ${max}`);
  return [AUDIT_RETENTION_SETTING, String(value)];
}
