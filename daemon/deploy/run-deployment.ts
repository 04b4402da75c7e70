// One deployment, start to finish: checkout, build (or image), run, wait until it answers, swap,
// and record every step. Every way out ends in a recorded state (running, failed or aborted), and
// whatever a failed or aborted run created is removed.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { effectiveLimits } from '../core/limits.js';
import type { DeploymentRecord, ServiceRecord } from '../core/records.js';
import { BuildError } from '../core/build-error.js';
import { removeOwnedContainer, runContainer, containerState } from '../docker/containers.js';
import { removeOwnedImage } from '../docker/images.js';
import { removeBuildLeftovers } from '../docker/build-leftovers.js';
import type { DeployDeps } from './context.js';
import { databaseReady, databaseRunSpec, restartStopped, stopLiveDatabase } from './database-run.js';
import { keepFailedContainerOutput } from './failed-output.js';
import { publishFor } from './publish.js';
import { isRoutedWeb } from '../proxy/routing.js';
import { waitUntilAnswering } from './health.js';
import { finishFailed, markServiceAfterFailure, setServiceState, setStatus } from './states.js';
import { produceImage, type Created } from './produce-image.js';
import { serviceContainerBase } from './service-container.js';
import { recreateFailed, runReleaseCommand, sayDowntime, stopLiveForRecreate, type Recreated } from './release-and-recreate.js';
import { removeDeploymentFiles, writeDeploymentFiles } from './service-files.js';
import { retireInBackground } from './retire.js';
import { deployToSwarm, runsOnSwarm } from './swarm-deploy.js';
import { onHost, serviceHost } from './service-host.js';
import { prepareNode } from './database-node.js';

const DATABASE_MIN_START_MS = 180_000;

export async function runDeployment(d: DeployDeps, deploymentId: string, signal: AbortSignal): Promise<void> {
  const dep = await d.store.deployments.get(deploymentId);
  if (!dep || dep.status !== 'queued') return;
  const service = await d.store.services.get(dep.serviceId);
  if (!service) return;
  const say = (line: string, stream: 'stdout' | 'stderr' = 'stdout') => d.buildLogs.append(dep.id, dep.id, line, stream);
  const created: Created = { imageTag: null, builtImage: false, built: false, containerId: null };
  const workDir = join(d.buildsDir, dep.id);
  let stopped: DeploymentRecord[] = [];
  let recreated: Recreated = { stoppedAt: null, stopped: [] };
  // the deps on the Engine the container runs on: this server's, or another node's for a database created there
  let on = d;

  try {
    // another writer ended it since it was read (the table refuses the move): nothing to run
    if (!(await setStatus(d, dep, 'building', { startedAt: d.clock.now() }))) return;
    await setServiceState(d, service.id, { status: 'building', updatedAt: d.clock.now() });
    say(`Deploying ${service.name} (deployment ${dep.id})`);
    // a full disk takes the store, the logs and every app down: no new image or container meanwhile
    const low = await d.diskLow(dep.trigger === 'rollback' || service.kind !== 'git' ? 'the deployment was' : 'the build was');
    if (low) throw new BuildError(low);

    const image = await produceImage(d, service, dep, workDir, created, say, signal);
    if (signal.aborted) throw new BuildError('aborted');

    const app = service.kind !== 'database';
    // env, network, volumes; this deployment's own snapshot of the config files
    const base = await serviceContainerBase(d, service, []);
    if (app) base.binds = await writeDeploymentFiles(d, service, dep, base.env, say);
    const { env, network } = base;
    if (app) await runReleaseCommand(d, service, dep, image, base, say, signal);
    if (signal.aborted) throw new BuildError('aborted');
    // Swarm-backed (Swarm on, replicas or a placement): one Swarm service, rolled to the new image
    if (app && (await runsOnSwarm(d, service))) return await deployToSwarm(d, service, dep, image, env, say, signal);
    if (app && service.deployStrategy === 'recreate') recreated = await stopLiveForRecreate(d, service, dep, say);
    const name = `berth-${service.slug}-${dep.id.slice(0, 8)}`;
    // a database created on another Swarm node runs there, on that node's Engine (`on`)
    const host = await serviceHost(d, service).catch((err: unknown) => {
      throw new BuildError(`the database's node cannot be reached: ${(err as Error).message}; its data stays there, deploy again once it is back`);
    });
    on = onHost(d, host);
    const remote = host.nodeId === null ? null : await prepareNode(d, service, host, image, say, signal);
    const database = service.kind === 'database' ? await databaseRunSpec(on, service, say, remote !== null) : {};
    if (service.kind === 'database') stopped = await stopLiveDatabase(on, service, dep, say);
    say(`Starting container ${name} from ${image}`);
    const publish = await publishFor(d.store, service);
    if (publish && remote) publish.hostIp = host.address;
    const container = await runContainer(on.docker, {
      name,
      image: remote?.image ?? image,
      env,
      labels: d.own.labels({ projectId: service.projectId, serviceId: service.id, deploymentId: dep.id }),
      network: remote?.network ?? network,
      overlay: remote ? null : base.overlay,
      alias: service.slug,
      internalPort: service.internalPort,
      publish,
      limits: effectiveLimits(d.limits, service),
      volumes: base.volumes,
      binds: base.binds,
      // an image service's startCommand replaces the image's CMD, as a Dockerfile's shell-form CMD would
      ...(service.kind === 'image' && service.startCommand ? { cmd: ['sh', '-c', service.startCommand] } : {}),
      ...database,
    }).catch((err: unknown) => {
      const message = (err as Error).message ?? String(err);
      if (/no command specified/i.test(message)) throw new BuildError(`the image ${image} has no command to run (no CMD or ENTRYPOINT): set the service's startCommand`);
      if (publish && /address already in use|port is already allocated/i.test(message)) {
        throw new BuildError(`port ${publish.hostIp}:${publish.hostPort} is in use by another program: ${message}`);
      }
      throw err;
    });
    created.containerId = container.id;
    await d.store.deployments.update(dep.id, { containerName: name, containerId: container.id, upstreamPort: container.upstreamPort });

    await waitForContainer(on, service, container, env, say, signal, host.address);
    sayDowntime(recreated, say);
    await goLive(on, service, dep, container, say);
    created.containerId = null; // now the live container: never cleaned up as debris
  } catch (err) {
    const aborted = signal.aborted;
    const reason = err instanceof BuildError ? err.message : `internal error: ${(err as Error).message}`;
    if (!(err instanceof BuildError)) d.log(`deployment ${dep.id} failed`, err);
    if (!aborted && created.containerId) {
      const kept = await keepFailedContainerOutput(on, service.id, dep.id, created.containerId);
      if (kept > 0) say(`The container wrote ${kept} line(s) before it was removed; they are kept in the service's runtime log`);
    }
    say(aborted ? 'Deployment aborted; cleaning up' : `Deployment failed: ${reason}`, aborted ? 'stdout' : 'stderr');
    await cleanUp(d, on, service, created);
    removeDeploymentFiles(d, service.id, dep.id);
    await recreateFailed(d, recreated, say);
    if (stopped.length > 0) await restartStopped(on, service, stopped, say);
    // the service first (counting this deployment as ended), so no reader sees the deployment
    // failed while its service still says building
    await markServiceAfterFailure(d, service.id, dep.id);
    await finishFailed(d, dep, aborted ? 'aborted' : 'failed');
  } finally {
    rmSync(workDir, { recursive: true, force: true });
    await d.buildLogs.flush();
  }
}

async function waitForContainer(
  d: DeployDeps,
  service: ServiceRecord,
  container: { id: string; upstreamPort: number | null },
  env: Record<string, string>,
  say: (line: string, stream?: 'stdout' | 'stderr') => void,
  signal: AbortSignal,
  address: string,
): Promise<void> {
  // A new container that exited and waits for Docker to restart it has crashed: it is not running.
  const running = async () => {
    const state = await containerState(d.docker, container.id);
    return state !== null && state.running && !state.restarting;
  };
  if (service.internalPort === null) {
    // a worker: it must still be running after a short while
    await new Promise((r) => setTimeout(r, 2000));
    if (!(await running())) throw new BuildError('the container exited right after starting; see its runtime logs');
    return;
  }
  // No published port although the service has one: the container stopped (or is restarting) before Docker could publish it.
  if (container.upstreamPort === null) throw new BuildError(`the container exited before answering on port ${service.internalPort}; the previous deployment keeps serving`);
  // A database's first start initialises its data directory: it gets longer, and must answer its engine's own check.
  const timeoutMs = service.kind === 'database' ? Math.max(d.healthTimeoutMs, DATABASE_MIN_START_MS) : d.healthTimeoutMs;
  const probe = service.kind === 'database' ? databaseReady(d, service, env, container.upstreamPort, address) : service.runtimeMode === 'web' || service.runtimeMode === 'static' ? 'http' : 'tcp';
  say(`Waiting for the ${service.kind === 'database' ? 'database' : 'app'} to answer on port ${service.internalPort} (up to ${Math.round(timeoutMs / 1000)} s)`);
  const result = await waitUntilAnswering(container.upstreamPort, probe, timeoutMs, signal, running, address);
  if (result === 'aborted') throw new BuildError('aborted');
  if (result === 'exited') throw new BuildError(`the container exited before answering on port ${service.internalPort}; the previous deployment keeps serving`);
  if (result === 'timeout') {
    throw new BuildError(
      service.kind === 'database'
        ? `the database never answered its readiness check on port ${service.internalPort} within ${Math.round(timeoutMs / 1000)} s; see its runtime logs`
        : `the app never answered on port ${service.internalPort} within ${Math.round(timeoutMs / 1000)} s (does it listen on $PORT / ${service.internalPort}?); the previous deployment keeps serving`,
    );
  }
}

/**
 * Points the service's host port and hostnames at the new container (Caddy loads the new upstream;
 * requests already on the old container finish there), then retires the previous deployment.
 */
async function goLive(
  d: DeployDeps,
  service: ServiceRecord,
  dep: DeploymentRecord,
  container: { id: string; upstreamPort: number | null },
  say: (line: string, stream?: 'stdout' | 'stderr') => void,
): Promise<void> {
  const previous = (await d.store.deployments.listByService(service.id)).filter((x) => x.status === 'running' && x.id !== dep.id);
  const routed = isRoutedWeb(service) && container.upstreamPort !== null ? container.upstreamPort : null;
  let loaded = false;
  try {
    if (routed !== null) {
      const outcome = await d.dataPlane.routeAhead(service.id, routed);
      if (outcome.state === 'refused' || outcome.state === 'failed') throw new BuildError(`the new container could not be routed: ${outcome.result.detail}`);
      loaded = outcome.state === 'loaded' || outcome.state === 'unchanged';
      if (outcome.state === 'unreachable') say(`${outcome.result.detail} (the host port and domains follow the new container then)`, 'stderr');
      else say(`Caddy routes the host port${service.hostPort !== null ? ` ${service.hostPort}` : ''} and the service's hostnames to the new container`);
    }
    // The last lines come before the status change: a stream ends with the status, after every line.
    if (previous.length > 0) say('Previous deployment superseded; it stops once its in-flight requests have finished');
    say(`Deployment is live${service.hostPort !== null ? ` on http://127.0.0.1:${service.hostPort}` : ''}`);
    const now = d.clock.now();
    // Ended meanwhile by another writer: it does not go live, and its container goes as debris.
    if (!(await setStatus(d, dep, 'running', { finishedAt: now }))) throw new BuildError('the deployment was ended elsewhere before it went live');
    await setServiceState(d, service.id, { status: 'active', reachable: true, lastDeployedAt: now, updatedAt: now });
  } catch (err) {
    if (routed !== null) d.dataPlane.settle(service.id, routed);
    // Caddy already routes to the container that is about to be removed: back to what the store says
    if (loaded) await d.dataPlane.apply();
    throw err;
  }
  if (routed !== null) d.dataPlane.settle(service.id, routed);
  await d.runtimeLogs.follow(service.id, dep.id, container.id, undefined, d.docker).catch((err: unknown) => d.log(`following logs of ${container.id}`, err));
  for (const old of previous) await setStatus(d, old, 'superseded', {});
  // Retire the old containers in the background: Caddy's in-flight requests on them finish first;
  // then the images beyond the last few successful deployments go.
  retireInBackground(d, service.id, previous, routed !== null);
}

/** Removes what a failed run made: the container on the Engine it ran on (`on`), the image and build leftovers here. */
async function cleanUp(d: DeployDeps, on: DeployDeps, service: ServiceRecord, created: Created): Promise<void> {
  try {
    if (created.containerId) await removeOwnedContainer(on.docker, d.own, created.containerId, { serviceId: service.id }, 2);
    if (created.builtImage && created.imageTag) await removeOwnedImage(d.docker, d.own, created.imageTag, { serviceId: service.id });
    if (created.built) await removeBuildLeftovers(d.docker, d.own, service.id);
  } catch (err) {
    d.log(`cleaning up after a failed deployment of ${service.id}`, err);
  }
}
