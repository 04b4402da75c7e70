// Which builder runs, by the spec's rules:
// 1. auto: a Dockerfile in the service's root is built as such, otherwise the autobuild analyzer;
// 2. dockerfile: always the Dockerfile, and a missing one fails the deployment;
// 3. autobuild: always the analyzer;
// 4. the service variable <SERVICE>_DOCKERFILE_PATH, when set, beats dockerfilePath.
import { existsSync, realpathSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { BuildMethod } from '../../shared/types.js';
import { InvalidInput } from '../core/errors.js';
import { checkRelativePath } from '../core/source.js';
import { BuildError } from '../core/build-error.js';

export type BuildChoice = { method: 'dockerfile'; dockerfile: string; source: string } | { method: 'autobuild' };

/** `my-api` -> `MY_API_DOCKERFILE_PATH`. */
export function dockerfilePathVariable(serviceSlug: string): string {
  return `${serviceSlug.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}_DOCKERFILE_PATH`;
}

/** The directory a service builds from: the checkout, or rootDir inside it (which must exist and stay inside). */
export function serviceRoot(checkout: string, rootDir: string | null): string {
  if (!rootDir) return checkout;
  const dir = join(checkout, rootDir);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new BuildError(`rootDir "${rootDir}" does not exist in the repository`);
  assertInside(checkout, dir, 'rootDir');
  return dir;
}

function assertInside(top: string, path: string, what: string): void {
  const rel = relative(realpathSync(top), realpathSync(path));
  if (rel === '..' || rel.startsWith(`..${sep}`)) throw new BuildError(`${what} points outside the repository (through a symbolic link)`);
}

export function chooseBuild(input: {
  root: string;
  buildMethod: BuildMethod;
  dockerfilePath: string | null;
  /** The value of <SERVICE>_DOCKERFILE_PATH, if the service has it. */
  dockerfileVariable: { name: string; value: string } | null;
}): BuildChoice {
  let path = input.dockerfilePath ?? 'Dockerfile';
  let source = input.dockerfilePath ? 'dockerfilePath' : 'the default';
  if (input.dockerfileVariable && input.dockerfileVariable.value.trim() !== '') {
    try {
      path = checkRelativePath(input.dockerfileVariable.name, input.dockerfileVariable.value) ?? 'Dockerfile';
    } catch (err) {
      throw new BuildError(err instanceof InvalidInput ? err.message : String(err));
    }
    source = input.dockerfileVariable.name;
  }
  if (input.buildMethod === 'autobuild') return { method: 'autobuild' };
  const full = join(input.root, path);
  const exists = existsSync(full) && statSync(full).isFile();
  if (exists) {
    assertInside(input.root, full, 'the Dockerfile path');
    return { method: 'dockerfile', dockerfile: path, source };
  }
  if (input.buildMethod === 'dockerfile') {
    throw new BuildError(`buildMethod is dockerfile, but there is no Dockerfile at ${path} (from ${source}) in the service's directory`);
  }
  return { method: 'autobuild' };
}
