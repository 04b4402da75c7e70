// The client's calls for keys, projects, services, environment variables, domains, generated
// names, deployments and webhooks.
import type {
  ApiKey,
  BuildPlanPreview,
  DatabaseVariableSuggestion,
  Deployment,
  DeploymentLogPage,
  Domain,
  GeneratedName,
  Health,
  KeyAccess,
  KeyProjects,
  Project,
  ProjectVolume,
  ProxyResult,
  Service,
  ServiceOverview,
  Suggestion,
  TransferResult,
  NewServiceInput,
  ServiceLimitsInput,
  ServicePatch,
  StatusPage,
  StatusPageInput,
} from '../types.js';
import { ClientBase } from './base.js';

/** Fields accepted when creating a service (any kind): the wire's NewServiceInput, with its env and limits beside it. */
export type CreateServiceInput = NewServiceInput & { env?: { key: string; value: string }[]; limits?: ServiceLimitsInput };

/** The fields a service may change after creation. */
export type PatchServiceInput = ServicePatch;

export class ProjectsClient extends ClientBase {
  health(): Promise<Health> {
    return this.api('health', {});
  }

  // Keys
  listKeys(): Promise<{ keys: ApiKey[] }> {
    return this.api('keys.list', {});
  }
  createKey(input: { name?: string; access: KeyAccess; projects: KeyProjects }): Promise<{ key: ApiKey; token: string }> {
    return this.api('keys.create', {}, input);
  }
  revokeKey(keyId: string): Promise<{ ok: true }> {
    return this.api('keys.revoke', { keyId });
  }

  // Projects
  listProjects(): Promise<{ projects: Project[] }> {
    return this.api('projects.list', {});
  }
  createProject(input: { name: string; description?: string }): Promise<{ project: Project }> {
    return this.api('projects.create', {}, input);
  }
  getProject(slugOrId: string): Promise<{ project: Project }> {
    return this.api('projects.get', { projectSlug: slugOrId });
  }
  patchProject(projectId: string, input: { name?: string; description?: string }): Promise<{ project: Project }> {
    return this.api('projects.patch', { projectId }, input);
  }
  deleteProject(projectId: string): Promise<{ ok: true; proxy: ProxyResult }> {
    return this.api('projects.delete', { projectId });
  }
  /** The project's volumes: mounted ones and kept ones (serviceId null), sizes when known. */
  listVolumes(projectId: string): Promise<{ volumes: ProjectVolume[] }> {
    return this.api('volumes.list', { projectId });
  }
  projectDatabaseVariableSuggestions(projectId: string): Promise<{ suggestions: DatabaseVariableSuggestion[] }> {
    return this.api('projects.database-variable-suggestions', { projectId });
  }

  // Services
  createService(projectId: string, input: CreateServiceInput): Promise<{ service: Service }> {
    return this.api('services.create', { projectId }, input);
  }
  overview(serviceId: string): Promise<ServiceOverview> {
    return this.api('services.overview', { serviceId });
  }
  patchService(serviceId: string, input: PatchServiceInput): Promise<{ service: Service }> {
    return this.api('services.patch', { serviceId }, input);
  }
  transferService(serviceId: string, targetProjectId: string): Promise<TransferResult> {
    return this.api('services.transfer', { serviceId }, { targetProjectId });
  }
  /** `keepVolumes`: the service's volumes stay the project's (no service) for another service to mount. */
  deleteService(serviceId: string, opts: { keepVolumes?: boolean } = {}): Promise<{ ok: true; proxy: ProxyResult }> {
    return this.api('services.delete', { serviceId }, undefined, { keepVolumes: opts.keepVolumes ? 'true' : undefined });
  }
  suggestionKeys(serviceId: string): Promise<{ suggestions: Suggestion[]; databaseVariables: DatabaseVariableSuggestion[] }> {
    return this.api('services.suggestion-keys', { serviceId });
  }
  /** What a deployment would build (the builder, autobuild's plan and generated Dockerfile), without building. */
  buildPlan(serviceId: string): Promise<{ plan: BuildPlanPreview }> {
    return this.api('services.build-plan', { serviceId });
  }

  // Environment variables
  setEnv(serviceId: string, key: string, value: string): Promise<{ ok: true }> {
    return this.api('env.set', { serviceId }, { key, value });
  }
  deleteEnv(serviceId: string, envId: string): Promise<{ ok: true }> {
    return this.api('env.delete', { serviceId, envId });
  }

  // Domains
  addDomain(serviceId: string, hostname: string): Promise<{ ok: true; proxy: ProxyResult; domain: Domain }> {
    return this.api('domains.add', { serviceId }, { hostname });
  }
  patchDomain(serviceId: string, domainId: string, hostname: string): Promise<{ ok: true; proxy: ProxyResult }> {
    return this.api('domains.patch', { serviceId, domainId }, { hostname });
  }
  deleteDomain(serviceId: string, domainId: string): Promise<{ ok: true; proxy: ProxyResult }> {
    return this.api('domains.delete', { serviceId, domainId });
  }
  /** Every generated hostname label handed out, with the project that keeps it (keys over all projects). */
  generatedNames(): Promise<{ names: GeneratedName[] }> {
    return this.api('generated-names.list', {});
  }
  /** Releases a kept generated name (a label or its hostname) so that another project may get it. */
  releaseGeneratedName(labelOrHostname: string): Promise<{ ok: true }> {
    return this.api('generated-names.release', { label: labelOrHostname });
  }

  // Deployments
  listDeployments(serviceId: string): Promise<{ deployments: Deployment[] }> {
    return this.api('deployments.list', { serviceId });
  }
  deploy(serviceId: string, input: { branch?: string; force?: boolean } = {}): Promise<{ deployment: Deployment }> {
    return this.api('deployments.create', { serviceId }, input);
  }
  abortDeployment(deploymentId: string): Promise<{ accepted: true }> {
    return this.api('deployments.abort', { deploymentId });
  }
  /** Creates or rotates a git service's push webhook; the secret is shown only here. */
  createWebhook(serviceId: string): Promise<{ url: string; secret: string }> {
    return this.api('webhooks.create', { serviceId });
  }
  getWebhook(serviceId: string): Promise<{ url: string; hasSecret: boolean; lastDeliveryAt: string | null }> {
    return this.api('webhooks.get', { serviceId });
  }
  deleteWebhook(serviceId: string): Promise<{ ok: true }> {
    return this.api('webhooks.delete', { serviceId });
  }
  /** A new deployment (trigger `rollback`) that runs that earlier deployment's image again, without building. */
  rollbackDeployment(deploymentId: string): Promise<{ deployment: Deployment }> {
    return this.api('deployments.rollback', { deploymentId });
  }
  /**
   * One page of a build log: at most 1,000 lines and about 1 MiB. From the start by default;
   * `after` a page's nextCursor reads on, `before` a page's prevCursor reads back, `tail` gives the
   * newest lines.
   */
  deploymentLogs(deploymentId: string, page: { after?: string | number; before?: string | number; tail?: boolean; limit?: number } = {}): Promise<DeploymentLogPage> {
    return this.api('deployments.logs', { deploymentId }, undefined, { after: page.after, before: page.before, tail: page.tail ? 'true' : undefined, limit: page.limit });
  }
  /** Every page of a build log after line `after` (0: from the start), oldest first. */
  async *deploymentLogPages(deploymentId: string, after: string | number = 0): AsyncGenerator<DeploymentLogPage> {
    let cursor: string | number = after;
    for (;;) {
      const page = await this.deploymentLogs(deploymentId, { after: cursor });
      yield page;
      if (page.nextCursor === null) return;
      cursor = page.nextCursor;
    }
  }

  // A project's public status page
  statusPage(projectId: string): Promise<{ statusPage: StatusPage | null }> {
    return this.api('status-page.get', { projectId });
  }
  putStatusPage(projectId: string, input: StatusPageInput): Promise<{ statusPage: StatusPage }> {
    return this.api('status-page.put', { projectId }, input);
  }
  deleteStatusPage(projectId: string): Promise<{ ok: true }> {
    return this.api('status-page.delete', { projectId });
  }
}
