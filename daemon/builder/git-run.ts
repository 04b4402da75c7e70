// Running git for a checkout: its own process group (an abort kills the whole tree), stderr split
// into lines (progress updates told apart and throttled into the build log, every line redacted),
// and the clone directory's size watched while it writes.
import { spawn } from 'node:child_process';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { BuildError } from '../core/build-error.js';
import { MAX_LINE_CHARS } from '../docker/output-lines.js';

/** How often the clone's size on disk is measured while git runs. */
const SIZE_CHECK_INTERVAL_MS = 500;

/** What a git run stopped by the signal (an abort or the time limit) rejects with. */
export const CHECKOUT_ABORTED = 'checkout aborted';

/** Progress updates (lines ending in a bare \r) are forwarded at most this often. */
const PROGRESS_INTERVAL_MS = 2000;

/**
 * Whether the files under `dir` take more than `maxBytes` (apparent sizes, symbolic links not
 * followed). Asynchronous, so measuring a large checkout never blocks the daemon; stops counting
 * as soon as the cap is passed.
 */
export async function sizeOver(dir: string, maxBytes: number): Promise<boolean> {
  let total = 0;
  const stack = [dir];
  while (stack.length > 0) {
    const current = stack.pop()!;
    let names: string[];
    try {
      names = await readdir(current);
    } catch {
      continue; // removed or renamed while git works
    }
    for (const name of names) {
      const path = join(current, name);
      try {
        const st = await lstat(path);
        if (st.isDirectory()) stack.push(path);
        else total += st.size;
      } catch {
        continue;
      }
      if (total > maxBytes) return true;
    }
  }
  return false;
}

/** Hides URL credentials (`scheme://user:pass@` becomes `scheme://***@`) and any known secret. */
export function redactLine(line: string, secrets: readonly string[]): string {
  let out = line.replace(/([a-z][a-z0-9+.-]*:\/\/)[^\s/?#'"]*@/gi, '$1***@');
  for (const secret of secrets) if (secret) out = out.split(secret).join('***');
  return out;
}

export type LineSink = (line: string, progressUpdate: boolean) => void;

/** Forwards git's stderr to the build log: every finished line, progress updates throttled. */
export function forwardTo(log: (line: string) => void, redact: (line: string) => string): LineSink {
  let lastProgress = 0;
  return (line, progressUpdate) => {
    if (progressUpdate) {
      const now = Date.now();
      if (now - lastProgress < PROGRESS_INTERVAL_MS) return;
      lastProgress = now;
    }
    log(redact(line).trimEnd()); // git pads remote progress with spaces to overwrite the terminal
  };
}

export interface GitRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderrLines: string[];
  /** Killed because the directory it writes passed the size cap. */
  tooLarge?: boolean;
}

/**
 * Runs git in its own process group so an abort can kill the whole tree (git clone leaves the
 * transfer to child processes such as git-remote-http, which would outlive a killed parent).
 */
export function runGit(args: string[], env: NodeJS.ProcessEnv, signal: AbortSignal | undefined, onLine: LineSink, watch?: { dir: string; maxBytes: number }): Promise<GitRun> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new BuildError(CHECKOUT_ABORTED));
      return;
    }
    const child = spawn('git', args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const stderrLines: string[] = [];
    const splitter = new LineSplitter((line, progressUpdate) => {
      stderrLines.push(line);
      onLine(line, progressUpdate);
    });
    let stdout = '';
    let aborted = false;
    let tooLarge = false;
    let closed = false;
    const onAbort = (): void => {
      aborted = true;
      killGroup(child.pid);
    };
    // Measures the clone's directory while git writes it; over the cap, git's whole group is killed.
    const measure = async (): Promise<void> => {
      if (!watch || closed) return;
      if (await sizeOver(watch.dir, watch.maxBytes)) {
        if (closed) return;
        tooLarge = true;
        killGroup(child.pid);
        return;
      }
      if (!closed) sizeTimer = setTimeout(() => void measure(), SIZE_CHECK_INTERVAL_MS);
    };
    let sizeTimer: NodeJS.Timeout | undefined = watch ? setTimeout(() => void measure(), SIZE_CHECK_INTERVAL_MS) : undefined;
    signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => splitter.push(s));
    child.on('error', (err: NodeJS.ErrnoException) => {
      closed = true;
      clearTimeout(sizeTimer);
      signal?.removeEventListener('abort', onAbort);
      reject(new BuildError(err.code === 'ENOENT' ? 'git is not installed on this server' : `could not run git: ${err.message}`));
    });
    child.on('close', (exitCode, exitSignal) => {
      closed = true;
      clearTimeout(sizeTimer);
      signal?.removeEventListener('abort', onAbort);
      splitter.end();
      if (aborted) reject(new BuildError(CHECKOUT_ABORTED));
      else resolve({ exitCode, signal: exitSignal, stdout, stderrLines, tooLarge });
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Splits a stream on \n and \r, telling apart progress updates (a line ended by a bare \r). */
class LineSplitter {
  private buffer = '';

  constructor(private readonly sink: (line: string, progressUpdate: boolean) => void) {}

  push(chunk: string): void {
    this.buffer += chunk;
    let match: RegExpExecArray | null;
    // a \r at the very end may be the first half of \r\n: wait for the next chunk
    while ((match = /\r\n|\n|\r(?=[^\n])/.exec(this.buffer)) !== null) {
      this.emit(this.buffer.slice(0, match.index), match[0] === '\r');
      this.buffer = this.buffer.slice(match.index + match[0].length);
    }
    // a line that does not end (a hostile server's endless message) is cut, not held
    while (this.buffer.length > MAX_LINE_CHARS) {
      this.emit(this.buffer.slice(0, MAX_LINE_CHARS), false);
      this.buffer = this.buffer.slice(MAX_LINE_CHARS);
    }
  }

  end(): void {
    this.emit(this.buffer.replace(/\r$/, ''), false);
    this.buffer = '';
  }

  private emit(line: string, progressUpdate: boolean): void {
    if (line.trim() !== '') this.sink(line, progressUpdate);
  }
}
