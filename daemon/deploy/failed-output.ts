// A failed deployment's container is removed, and with it the only record of why the app stopped:
// its output is copied into the service's runtime log first, under that deployment's id.
import { containerOutput } from '../docker/container-output.js';
import type { DeployDeps } from './context.js';

const KEPT_LINES = 200;

/** Returns how many lines were kept; never throws (the deployment is failing already). */
export async function keepFailedContainerOutput(d: Pick<DeployDeps, 'docker' | 'runtimeLogs' | 'log'>, serviceId: string, deploymentId: string, containerId: string): Promise<number> {
  try {
    const lines = await containerOutput(d.docker, containerId, KEPT_LINES);
    for (const l of lines) d.runtimeLogs.book.append(serviceId, deploymentId, l.line, l.stream);
    await d.runtimeLogs.book.flush();
    return lines.length;
  } catch (err) {
    d.log(`reading the output of failed container ${containerId}`, err);
    return 0;
  }
}
