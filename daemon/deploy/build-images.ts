// Before a build starts: every image its Dockerfile (a repository's or autobuild's) makes the
// builder resolve is checked like an image service's dockerImage (a repository name, never an ID,
// a bare digest or Berth's own berth/ tags), then made ready here (docker/image-guard.ts: a plain
// local image, or pulled; never an image Berth built for another service), so the builder itself
// resolves nothing by ID and pulls nothing. A refusal fails the deployment with a build-log line
// naming the instruction, its line and the reason.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { imageRefProblem } from '../core/image-refs.js';
import { BerthError } from '../core/errors.js';
import { BuildError } from '../core/build-error.js';
import { imageRefsOf, instructionsOf, type DockerfileImageRef } from '../builder/dockerfile-refs.js';
import { readyImage } from '../docker/image-guard.js';
import type { LineSink } from '../docker/images.js';
import type { DeployDeps } from './context.js';
import { withStepTimeout } from './step-timeout.js';

function describe(r: DockerfileImageRef): string {
  const expanded = r.written === r.ref ? '' : ` (${r.ref.slice(0, 200)} after ARG expansion)`;
  return `the Dockerfile's ${r.instruction} ${r.written.slice(0, 200)} on line ${r.line}${expanded}`;
}

/** Checks and readies the images of the Dockerfile at `root/dockerfile`; throws BuildError on the first refused one. */
export async function readyBuildImages(
  d: Pick<DeployDeps, 'docker' | 'own' | 'deployLimits'>,
  serviceId: string,
  root: string,
  dockerfile: string,
  buildArgs: Readonly<Record<string, string>>,
  say: LineSink,
  signal: AbortSignal,
  /** Throws when the reference's registry is out of the service's reach (core/clone-reach.ts). */
  checkRegistry: (ref: string) => Promise<void>,
): Promise<void> {
  const refs = imageRefsOf(readFileSync(join(root, dockerfile), 'utf8'), buildArgs);
  for (const r of refs) {
    const problem = imageRefProblem(r.ref);
    if (problem) throw new BuildError(`${describe(r)} ${problem}; the build was not started`);
    try {
      await checkRegistry(r.ref);
    } catch (err) {
      if (err instanceof BerthError) throw new BuildError(`${describe(r)}: ${err.message}; the build was not started`);
      throw err;
    }
  }
  const done = new Set<string>();
  for (const r of refs) {
    if (done.has(r.ref)) continue;
    done.add(r.ref);
    const limit = { seconds: (await d.deployLimits()).pullTimeoutSeconds, what: `pulling ${r.ref.slice(0, 200)}`, setting: 'pullTimeoutSeconds' };
    const { onBuild } = await withStepTimeout(signal, limit, (stepSignal) => readyImage(d.docker, d.own, r.ref, serviceId, say, stepSignal, ` (${r.instruction} on line ${r.line})`));
    if (r.instruction !== 'FROM') continue;
    // a base image's ONBUILD triggers run in this build: one copying from another image is not followed
    const copies = instructionsOf(onBuild.join('\n')).instructions.filter((i) => /(^|\s)--(from|mount)\b/i.test(i.rest));
    if (copies.length > 0) {
      throw new BuildError(
        `image ${r.ref} (FROM on line ${r.line}) has an ONBUILD trigger that copies from another image (${copies[0]!.keyword} ${copies[0]!.rest.slice(0, 120)}); Berth does not build on such images`,
      );
    }
  }
}
