// How a backup's restore test reads, in the console and the CLI alike: "verified · 12 tables,
// 3,401 rows · <when>", "restore test failed: <why>", "restore test running", or nothing yet.
import type { BackupVerification } from './types.js';

const count = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** The verification in words; `when` formats its end time (the console: local time; the CLI: ISO). */
export function verificationText(v: BackupVerification | null, when: (iso: string) => string = (iso) => iso): string {
  if (!v) return 'not tested';
  if (v.status === 'running') return 'restore test running';
  if (v.status === 'failed') return `restore test failed: ${v.error ?? 'unknown error'}`;
  return `verified · ${count(v.tables ?? 0, 'table', 'tables')}, ${count(v.rows ?? 0, 'row', 'rows')}${v.finishedAt ? ` · ${when(v.finishedAt)}` : ''}`;
}
