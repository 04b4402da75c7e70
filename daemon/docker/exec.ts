// Runs one command inside a container through the Engine API (`docker exec`), streamed both ways:
// stdout goes to a Writable with backpressure (never collected whole), stdin optionally comes from
// a Readable, stderr keeps only its last few KB for the error message. The command is an argv
// array and credentials travel in the exec's Env, never in argv (argv is visible in `ps` and in
// `docker inspect` of the exec).
import type Docker from 'dockerode';
import type { Duplex } from 'node:stream';
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { DockerFrameReader } from './stream-frames.js';

const STDERR_TAIL_BYTES = 4096;
/** How long to wait for Docker to record the exit code once the stream has ended. */
const EXIT_CODE_WAIT_MS = 10_000;

export interface ExecSpec {
  /** The tool's name, for error messages ("pg_dump exited with code 1: ..."). */
  tool: string;
  cmd: string[];
  env?: Record<string, string>;
  user?: string;
  /** Receives stdout; not ended when the command ends. Without it stdout is discarded. */
  stdout?: Writable;
  /** Stages between the demultiplexed stdout and `stdout` (checks, framing). Always ended. */
  through?: Transform[];
  /** Fed into the command's stdin, which is closed when it ends. */
  stdin?: Readable;
  signal?: AbortSignal;
}

export interface ExecResult {
  /** The last ~4 KB of stderr, decoded. */
  stderrTail: string;
}

/** A failed command: its exit code and the tail of what it wrote to stderr. */
class ToolFailed extends Error {
  constructor(
    readonly tool: string,
    readonly exitCode: number | null,
    readonly stderrTail: string,
  ) {
    super(`${tool} ${exitCode === null ? 'ended without an exit code (did the container stop?)' : `exited with code ${exitCode}`}${stderrTail ? `: ${stderrTail}` : ''}`);
    this.name = 'ToolFailed';
  }
}

/** Runs the command; resolves when it exited 0 and all of stdout was written. */
export async function execInContainer(docker: Docker, containerId: string, spec: ExecSpec): Promise<ExecResult> {
  spec.signal?.throwIfAborted();
  const container = docker.getContainer(containerId);
  const exec = await container.exec({
    // The constant wrapper reports the command's pid (the exec's process is the leader of its own
    // process group) before exec'ing the argv unchanged: closing the connection does not stop an
    // exec'd command (Docker keeps draining its output), so an abort kills the group explicitly.
    Cmd: ['sh', '-c', PID_WRAPPER, 'berth-exec', ...spec.cmd],
    Env: Object.entries(spec.env ?? {}).map(([k, v]) => `${k}=${v}`),
    AttachStdout: true,
    AttachStderr: true,
    AttachStdin: spec.stdin !== undefined,
    ...(spec.user ? { User: spec.user } : {}),
  });
  const stream: Duplex = await exec.start({ hijack: true, stdin: spec.stdin !== undefined });
  const stderr = new TailBuffer(STDERR_TAIL_BYTES);
  const pid = new PidLine();
  const demux = new DockerStreamDemux((chunk) => {
    const rest = pid.take(chunk);
    if (rest.length > 0) stderr.push(rest);
  });

  let streamError: unknown = null;
  const fail = (err: unknown) => {
    streamError ??= err;
    stream.destroy();
  };
  const onAbort = () => fail(abortError(spec.signal));
  spec.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const sink = spec.stdout ? forwardTo(spec.stdout) : discard();
    const reading = pipeline([stream, demux, ...(spec.through ?? []), sink]).catch(fail);
    // pipeline() ends the socket's write side when stdin ends: Docker then closes the command's
    // stdin. The command exiting early (a restore that refused its input) breaks this pipe: its
    // exit code, read below, is then the better explanation.
    const writing = spec.stdin ? pipeline(spec.stdin, stream).catch(fail) : Promise.resolve();
    await Promise.all([reading, writing]);
  } finally {
    spec.signal?.removeEventListener('abort', onAbort);
  }

  if (streamError !== null) {
    // Nobody reads the output any more: stop the command rather than let it run to the end.
    if (pid.value !== null) await killGroup(docker, containerId, pid.value);
    if (spec.signal?.aborted) throw abortError(spec.signal);
  }
  const exitCode = await waitForExitCode(exec, streamError === null ? EXIT_CODE_WAIT_MS : 2_000);
  if (exitCode !== 0 && !(streamError !== null && exitCode === null)) throw new ToolFailed(spec.tool, exitCode, stderr.text());
  if (streamError !== null) throw streamError instanceof Error ? streamError : new Error(String(streamError));
  return { stderrTail: stderr.text() };
}

export const PID_WRAPPER = 'echo "berth-exec-pid $$" >&2; exec "$@"';

/** Strips the wrapper's first stderr line and keeps the pid it reports. */
class PidLine {
  value: number | null = null;
  private pending: Buffer | null = Buffer.alloc(0);

  take(chunk: Buffer): Buffer {
    if (this.pending === null) return chunk;
    const all = Buffer.concat([this.pending, chunk]);
    const nl = all.indexOf(10);
    if (nl < 0 && all.length < 64) {
      this.pending = all;
      return Buffer.alloc(0);
    }
    this.pending = null;
    const m = /^berth-exec-pid (\d+)$/.exec(all.subarray(0, Math.max(nl, 0)).toString('latin1'));
    if (!m) return all;
    this.value = Number(m[1]);
    return all.subarray(nl + 1);
  }
}

/** SIGTERM to the command's process group, inside the container (best effort: it may be gone). */
export async function killGroup(docker: Docker, containerId: string, pid: number): Promise<void> {
  try {
    const exec = await docker.getContainer(containerId).exec({ Cmd: ['sh', '-c', 'kill -TERM "-$1" 2>/dev/null; exit 0', 'berth-kill', String(pid)], AttachStdout: false, AttachStderr: false });
    await exec.start({ Detach: true });
    await waitForExitCode(exec, 2_000);
  } catch {
    // the container stopped: so did the command
  }
}

/** Runs a command whose output is small (a query's result, `command -v`) and returns stdout as text. */
export async function execText(docker: Docker, containerId: string, spec: Omit<ExecSpec, 'stdout' | 'through'>, maxBytes = 16 * 1024 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  const collect = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > maxBytes) return done(new Error(`${spec.tool} wrote more than ${maxBytes} bytes`));
      chunks.push(chunk);
      done();
    },
  });
  await execInContainer(docker, containerId, { ...spec, through: [collect] });
  return Buffer.concat(chunks).toString('utf8');
}

export async function waitForExitCode(exec: Docker.Exec, waitMs: number): Promise<number | null> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    let info: Docker.ExecInspectInfo;
    try {
      info = await exec.inspect();
    } catch {
      return null; // the container (and its execs) is gone
    }
    if (!info.Running) return info.ExitCode;
    if (Date.now() > deadline) return null;
    await sleep(50);
  }
}

function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error) return reason;
  const err = new Error('The operation was aborted');
  err.name = 'AbortError';
  return err;
}

function discard(): Writable {
  return new Writable({ write: (_chunk, _enc, done) => done() });
}

/**
 * Writes into `out` with its backpressure, without ending or destroying it: the caller owns `out`
 * (one dump may be several commands writing into the same file).
 */
function forwardTo(out: Writable): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      if (out.destroyed || out.writableEnded) return done(new Error('the dump output was closed'));
      if (out.write(chunk)) return done();
      const settle = (err?: Error) => {
        out.off('drain', onDrain);
        out.off('error', onError);
        out.off('close', onClose);
        done(err);
      };
      const onDrain = () => settle();
      const onError = (err: Error) => settle(err);
      const onClose = () => settle(new Error('the dump output was closed'));
      out.on('drain', onDrain);
      out.on('error', onError);
      out.on('close', onClose);
    },
  });
}

/** Writes a chunk into `out` and waits for its drain when its buffer is full. */
export async function writeTo(out: Writable, chunk: Buffer | string): Promise<void> {
  const sink = forwardTo(out);
  await new Promise<void>((resolve, reject) => sink.write(chunk, (err) => (err ? reject(err) : resolve())));
}

/** Keeps the last `limit` bytes written to it. */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size - (this.chunks[0]?.length ?? 0) >= this.limit) this.size -= this.chunks.shift()!.length;
  }

  bytes(): Buffer {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - this.limit));
  }

  text(): string {
    // the cut may fall inside a UTF-8 sequence
    return this.bytes()
      .toString('utf8')
      .replace(/^\uFFFD+/, '')
      .trim();
  }
}

/**
 * Docker's multiplexed attach stream (no TTY, see docker/stream-frames.ts): stdout is pushed on,
 * with backpressure; stderr is handed to `onStderr`. docker-modem's demuxStream ignores the
 * destination's backpressure, so a dump written to a slow disk would pile up in memory: this
 * Transform is used instead.
 */
export class DockerStreamDemux extends Transform {
  private readonly frames: DockerFrameReader;

  constructor(onStderr: (chunk: Buffer) => void) {
    super();
    this.frames = new DockerFrameReader(
      (type, part) => {
        if (type === 1) this.push(part);
        else if (type === 2) onStderr(Buffer.from(part));
      },
      { strict: true },
    );
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    try {
      this.frames.push(chunk);
    } catch (err) {
      return done(err as Error);
    }
    done();
  }

  override _flush(done: (err?: Error | null) => void): void {
    done(this.frames.midFrame ? new Error('the Docker exec stream ended in the middle of a frame') : null);
  }
}

/**
 * Reads the first `n` bytes of `input` (fewer when it is shorter) without losing them: `rest`
 * yields the whole input again, pulled on demand (backpressure is kept). For magic-number checks
 * before a restore touches any data.
 */
export async function readHead(input: Readable, n: number): Promise<{ head: Buffer; rest: Readable }> {
  const it = input[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  const seen: Buffer[] = [];
  let size = 0;
  let done = false;
  while (size < n) {
    const next = await it.next();
    if (next.done) {
      done = true;
      break;
    }
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    seen.push(chunk);
    size += chunk.length;
  }
  const buffered = Buffer.concat(seen);
  async function* replay(): AsyncGenerator<Buffer> {
    try {
      if (buffered.length > 0) yield buffered;
      while (!done) {
        const next = await it.next();
        if (next.done) return;
        yield typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
      }
    } finally {
      if (!done) await it.return?.();
    }
  }
  return { head: buffered.subarray(0, n), rest: Readable.from(replay(), { objectMode: false }) };
}

/** A pass-through stage that keeps the last `limit` bytes it saw (for trailer checks). */
export class TailKeeper extends Transform {
  readonly tail: TailBuffer;
  constructor(limit: number) {
    super();
    this.tail = new TailBuffer(limit);
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null, data?: Buffer) => void): void {
    this.tail.push(chunk);
    done(null, chunk);
  }
}

/**
 * Runs `fn` with a file inside the container holding `content` (a client config with a password:
 * the tools that cannot read one from the environment read it from there), mode 0600 in /tmp,
 * removed afterwards. The content travels through the exec's stdin, never argv.
 */
export async function withSecretFile<T>(docker: Docker, containerId: string, content: string, fn: (path: string) => Promise<T>): Promise<T> {
  const path = `/tmp/berth-${randomBytes(8).toString('hex')}.conf`;
  await execInContainer(docker, containerId, {
    tool: 'sh (writing a client config)',
    cmd: ['sh', '-c', 'umask 077; cat > "$1"', 'berth-secret', path],
    stdin: Readable.from([Buffer.from(content)]),
  });
  try {
    return await fn(path);
  } finally {
    await execInContainer(docker, containerId, { tool: 'rm', cmd: ['rm', '-f', path] }).catch(() => undefined);
  }
}
