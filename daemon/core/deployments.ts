// Deployments as the API sees them: queue one, list, abort, read its log.
import { deploymentSucceeded } from '../../shared/statuses.js';
import type { Deployment, DeploymentLogLine, DeploymentLogPage } from '../../shared/types.js';
import { visibleService, type Access } from './access.js';
import type { Clock } from './clock.js';
import type { DeploymentEngine } from './ports/deployment-engine.js';
import { INITIAL_STATUS, predecessorsOf } from './deployment-states.js';
import type { DeployLimitSettings } from './deploy-limits.js';
import type { EventSink } from './events.js';
import { Conflict, NotFound, TooMany } from './errors.js';
import { newId } from './ids.js';
import { readLogPage, type LogPageQuery } from './log-pages.js';
import type { LogReader } from './ports/log-feeds.js';
import type { DeploymentRecord, LogLineRecord, ServiceRecord } from './records.js';

export type { LogReader } from './ports/log-feeds.js';
import { serial } from './serial.js';
import { checkBranch } from './source.js';
import type { Store } from './ports/store.js';
import { deploymentView } from './views.js';

/** queued and building: what the state table lets become `aborted`. */
const ABORTABLE = predecessorsOf('aborted');

export class Deployments {
  /** Counting a project's queued deployments and adding one do not interleave (the cap holds under parallel POSTs). */
  private admit = serial();

  constructor(
    private store: Store,
    private clock: Clock,
    private engine: DeploymentEngine,
    private buildLogs: LogReader,
    private events: EventSink,
    private limits: DeployLimitSettings,
  ) {}

  async create(access: Access, serviceId: string, input: { branch?: string | undefined }): Promise<Deployment> {
    access.requireWrite();
    const service = await visibleService(this.store, access, serviceId);
    const branch = input.branch !== undefined && service.kind === 'git' ? checkBranch(input.branch) : null;
    return this.queue(service, { branch });
  }

  /**
   * A new deployment that runs the image of an earlier deployment that went live, without building
   * (trigger `rollback`): the same health check and swap as any deployment.
   */
  async rollback(access: Access, deploymentId: string): Promise<Deployment> {
    access.requireWrite();
    const { deployment: source, service } = await this.visible(access, deploymentId);
    if (!deploymentSucceeded(source.status)) {
      throw new Conflict(`deployment ${source.id} is ${source.status}; only a deployment that went live can be rolled back to`, 'not_live');
    }
    if (service.kind === 'database') throw new Conflict('a database service is not rolled back; restore one of its backups instead', 'not_rollbackable');
    if (!source.imageTag || !(await this.engine.imageExists(source.imageTag))) {
      throw new Conflict(`the image of deployment ${source.id} no longer exists (only the images of the last successful deployments are kept); deploy again to build it`, 'image_gone');
    }
    return this.queue(service, {
      trigger: 'rollback',
      imageTag: source.imageTag,
      commitSha: source.commitSha,
      branch: source.branch,
      buildMethod: source.buildMethod,
      filesFrom: source.id,
    });
  }

  /**
   * The live deployment's image again, as a new deployment (trigger `manual`): what a change of
   * the service's config files needs to reach its containers. Null when nothing is live.
   */
  async redeployLive(service: ServiceRecord): Promise<Deployment | null> {
    const live = (await this.store.deployments.listByService(service.id)).find((x) => x.status === 'running');
    if (!live) return null;
    if (!live.imageTag || !(await this.engine.imageExists(live.imageTag))) return this.queue(service, {});
    return this.queue(service, { imageTag: live.imageTag, commitSha: live.commitSha, branch: live.branch, buildMethod: live.buildMethod });
  }

  /** A push that a signed webhook delivered: that commit of the service's branch (trigger `webhook`). */
  async fromWebhook(service: ServiceRecord, commitSha: string): Promise<Deployment> {
    return this.queue(service, { trigger: 'webhook', commitSha });
  }

  /**
   * Refuses (429, nothing created) a new deployment of `service` when its project already has
   * `maxQueuedPerProject` deployments waiting. A queued deployment of the same service does not
   * count: the new one replaces it in the queue.
   */
  async requireQueueRoom(service: ServiceRecord): Promise<void> {
    const { maxQueuedPerProject: cap } = await this.limits.read();
    const ofProject = new Set((await this.store.services.list([service.projectId])).map((s) => s.id));
    const waiting = (await this.store.deployments.listByStatus(['queued'])).filter((d) => ofProject.has(d.serviceId) && d.serviceId !== service.id);
    if (waiting.length >= cap) {
      throw new TooMany(
        `this project already has ${waiting.length} queued deployment${waiting.length === 1 ? '' : 's'}, the most one project may have waiting (maxQueuedPerProject, a system setting, is ${cap}); wait until some have started, or abort one`,
        'deploy_queue_full',
      );
    }
  }

  private queue(service: ServiceRecord, fields: Partial<Pick<DeploymentRecord, 'trigger' | 'imageTag' | 'commitSha' | 'branch' | 'buildMethod' | 'filesFrom'>>): Promise<Deployment> {
    return this.admit(async () => {
      await this.requireQueueRoom(service);
      return this.insertAndEnqueue(service, fields);
    });
  }

  private async insertAndEnqueue(service: ServiceRecord, fields: Partial<Pick<DeploymentRecord, 'trigger' | 'imageTag' | 'commitSha' | 'branch' | 'buildMethod' | 'filesFrom'>>): Promise<Deployment> {
    const record: DeploymentRecord = {
      id: newId(),
      serviceId: service.id,
      commitSha: null,
      status: INITIAL_STATUS,
      trigger: 'manual',
      imageTag: null,
      containerName: null,
      startedAt: null,
      finishedAt: null,
      createdAt: this.clock.now(),
      branch: null,
      containerId: null,
      upstreamPort: null,
      buildMethod: null,
      ...fields,
    };
    await this.store.deployments.insert(record);
    this.events.publish({ type: 'deployment', projectId: service.projectId, data: { deploymentId: record.id, serviceId: service.id, projectId: service.projectId, status: record.status } });
    this.engine.enqueue(record.id, service.id, service.projectId);
    return deploymentView(record);
  }

  async list(access: Access, serviceId: string): Promise<Deployment[]> {
    const service = await visibleService(this.store, access, serviceId);
    return (await this.store.deployments.listByService(service.id)).map(deploymentView);
  }

  /** A deployment and its service, if the key can see the service's project. */
  async visible(access: Access, deploymentId: string): Promise<{ deployment: DeploymentRecord; service: ServiceRecord }> {
    const deployment = await this.store.deployments.get(deploymentId);
    const service = deployment ? await this.store.services.get(deployment.serviceId) : null;
    if (!deployment || !service || !access.canSee(service.projectId)) throw new NotFound('deployment not found');
    return { deployment, service };
  }

  async abort(access: Access, deploymentId: string): Promise<void> {
    access.requireWrite();
    const { deployment } = await this.visible(access, deploymentId);
    if (!ABORTABLE.includes(deployment.status) || !(await this.engine.abort(deployment.id))) {
      throw new Conflict(`deployment is ${deployment.status}; only queued or building deployments can be aborted`, 'not_abortable');
    }
  }

  /** One bounded page of a deployment's build log (core/log-pages.ts); from the start by default. */
  async logs(access: Access, deploymentId: string, query: LogPageQuery = { after: 0 }, limit?: number): Promise<DeploymentLogPage> {
    const { deployment } = await this.visible(access, deploymentId);
    const id = deployment.id;
    const page = await readLogPage(
      {
        after: (afterId, n) => this.buildLogs.read(id, afterId, n),
        before: (beforeId, n) => this.buildLogs.before(id, beforeId, n),
        tail: (n) => this.buildLogs.tail(id, n),
      },
      query,
      limit,
    );
    return { logs: page.lines.map((l) => ({ ...logLineView(l), deploymentId: id })), nextCursor: page.nextCursor, prevCursor: page.prevCursor, hasMore: page.nextCursor !== null };
  }
}

export function logLineView(l: LogLineRecord): Omit<DeploymentLogLine, 'deploymentId'> {
  return { id: l.id, line: l.line, stream: l.stream, createdAt: l.createdAt };
}
