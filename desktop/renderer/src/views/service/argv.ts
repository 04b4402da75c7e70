// A command line typed in the console as the argv the API takes (Berth never hands a shell a
// string): the rules are shared/command-line.ts's; here an empty line is an error too, since a job
// or a command needs at least its program.
import { joinCommandLine, splitCommandLine } from '../../../../../shared/command-line.js';

export type SplitResult = { ok: true; argv: string[] } | { ok: false; error: string };

export function splitArgv(line: string): SplitResult {
  const split = splitCommandLine(line);
  if ('error' in split) return { ok: false, error: `the line ${split.error}` };
  if (split.argv.length === 0) return { ok: false, error: 'type a command' };
  return { ok: true, argv: split.argv };
}

/** An argv as a line splitArgv reads back the same (for editing a saved command, and for showing one). */
export const joinArgv = joinCommandLine;
