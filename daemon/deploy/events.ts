// Deployment status changes for the streams that wait on them (a deployment's `end` event), read
// from the daemon's event hub.
import type { DeploymentStatus } from '../../shared/types.js';
import type { EventHub } from '../events/hub.js';

export interface DeploymentChange {
  deploymentId: string;
  serviceId: string;
  status: DeploymentStatus;
}

export class DaemonEvents {
  constructor(readonly hub: EventHub) {}

  onDeployment(fn: (change: DeploymentChange) => void): () => void {
    return this.hub.subscribe((e) => {
      if (e.type === 'deployment') fn(e.data);
    });
  }
}
