// Status changes inside the daemon, for live streams (a deployment's `end` event) and later the
// daemon-wide event stream.
import { EventEmitter } from 'node:events';
import type { DeploymentStatus } from '../../shared/types.js';

export interface DeploymentChange {
  deploymentId: string;
  serviceId: string;
  status: DeploymentStatus;
}

export class DaemonEvents {
  private emitter = new EventEmitter().setMaxListeners(0);

  deploymentChanged(change: DeploymentChange): void {
    this.emitter.emit('deployment', change);
  }

  onDeployment(fn: (change: DeploymentChange) => void): () => void {
    this.emitter.on('deployment', fn);
    return () => this.emitter.off('deployment', fn);
  }
}
