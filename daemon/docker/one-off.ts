// A one-off container: a command run to its end in a new container (a release command, a scheduled
// job's run, `exec --mode run`), its output handed on line by line, a time limit, and the container
// removed afterwards whatever happened. No restart policy: it runs once. Its labels carry the role
// `one-off`, so start-up recovery removes one left by a daemon that stopped meanwhile (never a
// deployment's container).
import type Docker from 'dockerode';
import { BOUNDED_LOG_CONFIG } from './log-config.js';
import { resourceLimits } from './resource-limits.js';
import type { Labels } from './labels.js';
import { DockerLogLines, type OutputStream } from './output-lines.js';

export const LABEL_ROLE = 'dev.berth.role';
export const ONE_OFF_ROLE = 'one-off';

export interface OneOffSpec {
  name: string;
  image: string;
  /** argv, run as the image's entrypoint's arguments unless `entrypoint` replaces it. */
  cmd: string[];
  entrypoint?: string[];
  env: Record<string, string>;
  /** The owner's labels (Ownership.labels); the role label is added here. */
  labels: Labels;
  network: string;
  /** The project's overlay too, while Swarm runs some of its services (replicated ones are reachable by name only there). */
  overlay?: string | null;
  volumes?: { name: string; target: string; readOnly?: boolean }[];
  /** Read-only bind mounts of host files or directories (config files). */
  binds?: { source: string; target: string }[];
  limits: { memoryMb: number; cpus: number; pids: number };
}

export interface OneOffResult {
  /** The command's exit code; null when it never ran to an exit (timed out, aborted). */
  exitCode: number | null;
  timedOut: boolean;
  aborted: boolean;
}

/**
 * Runs `spec` to its end. `onLine` gets every output line as it comes (lines are capped, see
 * output-lines.ts). A start failure (no such command, ...) throws after the container is removed.
 */
export async function runOneOff(docker: Docker, spec: OneOffSpec, onLine: (line: string, stream: OutputStream) => void, opts: { timeoutMs: number; signal?: AbortSignal }): Promise<OneOffResult> {
  const container = await docker.createContainer({
    name: spec.name,
    Image: spec.image,
    Cmd: spec.cmd,
    ...(spec.entrypoint ? { Entrypoint: spec.entrypoint } : {}),
    Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`),
    Labels: { ...spec.labels, [LABEL_ROLE]: ONE_OFF_ROLE },
    HostConfig: {
      LogConfig: BOUNDED_LOG_CONFIG,
      ...resourceLimits(spec.limits),
      NetworkMode: spec.network,
      Mounts: [
        ...(spec.volumes ?? []).map((v) => ({ Type: 'volume' as const, Source: v.name, Target: v.target, ReadOnly: v.readOnly ?? false })),
        ...(spec.binds ?? []).map((b) => ({ Type: 'bind' as const, Source: b.source, Target: b.target, ReadOnly: true })),
      ],
    },
  });
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    const lines = new DockerLogLines(onLine);
    if (spec.overlay) await docker.getNetwork(spec.overlay).connect({ Container: container.id });
    await container.start();
    // The output is read from the container's log, from its first line and followed to its end: one
    // source. An attach with `logs` replays the log file while the container already writes, and a
    // line written meanwhile came twice (a job's run log showed it twice); one without `logs` may miss
    // what the container wrote before the attach was live.
    const stream = (await container.logs({ follow: true, stdout: true, stderr: true })) as unknown as NodeJS.ReadableStream;
    const ended = new Promise<void>((resolve) => {
      stream.on('data', (chunk: Buffer) => lines.push(chunk));
      stream.on('end', resolve);
      stream.on('close', resolve);
      stream.on('error', () => resolve());
    });
    let timedOut = false;
    let aborted = false;
    const stop = () => container.stop({ t: 2 }).catch(() => undefined);
    timer = setTimeout(() => {
      timedOut = true;
      void stop();
    }, opts.timeoutMs);
    onAbort = () => {
      aborted = true;
      void stop();
    };
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener('abort', onAbort, { once: true });
    const waited = (await container.wait()) as { StatusCode: number };
    await Promise.race([ended, new Promise((r) => setTimeout(r, 2000))]);
    lines.end();
    return { exitCode: timedOut || aborted ? null : waited.StatusCode, timedOut, aborted };
  } finally {
    clearTimeout(timer);
    if (onAbort) opts.signal?.removeEventListener('abort', onAbort);
    await container.remove({ force: true, v: true }).catch(() => undefined);
  }
}
