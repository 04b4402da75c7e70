// Where the CLI writes: data to stdout (a table or text for people, one JSON object per line with
// --json), messages to stderr (silenced by --quiet, coloured unless NO_COLOR or not a TTY).
// Everything written goes through terminal-text.ts first: text from the server never reaches the
// terminal with its control characters live; colours are added after that, so they stay.
import pc from 'picocolors';
import { jsonLine, terminalSafe } from './terminal-text.js';

export interface OutputOptions {
  json: boolean;
  quiet: boolean;
}

type Colors = ReturnType<typeof pc.createColors>;

export class Output {
  readonly json: boolean;
  readonly quiet: boolean;
  /** Colours for stderr (picocolors honours NO_COLOR / FORCE_COLOR; a non-TTY gets none). */
  readonly c: Colors;
  private progressShown = false;

  constructor(
    opts: OutputOptions,
    private readonly stdout: NodeJS.WriteStream = process.stdout,
    private readonly stderr: NodeJS.WriteStream = process.stderr,
  ) {
    this.json = opts.json;
    this.quiet = opts.quiet;
    this.c = pc.createColors(pc.isColorSupported && Boolean(stderr.isTTY));
  }

  /** A progress line can be redrawn in place: stderr is a terminal and nobody asked for quiet or JSON. */
  get interactive(): boolean {
    return Boolean(this.stderr.isTTY) && !this.quiet && !this.json;
  }

  /** One result: the JSON object with --json, else the text `human` returns (nothing when it returns ''). */
  result(value: unknown, human: () => string): void {
    if (this.json) return this.event(value);
    const text = human();
    if (text !== '') this.line(text.endsWith('\n') ? text.slice(0, -1) : text);
  }

  /** A line of data on stdout (control characters shown escaped), keeping a progress line below it. */
  line(text: string): void {
    this.clearProgress();
    this.stdout.write(terminalSafe(text) + '\n');
  }

  /** A line of a remote command's stderr (data, shown even with --quiet; control characters escaped). */
  stderrLine(text: string): void {
    this.message(terminalSafe(text));
  }

  /** One object of a stream (--json) as one line. */
  event(value: unknown): void {
    this.clearProgress();
    this.stdout.write(jsonLine(value) + '\n');
  }

  /** A message for people (stderr), unless --quiet. */
  info(text: string): void {
    if (this.quiet) return;
    this.message(terminalSafe(text));
  }

  success(text: string): void {
    if (this.quiet) return;
    this.message(this.c.green(terminalSafe(text)));
  }

  warn(text: string): void {
    this.message(this.c.yellow(`berth: ${terminalSafe(text)}`));
  }

  /** Errors are shown even with --quiet. */
  error(text: string): void {
    this.message(this.c.red(`berth: ${terminalSafe(text)}`));
  }

  /** Redraws the one progress line at the bottom of a terminal (a no-op elsewhere). */
  progress(text: string): void {
    if (!this.interactive) return;
    const width = (this.stderr.columns || 80) - 1;
    const safe = terminalSafe(text, true);
    this.stderr.write(`\r\x1b[K${this.c.dim(safe.length > width ? safe.slice(0, width) : safe)}`);
    this.progressShown = true;
  }

  /** `text` is already safe (and maybe coloured by us). */
  private message(text: string): void {
    this.clearProgress();
    this.stderr.write(text + '\n');
  }

  clearProgress(): void {
    if (!this.progressShown) return;
    this.stderr.write('\r\x1b[K');
    this.progressShown = false;
  }
}

/** Aligned columns for people; cells are stringified, null shows as '-', a cell's control characters (newlines too) show escaped. */
export function table(headers: string[], rows: unknown[][]): string {
  const cell = (v: unknown) => terminalSafe(v === null || v === undefined ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v), true);
  const cells = [headers, ...rows.map((r) => r.map(cell))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells.map((r) => r.map((v, i) => (i === r.length - 1 ? v : v.padEnd(widths[i]!))).join('  ')).join('\n');
}
