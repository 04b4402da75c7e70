// The image a deployment runs: pulled (an image service, checked against the key's reach), or
// built from a checkout of its branch (a Dockerfile or autobuild). Used by run-deployment.ts.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import type { DeploymentRecord, ServiceRecord } from '../core/records.js';
import { BuildError } from '../core/build-error.js';
import { checkout, cloneUrlFor } from '../builder/checkout.js';
import { prepareContext, tarContext } from '../builder/context.js';
import { chooseBuild, dockerfilePathVariable, serviceRoot } from '../builder/dockerfile-choice.js';
import { AUTOBUILD_DOCKERFILE, autobuildFor, describePlan, frameworkOf, writeAutobuildDockerfile } from '../builder/autobuild/generate.js';
import { buildImage, imageExists, pullImage } from '../docker/images.js';
import { readyImage } from '../docker/image-guard.js';
import { imageRefProblem } from '../core/image-refs.js';
import { readyBuildImages } from './build-images.js';
import { checkRegistryReach, pinCloneAddress, type ClonePin } from '../builder/clone-reach.js';
import { cloneReachOfService } from '../core/clone-reach.js';
import type { CloneReach } from '../core/ports/clone-reach-check.js';
import { BerthError } from '../core/errors.js';
import { isHttpGitUrl } from '../core/source.js';
import { removeBuildLeftovers } from '../docker/build-leftovers.js';
import type { DeployDeps } from './context.js';
import { LogGate } from './log-gate.js';
import { withStepTimeout } from './step-timeout.js';

export interface Created {
  imageTag: string | null;
  builtImage: boolean;
  /** A build ran: its leftover layers (found by the build label) go if the deployment fails. */
  built: boolean;
  containerId: string | null;
}

export async function produceImage(
  d: DeployDeps,
  service: ServiceRecord,
  dep: DeploymentRecord,
  workDir: string,
  created: Created,
  say: (line: string, stream?: 'stdout' | 'stderr') => void,
  signal: AbortSignal,
): Promise<string> {
  // a manual deployment given an image (core's redeployLive: the config files changed) runs it like a rollback
  if (dep.trigger === 'rollback' || (dep.trigger === 'manual' && dep.imageTag !== null)) {
    // An earlier deployment's image, run again as it is: no checkout, no build.
    const ref = dep.imageTag;
    if (!ref || !(await imageExists(d.docker, ref)))
      throw new BuildError(`the image ${ref ?? '(none)'} to ${dep.trigger === 'rollback' ? 'roll back to' : 'run again'} no longer exists; deploy again to build it`);
    const commit = dep.commitSha ? ` (commit ${dep.commitSha.slice(0, 12)})` : '';
    say(
      dep.trigger === 'rollback'
        ? `Rolling back: running image ${ref}${commit} again, without building`
        : `Redeploying: running the live image ${ref}${commit} again with the service's current config files, without building`,
    );
    return ref;
  }
  if (service.kind === 'image') {
    const ref = service.dockerImage!;
    // a row stored before the rule is refused like a new one (core/image-refs.ts)
    const problem = imageRefProblem(ref);
    if (problem) throw new BuildError(`dockerImage ${ref.slice(0, 200)} ${problem}`);
    await registryWithinReach(d, service, ref);
    await pull(d, ref, service.id, say, signal);
    await d.store.deployments.update(dep.id, { imageTag: ref, buildMethod: 'image' });
    return ref;
  }
  if (service.kind === 'database') {
    const ref = d.databaseImages[service.databaseEngine!];
    if (await imageExists(d.docker, ref)) say(`Using image ${ref} (present locally) for ${service.databaseEngine}`);
    else {
      say(`Pulling ${ref} for ${service.databaseEngine}`);
      const limit = { seconds: (await d.deployLimits()).pullTimeoutSeconds, what: `pulling ${ref}`, setting: 'pullTimeoutSeconds' };
      await withStepTimeout(signal, limit, (stepSignal) => pullImage(d.docker, ref, (line, stream) => say(line, stream), stepSignal));
    }
    await d.store.deployments.update(dep.id, { imageTag: ref, buildMethod: 'image' });
    return ref;
  }
  if (service.kind !== 'git') throw new BuildError(`${service.kind} services cannot be deployed`);

  mkdirSync(d.buildsDir, { recursive: true });
  mkdirSync(workDir);
  const checkoutDir = mkdtempSync(join(workDir, 'src-'));
  const url = cloneUrlFor(service, d.gitBaseUrl);
  const branch = dep.branch ?? service.branch;
  const commit = dep.trigger === 'webhook' ? dep.commitSha : null;
  // where this service's clone and registries may be (the key that created it: core/clone-reach.ts)
  const reach = await cloneReachOfService(d.store, service);
  const pin = await clonePin(d, reach, url);
  const limits = await d.deployLimits();
  // the clone's time limit is a system setting; when none is stored, BERTH_CLONE_TIMEOUT's value
  const cloneLimits = {
    ...d.cloneLimits,
    timeoutMs: limits.cloneTimeoutSeconds * 1000,
    ...(limits.stored.has('cloneTimeoutSeconds') ? { timeoutSource: 'the limit set in settings, cloneTimeoutSeconds' } : {}),
  };
  const { commitSha } = await checkout({ repoUrl: url, branch, commit, token: service.githubToken, pin, dest: checkoutDir, signal, log: (l) => say(l), limits: cloneLimits });
  await d.store.deployments.update(dep.id, { commitSha });

  const root = serviceRoot(checkoutDir, service.rootDir);
  const variable = dockerfilePathVariable(service.slug);
  const ownEnv = await d.store.env.listByService(service.id);
  const value = ownEnv.find((e) => e.key === variable)?.value;
  const choice = chooseBuild({
    root,
    buildMethod: service.buildMethod,
    dockerfilePath: service.dockerfilePath,
    dockerfileVariable: value !== undefined ? { name: variable, value } : null,
  });
  await d.store.deployments.update(dep.id, { buildMethod: choice.method });
  await d.store.services.update(service.id, { detectedBuildMethod: choice.method });
  let dockerfileToBuild: string;
  if (choice.method === 'autobuild') {
    // The analyzer's plan becomes a Dockerfile in the context, then the same build path as a user's.
    const { plan, dockerfile: generated } = autobuildFor(service, root, checkoutDir, d.autobuildImages);
    await d.store.services.update(service.id, { framework: frameworkOf(plan) });
    say(describePlan(plan));
    for (const note of plan.notes) say(`Note: ${note}`);
    say(`Generated Dockerfile (${AUTOBUILD_DOCKERFILE}):`);
    for (const line of generated.trimEnd().split('\n')) say(line);
    say('(end of generated Dockerfile)');
    dockerfileToBuild = writeAutobuildDockerfile(root, generated, say);
  } else {
    say(`Building with ${choice.dockerfile} (from ${choice.source})`);
    dockerfileToBuild = choice.dockerfile;
  }
  const labels = d.own.layerLabels({ projectId: service.projectId, serviceId: service.id });
  // the Dockerfile as the repository (or autobuild) wrote it, so the lines named are its own;
  // prepareContext only adds LABEL, COPY and ARG lines naming no image
  const buildArgs: Record<string, string> = {};
  await readyBuildImages(d, service.id, root, dockerfileToBuild, buildArgs, say, signal, (ref) => checkRegistryReach(ref, reach, d.reachFacts));
  const dockerfile = prepareContext(root, dockerfileToBuild, { caFile: d.buildCaFile, labels, log: say });
  const tag = `berth/${service.slug}:${dep.id.slice(0, 12)}`;
  created.imageTag = tag;
  created.built = true;
  const buildLimit = { seconds: (await d.deployLimits()).buildTimeoutSeconds, what: 'the build', setting: 'buildTimeoutSeconds' };
  // a build printing faster than the rate loses lines, and its log says so
  const gate = new LogGate(d.logRate, (marker) => say(marker, 'stderr'), 'this build');
  const outcome = await withStepTimeout(signal, buildLimit, (stepSignal) =>
    buildImage(d.docker, {
      context: tarContext(root),
      dockerfile,
      tag,
      labels,
      buildArgs,
      limits: d.buildLimits,
      signal: stepSignal,
      onLine: (line, stream) => {
        if (gate.admit(line)) say(line, stream);
      },
      busy: () => d.buildLogs.busy(),
    }),
  ).finally(() => gate.close());
  // the tag exists now; cleanUp still removes it only if its labels prove it ours
  created.builtImage = true;
  if (choice.method === 'autobuild' && outcome.stageIds.length > 1) {
    // generated Dockerfiles are multi-stage: drop the build stages' leftover layers
    await removeBuildLeftovers(d.docker, d.own, service.id, 0).catch((err: unknown) => d.log(`removing build stages of ${dep.id}`, err));
  }
  await d.store.deployments.update(dep.id, { imageTag: tag });
  say(`Built image ${tag}`);
  return tag;
}

/** An image service's registry within the reach of the key that created it. */
async function registryWithinReach(d: DeployDeps, service: ServiceRecord, ref: string): Promise<void> {
  try {
    await checkRegistryReach(ref, await cloneReachOfService(d.store, service), d.reachFacts);
  } catch (err) {
    if (err instanceof BerthError) throw new BuildError(`dockerImage ${ref.slice(0, 200)}: ${err.message}`);
    throw err;
  }
}

/** The clone's pinned address when the service's source came from a key over selected projects (core/clone-reach.ts). */
async function clonePin(d: DeployDeps, reach: CloneReach, url: string): Promise<ClonePin | null> {
  if (!isHttpGitUrl(url)) return null; // checkout refuses it with its own reason
  try {
    return await pinCloneAddress(url, reach, d.reachFacts, d.gitBaseUrl);
  } catch (err) {
    if (err instanceof BerthError) throw new BuildError(`${err.message}; the clone was not started`);
    throw err;
  }
}

/** Readies an image (docker/image-guard.ts) within the pull time limit (a system setting). */
async function pull(d: DeployDeps, ref: string, serviceId: string, say: (line: string, stream?: 'stdout' | 'stderr') => void, signal: AbortSignal): Promise<void> {
  const limit = { seconds: (await d.deployLimits()).pullTimeoutSeconds, what: `pulling ${ref}`, setting: 'pullTimeoutSeconds' };
  await withStepTimeout(signal, limit, (stepSignal) => readyImage(d.docker, d.own, ref, serviceId, say, stepSignal));
}
