// What core needs from the machinery that builds and runs deployments (daemon/deploy/).
import type { ProjectRecord, ServiceRecord } from '../records.js';

export interface DeploymentEngine {
  /** Queues a deployment already stored as `queued` (the project: slots are shared fairly between projects). */
  enqueue(deploymentId: string, serviceId: string, projectId: string): void;
  /** Stops a queued or building deployment; false when it is not in the engine's hands. */
  abort(deploymentId: string): Promise<boolean>;
  /** Whether an image is still on the Engine (a rollback needs its deployment's image). */
  imageExists(ref: string): Promise<boolean>;
  /** After a service is deleted: stop its work, remove its containers, images and proxy. */
  serviceDeleted(service: ServiceRecord): Promise<void>;
  /** After a project is deleted: the same for each service, then the project's network. */
  projectDeleted(project: ProjectRecord, services: readonly ServiceRecord[]): Promise<void>;
}
