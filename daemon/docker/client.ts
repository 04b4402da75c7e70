import Docker from 'dockerode';

export function connectDocker(socketPath: string): Docker {
  return new Docker({ socketPath });
}
