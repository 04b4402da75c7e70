// Asking before an operation that cannot be taken back: on a terminal a y/N question; without one,
// --yes is the only way to say yes (a script must say it on purpose).
import { createInterface } from 'node:readline/promises';
import { CliError, usageError } from './exit-codes.js';
import type { Session } from './session.js';

/** Resolves when the user said yes (or passed --yes); throws `declined` (exit 1) when they did not. */
export async function confirm(s: Session, question: string, declined: string): Promise<void> {
  if (s.opts.yes) return;
  if (!process.stdin.isTTY || !process.stderr.isTTY) throw usageError(`${question}: pass --yes to do it`);
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = (await rl.question(`${question}? [y/N] `)).trim().toLowerCase();
    if (answer !== 'y' && answer !== 'yes') throw new CliError(declined);
  } finally {
    rl.close();
  }
}
