// Output split into log lines with a cap on the line still being read: a container or build step
// that prints hundreds of MB without a newline must not grow one string until the daemon dies.
// A pending line that reaches MAX_LINE_CHARS is cut there and handed on as a line of its own.
import { StringDecoder } from 'node:string_decoder';
import { DockerFrameReader } from './stream-frames.js';

export const MAX_LINE_CHARS = 16_384;

export type OutputStream = 'stdout' | 'stderr';

export class CappedLineSplitter {
  private pending = '';
  private readonly breaks: RegExp;

  /** `bareCr`: a lone \r ends a line too (progress output of builds). */
  constructor(
    private readonly sink: (line: string) => void,
    opts: { bareCr?: boolean; max?: number } = {},
  ) {
    this.breaks = opts.bareCr ? /\r\n|\n|\r/g : /\r?\n/g;
    this.max = opts.max ?? MAX_LINE_CHARS;
  }

  private readonly max: number;

  push(text: string): void {
    if (text === '') return;
    const data = this.pending + text;
    this.breaks.lastIndex = 0;
    let start = 0;
    let m: RegExpExecArray | null;
    while ((m = this.breaks.exec(data)) !== null) {
      this.emitCut(data, start, m.index);
      start = m.index + m[0].length;
    }
    // what is left has no line break: cut it into lines of the cap, keep the rest pending
    let at = start;
    while (data.length - at >= this.max) at = this.emitPiece(data, at, at + this.max);
    this.pending = data.slice(at);
  }

  /** Hands on the pending line, if any (the output ended without a line break); the splitter can go on. */
  end(): void {
    if (this.pending !== '') this.sink(this.pending);
    this.pending = '';
  }

  private emitCut(data: string, from: number, to: number): void {
    let at = from;
    while (to - at > this.max) at = this.emitPiece(data, at, at + this.max);
    this.sink(data.slice(at, to));
  }

  /** Emits data[from, to) (one character less when that would split a surrogate pair); returns where it stopped. */
  private emitPiece(data: string, from: number, to: number): number {
    const code = data.charCodeAt(to - 1);
    const end = code >= 0xd800 && code <= 0xdbff ? to - 1 : to;
    this.sink(data.slice(from, end));
    return end;
  }
}

/**
 * Docker's multiplexed log stream (containers without a TTY, see stream-frames.ts) as lines.
 * Payload bytes are decoded as they arrive, per stream, so a UTF-8 sequence cut between frames
 * still decodes.
 */
export class DockerLogLines {
  private readonly frames: DockerFrameReader;
  private readonly decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
  private readonly splitters: Record<OutputStream, CappedLineSplitter>;

  constructor(onLine: (line: string, stream: OutputStream) => void) {
    this.splitters = {
      stdout: new CappedLineSplitter((line) => onLine(line, 'stdout')),
      stderr: new CappedLineSplitter((line) => onLine(line, 'stderr')),
    };
    this.frames = new DockerFrameReader((type, part) => {
      const stream = type === 2 ? 'stderr' : 'stdout';
      this.splitters[stream].push(this.decoders[stream].write(part));
    });
  }

  push(chunk: Buffer): void {
    this.frames.push(chunk);
  }

  end(): void {
    for (const stream of ['stdout', 'stderr'] as const) {
      this.splitters[stream].push(this.decoders[stream].end());
      this.splitters[stream].end();
    }
  }
}
