// A key holder's command in a running container (`docker exec`), streamed line by line, and an
// interactive TTY in one. Unlike execInContainer (exec.ts, the engines' tools), both streams go to
// the caller and a non-zero exit is an answer, not an error. When the container has /bin/sh, the
// command runs through the constant pid wrapper of exec.ts, so that a time limit or a client that
// goes away ends its process group (closing the connection alone does not stop an exec'd command).
import type Docker from 'dockerode';
import type { Duplex } from 'node:stream';
import { killGroup, PID_WRAPPER, waitForExitCode } from './exec.js';
import { DockerLogLines, type OutputStream } from './output-lines.js';

const EXIT_CODE_WAIT_MS = 10_000;
const PID_LINE = /^berth-exec-pid (\d+)\r?$/;

/** Whether `path` exists in the container's filesystem (the archive API: no binary in the container needed). */
export async function pathExists(docker: Docker, containerId: string, path: string): Promise<boolean> {
  try {
    const res = (await docker.getContainer(containerId).infoArchive({ path })) as { resume?: () => void; destroy?: () => void } | undefined;
    res?.resume?.();
    res?.destroy?.();
    return true;
  } catch {
    return false;
  }
}

export interface ExecLinesResult {
  exitCode: number | null;
  timedOut: boolean;
  aborted: boolean;
}

/** Runs `argv` in the container; every output line goes to `onLine`; resolves with the exit code. */
export async function execLines(
  docker: Docker,
  containerId: string,
  argv: string[],
  onLine: (line: string, stream: OutputStream) => void,
  opts: { timeoutMs: number; signal: AbortSignal; env?: string[] },
): Promise<ExecLinesResult> {
  const wrapped = await pathExists(docker, containerId, '/bin/sh');
  const exec = await docker.getContainer(containerId).exec({
    Cmd: wrapped ? ['/bin/sh', '-c', PID_WRAPPER, 'berth-exec', ...argv] : argv,
    AttachStdout: true,
    AttachStderr: true,
    AttachStdin: false,
    Tty: false,
    ...(opts.env ? { Env: opts.env } : {}),
  });
  let pid: number | null = null;
  let first = wrapped;
  const lines = new DockerLogLines((line, stream) => {
    if (first && stream === 'stderr') {
      first = false;
      const m = PID_LINE.exec(line);
      if (m) {
        pid = Number(m[1]);
        return;
      }
    }
    onLine(line, stream);
  });
  const stream: Duplex = await exec.start({ hijack: true, stdin: false });
  let timedOut = false;
  let aborted = false;
  const stop = async () => {
    if (pid !== null) await killGroup(docker, containerId, pid);
    stream.destroy();
  };
  const timer = setTimeout(() => {
    timedOut = true;
    void stop();
  }, opts.timeoutMs);
  const onAbort = () => {
    aborted = true;
    void stop();
  };
  if (opts.signal.aborted) onAbort();
  else opts.signal.addEventListener('abort', onAbort, { once: true });
  try {
    await new Promise<void>((resolve) => {
      stream.on('data', (chunk: Buffer) => {
        try {
          lines.push(chunk);
        } catch {
          stream.destroy(); // not Docker's framing: stop reading
        }
      });
      stream.once('end', resolve);
      stream.once('close', resolve);
      stream.once('error', () => resolve());
    });
    lines.end();
  } finally {
    clearTimeout(timer);
    opts.signal.removeEventListener('abort', onAbort);
  }
  const exitCode = await waitForExitCode(exec, timedOut || aborted ? 2_000 : EXIT_CODE_WAIT_MS);
  return { exitCode: timedOut || aborted ? null : exitCode, timedOut, aborted };
}

export interface TtyExec {
  shell: string;
  stream: Duplex;
  /** The shell's pid inside the container (null without /bin/sh for the wrapper). */
  pid: () => number | null;
  resize(cols: number, rows: number): Promise<void>;
  exitCode(): Promise<number | null>;
  /** A hang-up to the shell's process group (best effort). */
  hangUp(): Promise<void>;
}

/** Opens `shell` on a TTY in the container; the wrapper's pid line is taken out of the output by `strip`. */
export async function openTtyExec(docker: Docker, containerId: string, shell: string, size: { cols: number; rows: number }): Promise<TtyExec & { strip: (chunk: Buffer) => Buffer }> {
  const wrapped = await pathExists(docker, containerId, '/bin/sh');
  const exec = await docker.getContainer(containerId).exec({
    Cmd: wrapped ? ['/bin/sh', '-c', PID_WRAPPER.replace('>&2', ''), 'berth-terminal', shell] : [shell],
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    Tty: true,
    Env: ['TERM=xterm-256color'],
  });
  const stream: Duplex = await exec.start({ hijack: true, stdin: true, Tty: true });
  let pid: number | null = null;
  let pending: Buffer | null = wrapped ? Buffer.alloc(0) : null;
  const strip = (chunk: Buffer): Buffer => {
    if (pending === null) return chunk;
    const all = Buffer.concat([pending, chunk]);
    const nl = all.indexOf(10);
    if (nl < 0 && all.length < 64) {
      pending = all;
      return Buffer.alloc(0);
    }
    pending = null;
    const m = PID_LINE.exec(all.subarray(0, Math.max(nl, 0)).toString('latin1'));
    if (!m) return all;
    pid = Number(m[1]);
    return all.subarray(nl + 1);
  };
  const resize = async (cols: number, rows: number) => {
    await exec.resize({ h: rows, w: cols });
  };
  await resize(size.cols, size.rows).catch(() => undefined);
  return {
    shell,
    stream,
    strip,
    pid: () => pid,
    resize,
    exitCode: () => waitForExitCode(exec, 2_000),
    hangUp: async () => {
      if (pid === null) return;
      try {
        const kill = await docker.getContainer(containerId).exec({
          Cmd: ['/bin/sh', '-c', 'kill -HUP "-$1" "$1" 2>/dev/null; sleep 1; kill -KILL "-$1" "$1" 2>/dev/null; exit 0', 'berth-hangup', String(pid)],
          AttachStdout: false,
          AttachStderr: false,
        });
        await kill.start({ Detach: true });
      } catch {
        // the container stopped: so did the shell
      }
    },
  };
}
