import Docker from 'dockerode';

export function connectDocker(socketPath: string): Docker {
  return new Docker({ socketPath });
}

/** True when an error means the Engine's socket is not there or not answering (dockerd stopped). */
export function isDockerUnreachable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ECONNREFUSED' || code === 'ENOENT' || code === 'EACCES' || code === 'ECONNRESET';
}
