// A 5-field cron expression (minute hour day-of-month month day-of-week, UTC) read by core itself:
// the restore-test schedule is checked at the edge and matched by the backup scheduler against the
// clock it is given (a test drives it), minute by minute. Numbers, `*`, ranges, lists, steps, and
// the names of months and weekdays; 7 is Sunday too. Day-of-month and day-of-week both restricted:
// either may match (cron's rule).

const FIELDS = [
  { min: 0, max: 59, names: [] as string[] },
  { min: 0, max: 23, names: [] as string[] },
  { min: 1, max: 31, names: [] as string[] },
  { min: 1, max: 12, names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] },
  { min: 0, max: 7, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
] as const;

interface ParsedCron {
  sets: Set<number>[];
  /** Whether day-of-month and day-of-week were `*` (cron ORs them only when both are restricted). */
  anyDom: boolean;
  anyDow: boolean;
}

function value(text: string, field: (typeof FIELDS)[number]): number {
  const named = field.names.indexOf(text.toLowerCase() as never);
  const n = named >= 0 ? named + field.min : /^\d{1,2}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(n) || n < field.min || n > field.max) throw new Error(`${text} is out of range`);
  return n;
}

function parseField(text: string, field: (typeof FIELDS)[number]): Set<number> {
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const [range, stepText] = part.split('/');
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1 || !range) throw new Error(`bad step in ${part}`);
    let lo: number;
    let hi: number;
    if (range === '*') [lo, hi] = [field.min, field.max];
    else if (range.includes('-')) {
      const [a, b] = range.split('-');
      lo = value(a ?? '', field);
      hi = value(b ?? '', field);
      if (lo > hi) throw new Error(`bad range ${range}`);
    } else {
      lo = value(range, field);
      hi = stepText === undefined ? lo : field.max;
    }
    for (let n = lo; n <= hi; n += step) out.add(n);
  }
  return out;
}

/** The parsed expression, or null when it is not a valid 5-field cron expression. */
function parseCron(expression: string): ParsedCron | null {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== 5 || expression.length > 200) return null;
  try {
    const sets = parts.map((p, i) => parseField(p, FIELDS[i]!));
    if (sets[4]!.has(7)) sets[4]!.add(0);
    return { sets, anyDom: parts[2] === '*', anyDow: parts[4] === '*' };
  } catch {
    return null;
  }
}

export const validCron = (expression: string): boolean => parseCron(expression) !== null;

/** True when the expression fires in the UTC minute `at` falls in. */
export function cronMatches(expression: string, at: Date): boolean {
  const c = parseCron(expression);
  if (!c) return false;
  const [min, hour, dom, month, dow] = c.sets as [Set<number>, Set<number>, Set<number>, Set<number>, Set<number>];
  if (!min.has(at.getUTCMinutes()) || !hour.has(at.getUTCHours()) || !month.has(at.getUTCMonth() + 1)) return false;
  const domOk = dom.has(at.getUTCDate());
  const dowOk = dow.has(at.getUTCDay());
  if (c.anyDom || c.anyDow) return domOk && dowOk;
  return domOk || dowOk;
}
