// Two steps of a deployment between its image and its swap: the release command (run once in a new
// container from the new image, with the service's env, network, volumes and files; its output in
// the deployment log; a failure fails the deployment while the previous release keeps serving), and
// the `recreate` strategy's stop of the live container before the new one starts.
import { BuildError } from '../core/build-error.js';
import type { DeploymentRecord, ServiceRecord } from '../core/records.js';
import { releaseTimeoutOf } from '../core/service-state-rules.js';
import { removeOwnedContainer } from '../docker/containers.js';
import { runOneOff } from '../docker/one-off.js';
import type { DeployDeps } from './context.js';
import type { ServiceContainerBase } from './service-container.js';
import { setStatus } from './states.js';

type Say = (line: string, stream?: 'stdout' | 'stderr') => void;

export async function runReleaseCommand(d: DeployDeps, service: ServiceRecord, dep: DeploymentRecord, image: string, base: ServiceContainerBase, say: Say, signal: AbortSignal): Promise<void> {
  const cmd = service.releaseCommand;
  if (!cmd || cmd.length === 0) return;
  const seconds = releaseTimeoutOf(service);
  say(`Release command: ${JSON.stringify(cmd)} in a new container from ${image} (up to ${seconds} s)`);
  let result;
  try {
    result = await runOneOff(
      d.docker,
      {
        name: `berth-${service.slug}-${dep.id.slice(0, 8)}-release`,
        image,
        cmd,
        env: base.env,
        labels: d.own.labels({ projectId: service.projectId, serviceId: service.id, deploymentId: dep.id }),
        network: base.network,
        overlay: base.overlay,
        volumes: base.volumes,
        binds: base.binds,
        limits: base.limits,
      },
      (line, stream) => say(`release | ${line}`, stream),
      { timeoutMs: seconds * 1000, signal },
    );
  } catch (err) {
    throw new BuildError(`release command could not start: ${(err as Error).message}; the previous release keeps serving`);
  }
  if (result.aborted || signal.aborted) throw new BuildError('aborted');
  if (result.timedOut) throw new BuildError(`release command timed out after ${seconds} s (releaseTimeoutSeconds); the previous release keeps serving`);
  if (result.exitCode !== 0) throw new BuildError(`release command exited ${result.exitCode ?? 'without an exit code'}; the previous release keeps serving`);
  say('Release command exited 0');
}

export interface Recreated {
  /** When the last old container stopped; null when there was none. */
  stoppedAt: number | null;
  /** The deployments whose containers were stopped and removed. */
  stopped: DeploymentRecord[];
}

/** `recreate`: stops and removes the live containers (labels checked) before the new one starts. */
export async function stopLiveForRecreate(d: DeployDeps, service: ServiceRecord, dep: DeploymentRecord, say: Say): Promise<Recreated> {
  const live = (await d.store.deployments.listByService(service.id)).filter((x) => x.status === 'running' && x.id !== dep.id && x.containerId);
  if (live.length === 0) {
    say('Recreate: no live container to stop');
    return { stoppedAt: null, stopped: [] };
  }
  for (const old of live) {
    say(`Recreate: stopping the live container ${old.containerName ?? old.containerId} (deployment ${old.id}) before the new one starts`);
    await removeOwnedContainer(d.docker, d.own, old.containerId!, { serviceId: service.id });
  }
  return { stoppedAt: Date.now(), stopped: live };
}

export function sayDowntime(r: Recreated, say: Say): void {
  if (r.stoppedAt === null) return;
  const now = Date.now();
  say(
    `Recreate: the service was down for ${((now - r.stoppedAt) / 1000).toFixed(1)} s (old container stopped at ${new Date(r.stoppedAt).toISOString()}, new one answering at ${new Date(now).toISOString()})`,
  );
}

/** After a failure that came once the old containers were gone: they cannot serve; their deployments end superseded (a rollback can still go back to them). */
export async function recreateFailed(d: DeployDeps, r: Recreated, say: Say): Promise<void> {
  if (r.stopped.length === 0) return;
  say('Recreate: the old container was stopped before the new one started, so it cannot serve: the service is down until a deployment (or a rollback) succeeds', 'stderr');
  for (const old of r.stopped) await setStatus(d, old, 'superseded', {});
}
