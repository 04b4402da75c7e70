// The build-plan previewer (core/build-plans.ts checks the key and the service first): clone the
// service's branch into a temporary directory, choose the builder by the same rules as a
// deployment, run the analyzer, and remove the clone. Nothing is built. A read key is enough to
// ask, so previews are bounded: the same clone limits as a deployment, and a few at once (in all
// and per key); one more answers 429 `too_many_build_plans` at once.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { BuildPlanPreview } from '../../../shared/types.js';
import type { BuildPlanner } from '../../core/ports/build-planner.js';
import { BerthError } from '../../core/errors.js';
import { checkGitUrl, isHttpGitUrl } from '../../core/source.js';
import type { ServiceRecord } from '../../core/records.js';
import type { Store } from '../../core/ports/store.js';
import { BuildError } from '../../core/build-error.js';
import { checkout, cloneUrlFor, DEFAULT_CLONE_LIMITS, type CloneLimits } from '../checkout.js';
import { chooseBuild, dockerfilePathVariable, serviceRoot } from '../dockerfile-choice.js';
import type { BaseImages } from './base-images.js';
import type { CloneReach } from '../../core/ports/clone-reach-check.js';
import type { ReachFacts } from '../../backups/source-reach.js';
import { pinCloneAddress } from '../clone-reach.js';
import { autobuildFor, frameworkOf } from './generate.js';

/** The repository could not be cloned: git's reason, answered as 502 (the git host is upstream of Berth). */
class SourceUnavailable extends BerthError {
  readonly status = 502;
  readonly code = 'source_unavailable';
}

/** Too many build-plan previews are running (in all, or for this key): try again when one has finished. */
class TooManyBuildPlans extends BerthError {
  readonly status = 429;
  readonly code = 'too_many_build_plans';
}

export interface BuildPlanDeps {
  store: Store;
  gitBaseUrl: string;
  images: BaseImages;
  /** Where the temporary clones go. */
  workDir: string;
  cloneLimits?: CloneLimits;
  /** Previews running at once: in all, and per key. */
  concurrency?: { total: number; perKey: number };
  /** This host's addresses and Docker's networks, for the clone's reach. */
  reachFacts: ReachFacts;
}

export class BuildPlanPreviewer implements BuildPlanner {
  private running = 0;
  private readonly runningByKey = new Map<string, number>();

  constructor(private readonly d: BuildPlanDeps) {}

  async preview(service: ServiceRecord, keyId: string, reach: CloneReach): Promise<BuildPlanPreview> {
    const limit = this.d.concurrency ?? { total: 2, perKey: 1 };
    const mine = this.runningByKey.get(keyId) ?? 0;
    if (mine >= limit.perKey) {
      throw new TooManyBuildPlans(`this key already has ${mine} build plan(s) running (at most ${limit.perKey} at once, BERTH_BUILD_PLAN_PER_KEY); try again when it has finished`);
    }
    if (this.running >= limit.total) {
      throw new TooManyBuildPlans(`${this.running} build plans are running (at most ${limit.total} at once, BERTH_BUILD_PLAN_CONCURRENCY); try again shortly`);
    }
    this.running++;
    this.runningByKey.set(keyId, mine + 1);
    try {
      mkdirSync(this.d.workDir, { recursive: true });
      const dir = mkdtempSync(join(this.d.workDir, 'plan-'));
      try {
        return await this.inspect(service, dir, reach);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    } finally {
      this.running--;
      const left = (this.runningByKey.get(keyId) ?? 1) - 1;
      if (left > 0) this.runningByKey.set(keyId, left);
      else this.runningByKey.delete(keyId);
    }
  }

  private async inspect(service: ServiceRecord, dir: string, reach: CloneReach): Promise<BuildPlanPreview> {
    let commitSha: string;
    let repoUrl: string;
    try {
      repoUrl = cloneUrlFor(service, this.d.gitBaseUrl);
    } catch (err) {
      if (err instanceof BuildError) throw new SourceUnavailable(err.message);
      throw err;
    }
    // a row stored before only http(s) was accepted: refused like a new one, before any git runs
    if (!isHttpGitUrl(repoUrl)) checkGitUrl(repoUrl);
    // 403 before git runs when the host is out of the key's reach (core/clone-reach.ts)
    const pin = await pinCloneAddress(repoUrl, reach, this.d.reachFacts, this.d.gitBaseUrl);
    try {
      ({ commitSha } = await checkout({
        repoUrl,
        branch: service.branch,
        token: service.githubToken,
        pin,
        dest: dir,
        log: () => undefined,
        limits: this.d.cloneLimits ?? DEFAULT_CLONE_LIMITS,
      }));
    } catch (err) {
      if (err instanceof BuildError) throw new SourceUnavailable(err.message);
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
