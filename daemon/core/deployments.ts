// Deployments as the API sees them: queue one, list, abort, read its log.
import type { Deployment, DeploymentLogLine } from '../../shared/types.js';
import type { Access } from './access.js';
import type { Clock } from './clock.js';
import type { DeploymentEngine } from './deployment-engine.js';
import type { EventSink } from './events.js';
import { Conflict, NotFound } from './errors.js';
import { newId } from './ids.js';
import { visibleService } from './lookup.js';
import type { DeploymentRecord, LogLineRecord, ServiceRecord } from './records.js';
import { checkBranch } from './source.js';
import type { Store } from './store.js';
import { deploymentView } from './views.js';

export interface LogReader {
  read(owner: string, afterId: number, limit?: number): Promise<LogLineRecord[]>;
}

export const TERMINAL_STATUSES: readonly DeploymentRecord['status'][] = ['running', 'superseded', 'failed', 'aborted'];
const ABORTABLE: readonly DeploymentRecord['status'][] = ['queued', 'building'];

export class Deployments {
  constructor(
    private store: Store,
    private clock: Clock,
    private engine: DeploymentEngine,
    private buildLogs: LogReader,
    private events: EventSink,
  ) {}

  async create(access: Access, serviceId: string, input: { branch?: string | undefined }): Promise<Deployment> {
    access.requireWrite();
    const service = await visibleService(this.store, access, serviceId);
    const branch = input.branch !== undefined && service.kind === 'git' ? checkBranch(input.branch) : null;
    const record: DeploymentRecord = {
      id: newId(),
      serviceId: service.id,
      commitSha: null,
      status: 'queued',
      trigger: 'manual',
      imageTag: null,
      containerName: null,
      startedAt: null,
      finishedAt: null,
      createdAt: this.clock.now(),
      branch,
      containerId: null,
      upstreamPort: null,
      buildMethod: null,
    };
    await this.store.deployments.insert(record);
    this.events.publish({ type: 'deployment', projectId: service.projectId, data: { deploymentId: record.id, serviceId: service.id, projectId: service.projectId, status: 'queued' } });
    this.engine.enqueue(record.id, service.id);
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

  async logs(access: Access, deploymentId: string): Promise<DeploymentLogLine[]> {
    const { deployment } = await this.visible(access, deploymentId);
    return (await this.buildLogs.read(deployment.id, 0, 100_000)).map((l) => ({ ...logLineView(l), deploymentId: deployment.id }));
  }
}

export function logLineView(l: LogLineRecord): Omit<DeploymentLogLine, 'deploymentId'> {
  return { id: l.id, line: l.line, stream: l.stream, createdAt: l.createdAt };
}
