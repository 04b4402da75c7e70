// The build-plan preview: clone the service's branch into a temporary directory, choose the builder
// by the same rules as a deployment, run the analyzer, and remove the clone. Nothing is built.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { BuildPlanPreview } from '../../../shared/types.js';
import type { Access } from '../../core/access.js';
import { BerthError, InvalidInput } from '../../core/errors.js';
import { visibleService } from '../../core/lookup.js';
import type { ServiceRecord } from '../../core/records.js';
import type { Store } from '../../core/store.js';
import { BuildError } from '../build-error.js';
import { checkout, cloneUrlFor } from '../checkout.js';
import { chooseBuild, dockerfilePathVariable, serviceRoot } from '../dockerfile-choice.js';
import type { BaseImages } from './base-images.js';
import { autobuildFor, frameworkOf } from './generate.js';

/** The repository could not be cloned: git's reason, answered as 502 (the git host is upstream of Berth). */
export class SourceUnavailable extends BerthError {
  readonly status = 502;
  readonly code = 'source_unavailable';
}

export interface BuildPlanDeps {
  store: Store;
  gitBaseUrl: string;
  images: BaseImages;
  /** Where the temporary clones go. */
  workDir: string;
  cloneTimeoutMs?: number;
}

export class BuildPlans {
  constructor(private readonly d: BuildPlanDeps) {}

  async preview(access: Access, serviceId: string): Promise<BuildPlanPreview> {
    const service = await visibleService(this.d.store, access, serviceId);
    if (service.kind !== 'git') {
      throw new InvalidInput(`only git services have a build plan; this is ${service.kind === 'image' ? 'an image' : 'a database'} service`, 'not_a_git_service');
    }
    mkdirSync(this.d.workDir, { recursive: true });
    const dir = mkdtempSync(join(this.d.workDir, 'plan-'));
    try {
      return await this.inspect(service, dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  private async inspect(service: ServiceRecord, dir: string): Promise<BuildPlanPreview> {
    let commitSha: string;
    try {
      ({ commitSha } = await checkout({
        repoUrl: cloneUrlFor(service, this.d.gitBaseUrl),
        branch: service.branch,
        token: service.githubToken,
        dest: dir,
        signal: AbortSignal.timeout(this.d.cloneTimeoutMs ?? 120_000),
        log: () => undefined,
      }));
    } catch (err) {
      if (err instanceof BuildError) throw new SourceUnavailable(err.message === 'checkout aborted' ? 'git clone took too long' : err.message);
      throw err;
    }
    const out: BuildPlanPreview = {
      buildMethod: null,
      dockerfileExists: false,
      branch: service.branch,
      commitSha,
      stack: null,
      framework: null,
      tool: null,
      installCommand: null,
      buildCommand: null,
      startCommand: null,
      port: null,
      staticOutput: null,
      baseImages: [],
      dockerfile: null,
      notes: [],
      error: null,
    };
    try {
      const root = serviceRoot(dir, service.rootDir);
      const name = dockerfilePathVariable(service.slug);
      const value = (await this.d.store.env.listByService(service.id)).find((e) => e.key === name)?.value;
      const choose = (buildMethod: ServiceRecord['buildMethod']) =>
        chooseBuild({ root, buildMethod, dockerfilePath: service.dockerfilePath, dockerfileVariable: value !== undefined ? { name, value } : null });
      out.dockerfileExists = choose('auto').method === 'dockerfile';
      let analysisError: string | null = null;
      try {
        const { plan, dockerfile } = autobuildFor(service, root, dir, this.d.images);
        Object.assign(out, {
          stack: plan.stack,
          framework: frameworkOf(plan),
          tool: plan.tool,
          installCommand: plan.installCommand,
          buildCommand: plan.buildCommand,
          startCommand: plan.startCommand,
          port: plan.port,
          staticOutput: plan.staticOutput,
          baseImages: plan.baseImages,
          dockerfile,
          notes: plan.notes,
        });
      } catch (err) {
        if (!(err instanceof BuildError)) throw err;
        analysisError = err.message;
      }
      out.buildMethod = choose(service.buildMethod).method;
      if (out.buildMethod === 'autobuild') out.error = analysisError;
    } catch (err) {
      if (!(err instanceof BuildError)) throw err;
      out.error = err.message;
    }
    return out;
  }
}
