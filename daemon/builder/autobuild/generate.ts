// Autobuild for one service: its record's overrides and runtime mode in, a plan and the generated
// Dockerfile out. Used by deployments (which then build the file like any Dockerfile) and by the
// build-plan preview.
import type { ServiceRecord } from '../../core/records.js';
import { BuildError } from '../../core/build-error.js';
import { AUTOBUILD_DOCKERFILE, writeBuildFile } from '../build-files.js';
import { analyze } from './analyze.js';
import type { BaseImages } from './base-images.js';
import { renderDockerfile } from './dockerfile.js';
import { AnalysisError, STACK_NAMES, type BuildPlan } from './plan.js';

/** Where the generated Dockerfile goes in the build context: beside Berth's other build files (.berth.Dockerfile, .berth-build-ca.pem). */
export { AUTOBUILD_DOCKERFILE } from '../build-files.js';

export interface Autobuild {
  plan: BuildPlan;
  dockerfile: string;
}

type ServiceFields = Pick<ServiceRecord, 'installCommand' | 'buildCommand' | 'startCommand' | 'staticOutput' | 'runtimeMode' | 'internalPort'>;

/** Analyzes the service's directory; a repository autobuild cannot place fails with a BuildError saying what it looked for. */
export function autobuildFor(service: ServiceFields, root: string, repoRoot: string, images: BaseImages): Autobuild {
  try {
    const plan = analyze({
      root,
      repoRoot,
      overrides: {
        installCommand: blankToNull(service.installCommand),
        buildCommand: blankToNull(service.buildCommand),
        startCommand: blankToNull(service.startCommand),
        staticOutput: blankToNull(service.staticOutput),
      },
      runtimeMode: service.runtimeMode,
      port: service.internalPort,
      images,
    });
    return { plan, dockerfile: renderDockerfile(plan) };
  } catch (err) {
    if (err instanceof AnalysisError) throw new BuildError(err.message);
    throw err;
  }
}

/** The value the service's `framework` field records: the framework, else the stack. */
export function frameworkOf(plan: BuildPlan): string {
  return plan.framework ?? plan.stack;
}

/** One line for the build log. */
export function describePlan(plan: BuildPlan): string {
  const parts = [`${STACK_NAMES[plan.stack]}${plan.framework ? ` (${plan.framework})` : ''}`];
  if (plan.tool !== 'none') parts.push(`tool ${plan.tool}`);
  if (plan.installCommand) parts.push(`install: ${plan.installCommand}`);
  if (plan.buildCommand) parts.push(`build: ${plan.buildCommand}`);
  if (plan.startCommand) parts.push(`start: ${plan.startCommand}`);
  if (plan.staticOutput) parts.push(`static files from ${plan.staticOutput}`);
  if (plan.port !== null) parts.push(`port ${plan.port}`);
  return `Autobuild detected ${parts.join('; ')}`;
}

/** Writes the generated Dockerfile into the build context (never through a link the repository put there); returns its path relative to the context. */
export function writeAutobuildDockerfile(root: string, dockerfile: string, log: (line: string) => void): string {
  writeBuildFile(root, AUTOBUILD_DOCKERFILE, dockerfile, log);
  return AUTOBUILD_DOCKERFILE;
}

function blankToNull(value: string | null): string | null {
  return value === null || value.trim() === '' ? null : value;
}
