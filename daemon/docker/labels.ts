// Ownership labels. Every container, image, network and volume Berth creates carries them, and
// nothing is stopped or removed unless its labels prove that this daemon (its instance id, kept
// in the data dir) made it for that project, service or deployment.
export const LABEL_MANAGED = 'dev.berth.managed';
export const LABEL_INSTANCE = 'dev.berth.instance';
export const LABEL_PROJECT = 'dev.berth.project';
export const LABEL_SERVICE = 'dev.berth.service';
export const LABEL_DEPLOYMENT = 'dev.berth.deployment';
/**
 * Images carry one combined label instead, value `<instance>/<project>/<service>`. The classic
 * builder turns every label of the build API into a step of its own at the end of the build (a
 * container created and committed, never cached, as its parent is new), so Berth puts it, with
 * LABEL_BUILD, in the one LABEL instruction it adds after each FROM (see build/context.ts): the
 * same for every deployment of a service, so that step comes from the layer cache from the
 * second build on and the built image costs no step beyond the Dockerfile's own. Which
 * deployment an image belongs to is in its tag (`berth/<slug>:<deployment id>`) and the
 * deployment's record. Images built before carry a fourth part, the deployment id.
 */
export const LABEL_IMAGE_OWNER = 'dev.berth.image-owner';
/**
 * Every layer a build commits carries this one (with LABEL_IMAGE_OWNER, in a LABEL step after each
 * FROM of the Dockerfile Berth builds), value `<instance>/<service>`: what a failed build or a
 * build stage left behind is found through it, never through ids printed in the build's own
 * output. Per service, not per deployment, so the layer cache keeps working from one deployment
 * to the next.
 */
export const LABEL_BUILD = 'dev.berth.build';

/**
 * Objects that belong to the server rather than to a project (Berth's registry in Swarm mode and
 * its volume) carry this one instead of a project label, value the object's role (`registry`).
 */
const LABEL_ROLE = 'dev.berth.role';

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

  /** The labels of a server-wide object of this daemon (no project): managed, instance, role. */
  systemLabels(role: string): Labels {
    return { [LABEL_MANAGED]: 'true', [LABEL_INSTANCE]: this.instanceId, [LABEL_ROLE]: role };
  }

  /** True when `labels` prove this daemon made the server-wide object of that role. */
  ownsSystem(labels: Labels | null | undefined, role: string): boolean {
    return labels?.[LABEL_MANAGED] === 'true' && labels[LABEL_INSTANCE] === this.instanceId && labels[LABEL_ROLE] === role;
  }

  /**
   * The labels every layer of a service's builds carries (a LABEL step after each FROM): the image
   * owner, which proves the built image Berth's, and the build label, which finds what a build
   * left behind. Per service, so the step is cached from one deployment to the next.
   */
  layerLabels(owner: { projectId: string; serviceId: string }): Labels {
    return { [LABEL_IMAGE_OWNER]: [this.instanceId, owner.projectId, owner.serviceId].join('/'), [LABEL_BUILD]: `${this.instanceId}/${owner.serviceId}` };
  }

  /** `key=value` of the label every layer of a service's builds carries. */
  buildLabel(serviceId: string): string {
    return `${LABEL_BUILD}=${this.instanceId}/${serviceId}`;
  }

  /** True when `labels` prove this daemon made the object for every owner id given. */
  owns(labels: Labels | null | undefined, owner: Owner): boolean {
    if (labels?.[LABEL_IMAGE_OWNER]) labels = expandImageOwner(labels[LABEL_IMAGE_OWNER]);
    if (!labels || labels[LABEL_MANAGED] !== 'true' || labels[LABEL_INSTANCE] !== this.instanceId) return false;
    if (owner.projectId !== undefined && labels[LABEL_PROJECT] !== owner.projectId) return false;
    if (owner.serviceId !== undefined && labels[LABEL_SERVICE] !== owner.serviceId) return false;
    if (owner.deploymentId !== undefined && labels[LABEL_DEPLOYMENT] !== owner.deploymentId) return false;
    return true;
  }

  /** The owner ids on an object this daemon made; null when it is not ours. */
  ownerOf(labels: Labels | null | undefined): Owner | null {
    if (labels?.[LABEL_IMAGE_OWNER]) labels = expandImageOwner(labels[LABEL_IMAGE_OWNER]);
    if (!this.owns(labels, {}) || !labels) return null;
    return { projectId: labels[LABEL_PROJECT], serviceId: labels[LABEL_SERVICE], deploymentId: labels[LABEL_DEPLOYMENT] };
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

/** `<instance>/<project>/<service>`, or with a fourth part, the deployment (images built before layerLabels). */
function expandImageOwner(value: string): Labels {
  const parts = value.split('/');
  const [instance, project, service, deployment] = parts;
  if (parts.length < 3 || parts.length > 4 || !instance || !project || !service || (parts.length === 4 && !deployment)) return {};
  const labels: Labels = { [LABEL_MANAGED]: 'true', [LABEL_INSTANCE]: instance, [LABEL_PROJECT]: project, [LABEL_SERVICE]: service };
  if (deployment) labels[LABEL_DEPLOYMENT] = deployment;
  return labels;
}
