// Ownership labels. Every container, image, network and volume Berth creates carries them, and
// nothing is stopped or removed unless its labels prove that this daemon (its instance id, kept
// in the data dir) made it for that project, service or deployment.
export const LABEL_MANAGED = 'dev.berth.managed';
export const LABEL_INSTANCE = 'dev.berth.instance';
export const LABEL_PROJECT = 'dev.berth.project';
export const LABEL_SERVICE = 'dev.berth.service';
export const LABEL_DEPLOYMENT = 'dev.berth.deployment';

export type Labels = Record<string, string>;

export interface Owner {
  projectId?: string;
  serviceId?: string;
  deploymentId?: string;
}

export class Ownership {
  constructor(readonly instanceId: string) {}

  labels(owner: Owner & { projectId: string }): Labels {
    const labels: Labels = { [LABEL_MANAGED]: 'true', [LABEL_INSTANCE]: this.instanceId, [LABEL_PROJECT]: owner.projectId };
    if (owner.serviceId) labels[LABEL_SERVICE] = owner.serviceId;
    if (owner.deploymentId) labels[LABEL_DEPLOYMENT] = owner.deploymentId;
    return labels;
  }

  /** True when `labels` prove this daemon made the object for every owner id given. */
  owns(labels: Labels | null | undefined, owner: Owner): boolean {
    if (!labels || labels[LABEL_MANAGED] !== 'true' || labels[LABEL_INSTANCE] !== this.instanceId) return false;
    if (owner.projectId !== undefined && labels[LABEL_PROJECT] !== owner.projectId) return false;
    if (owner.serviceId !== undefined && labels[LABEL_SERVICE] !== owner.serviceId) return false;
    if (owner.deploymentId !== undefined && labels[LABEL_DEPLOYMENT] !== owner.deploymentId) return false;
    return true;
  }

  /** A dockerode `filters` value selecting this daemon's objects of an owner. */
  filter(owner: Owner): { label: string[] } {
    const label = [`${LABEL_MANAGED}=true`, `${LABEL_INSTANCE}=${this.instanceId}`];
    if (owner.projectId) label.push(`${LABEL_PROJECT}=${owner.projectId}`);
    if (owner.serviceId) label.push(`${LABEL_SERVICE}=${owner.serviceId}`);
    if (owner.deploymentId) label.push(`${LABEL_DEPLOYMENT}=${owner.deploymentId}`);
    return { label };
  }
}
