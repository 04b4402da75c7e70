// Services: create any kind, read the overview, patch, move between projects, delete.
import type { Deployment, ProxyResult, Service, ServiceOverview, ServicePatch, Suggestion, DatabaseVariableSuggestion, TransferResult } from '../../shared/types.js';
import { ENV_KEY_PATTERN } from '../../shared/constants.js';
import { visibleProject, visibleService, type Access } from './access.js';
import type { Catalog } from './catalog.js';
import { referenceName } from './catalog.js';
import type { Clock } from './clock.js';
import { initialDatabaseEnv } from './engines.js';
import { EnvResolver, referencesIn } from './env-references.js';
import type { DnsCleanup } from './domains.js';
import { checkDatabaseHostname, freeDatabaseHostname, newGeneratedLabel, rootDomainOf } from './generated-names.js';
import { Conflict, InvalidInput } from './errors.js';
import { pickHostPort, type PortRange } from './host-ports.js';
import type { PortProbe } from './ports/port-probe.js';
import { newId } from './ids.js';
import type { ProxyPort } from './ports/proxy.js';
import type { Quotas } from './quotas.js';
import type { EnvRecord, ServiceRecord } from './records.js';
import { serial } from './serial.js';
import { checkLimits, type LimitsInput } from './limits.js';
import { statePatch } from './service-state-rules.js';
import { DEFAULT_BRANCH, serviceSpec, type NewServiceInput } from './service-spec.js';
import { slugify, uniqueSlug } from './slug.js';
import { checkBranch, checkGitUrl, checkImageRef, checkRelativePath } from './source.js';
import { cloneReachOfKey, cloneReachSetting, recordCloneReach } from './clone-reach.js';
import type { CloneReachCheck } from './ports/clone-reach-check.js';
import type { Store } from './ports/store.js';
import type { SwarmControlPort } from './ports/swarm-control.js';
import { deploymentView, domainView, envView } from './views.js';
import type { EnvVar } from '../../shared/types.js';
import type { DeploymentEngine } from './ports/deployment-engine.js';
import type { EventSink } from './events.js';
import type { SwarmPort } from './ports/swarm.js';

export interface ServicesDeps {
  store: Store;
  clock: Clock;
  proxy: ProxyPort;
  catalog: Catalog;
  portRange: PortRange;
  probePort: PortProbe;
  publicIp: () => Promise<string>;
  engine: DeploymentEngine;
  /** Removes the DNS records Berth created for a deleted service's domains. */
  dnsGone?: DnsCleanup;
  cloneReach: CloneReachCheck;
  quotas: Quotas;
  /** Where a stored change is announced (the daemon's event hub). */
  events: EventSink;
  /** Queues a new deployment of the live one's image (a config file changed); null when nothing is live. */
  redeployLive?: (service: ServiceRecord) => Promise<Deployment | null>;
  /** Whether Swarm mode is on: replicas above 1 and placements need it. */
  swarm: SwarmPort;
  /** The swarm's nodes: where a database may be created. */
  nodes: Pick<SwarmControlPort, 'nodes'>;
}

/** The wire's patch fields (shared/types/services.ts), defined once. */
export type { ServicePatch };

export class Services {
  private allocate = serial();

  constructor(private d: ServicesDeps) {}

  private async view(s: ServiceRecord): Promise<Service> {
    return (await this.d.catalog.serviceViews([s]))[0]!;
  }

  private announce(s: Pick<ServiceRecord, 'id' | 'projectId' | 'name'>, action: 'created' | 'updated' | 'deleted'): void {
    this.d.events.publish({ type: 'service-change', projectId: s.projectId, data: { serviceId: s.id, projectId: s.projectId, name: s.name, action } });
  }

  /** Several replicas or a placement run on Swarm only: refused (409) while it is off, never turned into one container silently. */
  private async requireSwarmFor(state: Pick<ServiceRecord, 'replicas' | 'placement'>): Promise<void> {
    const placed = Object.keys(state.placement).length > 0;
    if (state.replicas <= 1 && !placed) return;
    if (await this.d.swarm.enabled()) return;
    const what = state.replicas > 1 ? `replicas ${state.replicas}` : 'a placement';
    throw new Conflict(`${what} needs Swarm mode, which is off on this server: turn it on first (POST /api/swarm), or keep replicas 1 and no placement`, 'swarm_off');
  }

  /**
   * The node a new database runs on: null for this server (the manager's own id is the same), else
   * a ready, active worker of the swarm, chosen with a key over all projects. A public database stays on the manager: a worker's
   * published ports answer the manager only (the join script's firewall rule).
   */
  private async nodeFor(access: Access, spec: Pick<ServiceRecord, 'kind' | 'nodeId' | 'databasePublicEnabled'>): Promise<string | null> {
    if (spec.nodeId === null) return null;
    // the nodes are the server's, as GET /api/nodes is: a database pinned to a worker holds that
    // worker (it is not removed while the database exists), which is no project's decision
    access.requireAllProjects("choosing a database's node");
    if (!(await this.d.swarm.enabled())) throw new Conflict('nodeId needs Swarm mode, which is off on this server: turn it on and join the node first (POST /api/swarm)', 'swarm_off');
    const node = (await this.d.nodes.nodes()).find((n) => n.id === spec.nodeId);
    if (!node) throw new InvalidInput(`nodeId ${JSON.stringify(spec.nodeId.slice(0, 64))} is no node of this swarm (GET /api/nodes lists them)`);
    if (node.self) return null;
    if (node.state !== 'ready' || node.availability !== 'active')
      throw new Conflict(`node ${node.hostname} is ${node.state} and ${node.availability}: a database starts on a ready, active node`, 'node_unavailable');
    if (spec.databasePublicEnabled) throw new InvalidInput(`a public database runs on the manager: ${node.hostname} answers on its published ports to the manager only`);
    return node.id;
  }

  private async requireUniqueName(projectId: string, name: string): Promise<void> {
    if ((await this.d.store.services.namesInProject(projectId)).has(name)) {
      throw new Conflict(`a service named "${name}" already exists in this project`);
    }
  }

  async create(access: Access, projectIdOrSlug: string, input: NewServiceInput & { limits?: LimitsInput | undefined }, env: { key: string; value: string }[]): Promise<Service> {
    access.requireWrite();
    const project = await visibleProject(this.d.store, access, projectIdOrSlug);
    const spec = serviceSpec(input);
    await this.requireSwarmFor(spec);
    spec.nodeId = await this.nodeFor(access, spec);
    const limits = { memoryLimitMb: null, cpuLimit: null, pidsLimit: null, ...checkLimits(access, this.d.catalog.limits, input.limits ?? {}) };
    const given = new Map<string, string>();
    for (const { key, value } of env) {
      if (!ENV_KEY_PATTERN.test(key)) throw new InvalidInput(`env key "${key.slice(0, 80)}" must match ${ENV_KEY_PATTERN.source}`);
      if (given.has(key)) throw new InvalidInput(`env key ${key} is given twice`);
      given.set(key, value);
    }
    const vars = spec.databaseEngine ? initialDatabaseEnv(spec.databaseEngine, given) : given;
    // a repository only where the key's own apps could reach it too (core/clone-reach.ts)
    const reach = spec.kind === 'git' || spec.kind === 'image' ? await cloneReachOfKey(this.d.store, access) : null;
    if (reach && spec.kind === 'git') await this.d.cloneReach.check(spec, reach);
    if (reach && spec.kind === 'image') await this.d.cloneReach.checkImage(spec.dockerImage!, reach);

    return this.allocate(async () => {
      // inside `allocate`: two creations at once cannot both take the last place
      await this.d.quotas.requireServiceRoom(project.id);
      await this.requireUniqueName(project.id, spec.name);
      const now = this.d.clock.now();
      const slug = uniqueSlug(slugify(spec.name, 'service'), await this.d.store.services.slugsInProject(project.id));
      const record: ServiceRecord = {
        ...spec,
        ...limits,
        id: newId(),
        projectId: project.id,
        slug,
        // chosen inside `allocate`: two creations cannot race to one label
        generatedLabel: await newGeneratedLabel(this.d.store, project.id, project.slug, slug),
        hostPort: null,
        status: 'idle',
        reachable: false,
        framework: null,
        lastDeployedAt: null,
        detectedBuildMethod: null,
        createdAt: now,
        updatedAt: now,
      };
      if (record.internalPort !== null) record.hostPort = await this.freePort();
      if (record.kind === 'database' && record.databasePublicHostname !== null) {
        // The Berth CA signs this name: it must be nobody else's (checked inside `allocate`, so two
        // creations cannot race to the same name).
        await checkDatabaseHostname(this.d.store, access, record.databasePublicHostname);
      } else if (record.kind === 'database') {
        // with a root domain, a database gets a public hostname of its own (its DNS name; TLS covers it)
        const root = await rootDomainOf(this.d.store);
        if (root) record.databasePublicHostname = await freeDatabaseHostname(this.d.store, record.generatedLabel!, root, project.id);
      }
      const envRecords: EnvRecord[] = [...vars].map(([key, value]) => ({ id: newId(), serviceId: record.id, key, value, createdAt: now, updatedAt: now }));
      await this.checkReferences(project.id, record, envRecords);
      await this.d.store.services.insert(record, envRecords);
      if (reach) await recordCloneReach(this.d.store, record.id, reach, now);
      await this.d.store.projects.update(project.id, { updatedAt: now });
      return record;
    }).then(async (record) => {
      // with a root domain set, the new service has a generated hostname to route; without one it
      // has nothing Caddy serves yet (no domain, nothing live), and a load would rebuild the whole
      // configuration for nothing (at 10,000 services, per creation)
      this.announce(record, 'created');
      if (await rootDomainOf(this.d.store)) await this.d.proxy.apply();
      return this.view(record);
    });
  }

  private async freePort(): Promise<number> {
    const port = await pickHostPort(this.d.portRange, await this.d.store.services.usedHostPorts(), this.d.probePort);
    if (port === null) {
      throw new Conflict(`no free host port left in BERTH_PORT_RANGE ${this.d.portRange.from}-${this.d.portRange.to}`, 'no_free_port');
    }
    return port;
  }

  /** Every reference in the new service's variables must resolve, without cycles. */
  private async checkReferences(projectId: string, service: ServiceRecord, env: EnvRecord[]): Promise<void> {
    if (!env.some((e) => referencesIn(e.value).length > 0)) return;
    const services = await this.d.store.services.list([projectId]);
    const others = await this.d.store.env.listByServices(services.map((s) => s.id));
    const resolver = new EnvResolver([...services, service], [...others, ...env]);
    for (const e of env) resolver.resolve(e.value);
  }

  /** The service when the key may see it; 404 otherwise (also once it moved out of the key's projects). */
  visible(access: Access, serviceId: string): Promise<ServiceRecord> {
    return visibleService(this.d.store, access, serviceId);
  }

  async overview(access: Access, serviceId: string): Promise<ServiceOverview> {
    const service = await visibleService(this.d.store, access, serviceId);
    const [view, deployments, domains, env, publicIp] = await Promise.all([
      this.view(service),
      this.d.store.deployments.listByService(service.id),
      this.d.store.domains.listByServices([service.id]),
      this.envList(service),
      this.d.publicIp(),
    ]);
    return { service: view, deployments: deployments.map(deploymentView), env, domains: domains.map(domainView), publicIp };
  }

  private async envList(service: ServiceRecord): Promise<EnvVar[]> {
    const { resolver } = await this.d.catalog.resolver(service.projectId);
    const env = await this.d.store.env.listByService(service.id);
    return env.map((e) => envView(e, resolver.resolveLenient(e.value)));
  }

  async patch(access: Access, serviceId: string, patch: ServicePatch): Promise<Service> {
    access.requireWrite();
    const service = await visibleService(this.d.store, access, serviceId);
    const isGit = service.kind === 'git';
    const change: Partial<ServiceRecord> = {};
    const gitOnly = (field: string) => {
      if (!isGit) throw new InvalidInput(`${field} applies to git source services only`);
    };
    // repoUrl is not a patchable field; a local path or non-http(s) URL in a patch is still refused, never ignored.
    if (patch.repoUrl != null && patch.repoUrl !== service.repoUrl) checkGitUrl(patch.repoUrl);
    if (patch.dockerImage != null && patch.dockerImage !== service.dockerImage) checkImageRef(patch.dockerImage);
    if (patch.nodeId !== undefined && (patch.nodeId ?? null) !== service.nodeId) {
      throw new InvalidInput('nodeId is chosen when a database is created: its data lives on that node (back it up and restore it into a new database on another node to move it)');
    }
    if (patch.name !== undefined && patch.name !== service.name) {
      await this.requireUniqueName(service.projectId, patch.name);
      change.name = patch.name; // the slug stays: URLs and references keep working
    }
    if (patch.branch !== undefined) change.branch = isGit ? checkBranch(patch.branch) : patch.branch || DEFAULT_BRANCH;
    if (patch.rootDir !== undefined) {
      gitOnly('rootDir');
      change.rootDir = checkRelativePath('rootDir', patch.rootDir);
    }
    if (patch.dockerfilePath !== undefined) {
      gitOnly('dockerfilePath');
      change.dockerfilePath = checkRelativePath('dockerfilePath', patch.dockerfilePath);
    }
    if (patch.staticOutput !== undefined) {
      gitOnly('staticOutput');
      change.staticOutput = checkRelativePath('staticOutput', patch.staticOutput);
    }
    if (patch.githubToken !== undefined) {
      gitOnly('githubToken');
      change.githubToken = patch.githubToken || null;
    }
    if (patch.installCommand !== undefined) change.installCommand = patch.installCommand;
    if (patch.buildCommand !== undefined) change.buildCommand = patch.buildCommand;
    if (patch.startCommand !== undefined) change.startCommand = patch.startCommand;
    if (patch.buildMethod !== undefined) change.buildMethod = patch.buildMethod;
    if (patch.limits !== undefined) Object.assign(change, checkLimits(access, this.d.catalog.limits, patch.limits));
    Object.assign(change, statePatch(service, patch));
    // only a change toward Swarm is checked: a service keeps what it has when Swarm went off meanwhile
    if (patch.replicas !== undefined || patch.placement !== undefined) await this.requireSwarmFor({ ...service, ...change });

    const mode = patch.runtimeMode ?? service.runtimeMode;
    if (service.kind === 'database' && (patch.runtimeMode !== undefined || patch.internalPort !== undefined)) {
      if (mode !== 'web' || (patch.internalPort != null && patch.internalPort !== service.internalPort)) {
        throw new InvalidInput("a database service keeps runtimeMode web and its engine's internal port");
      }
    } else if (patch.runtimeMode !== undefined || patch.internalPort !== undefined) {
      change.runtimeMode = mode;
      if (mode === 'worker') {
        const domains = await this.d.store.domains.listByServices([service.id]);
        if (domains.length > 0) throw new Conflict("remove the service's domains before making it a worker: workers accept no domains");
        change.internalPort = null;
      } else {
        change.internalPort = patch.internalPort ?? service.internalPort ?? (mode === 'static' ? 80 : 3000);
      }
    }

    return this.allocate(async () => {
      if (change.internalPort === null) change.hostPort = null;
      else if (change.internalPort !== undefined && service.hostPort === null) change.hostPort = await this.freePort();
      change.updatedAt = this.d.clock.now();
      await this.d.store.services.update(service.id, change);
      const after = { ...service, ...change };
      this.announce(after, 'updated');
      return after;
    }).then(async (after) => {
      // config files are mounted at deploy: a change reaches a live service through a new deployment
      if (change.files !== undefined && JSON.stringify(change.files) !== JSON.stringify(service.files)) await this.d.redeployLive?.(after);
      return this.view(after);
    });
  }

  async transfer(access: Access, serviceId: string, targetProjectId: string): Promise<TransferResult> {
    access.requireWrite();
    const service = await visibleService(this.d.store, access, serviceId);
    const target = await visibleProject(this.d.store, access, targetProjectId);
    if (target.id === service.projectId) throw new InvalidInput('the service is already in that project');
    if (service.volumes.length > 0) {
      throw new Conflict(
        `the service mounts volumes (${service.volumes.map((v) => v.name).join(', ')}), and a volume never leaves its project: remove them from the service (PATCH volumes) before moving it`,
        'has_volumes',
      );
    }
    await this.requireUniqueName(target.id, service.name);
    await this.d.quotas.requireServiceRoom(target.id);
    await this.checkTransferKeepsReferences(service, target.id);
    const now = this.d.clock.now();
    const slugs = await this.d.store.services.slugsInProject(target.id);
    const slug = slugs.has(service.slug) ? uniqueSlug(service.slug, slugs) : service.slug;
    await this.allocate(async () => {
      await this.d.store.services.update(service.id, { projectId: target.id, slug, updatedAt: now });
      // a new generated name in the target project: the old one stays the source project's
      await this.d.store.services.assignGeneratedLabel(service.id, target.id, await newGeneratedLabel(this.d.store, target.id, target.slug, slug), now);
    });
    await this.d.store.projects.update(service.projectId, { updatedAt: now });
    await this.d.store.projects.update(target.id, { updatedAt: now });
    // heard by the keys of both projects, each event naming only its own
    for (const [projectId, direction] of [
      [service.projectId, 'out'],
      [target.id, 'in'],
    ] as const) {
      this.d.events.publish({ type: 'service-change', projectId, data: { serviceId: service.id, projectId, name: service.name, action: 'transferred', direction } });
    }
    const proxy = await this.d.proxy.apply();
    const [project] = await this.d.catalog.projectViews([(await this.d.store.projects.get(target.id))!]);
    return {
      service: { id: service.id, projectId: target.id, name: service.name, slug },
      project: { id: project!.id, name: project!.name, slug: project!.slug, serviceCount: project!.serviceCount, services: project!.services },
      proxy,
    };
  }

  /** References are per project: a move must not leave either side pointing at nothing. */
  private async checkTransferKeepsReferences(service: ServiceRecord, targetProjectId: string): Promise<void> {
    const ownEnv = await this.d.store.env.listByService(service.id);
    const names = new Set([service.name, service.slug]);
    const { services: sourceServices } = await this.d.catalog.resolver(service.projectId);
    const sourceEnv = await this.d.store.env.listByServices(sourceServices.filter((s) => s.id !== service.id).map((s) => s.id));
    const dependent = sourceEnv.find((e) => referencesIn(e.value).some((r) => names.has(r.service)));
    if (dependent) {
      const owner = sourceServices.find((s) => s.id === dependent.serviceId)!;
      throw new Conflict(`service "${owner.name}" references this service in ${dependent.key}; change that variable before moving the service`);
    }
    const { services: targetServices } = await this.d.catalog.resolver(targetProjectId);
    const targetEnv = await this.d.store.env.listByServices(targetServices.map((s) => s.id));
    const resolver = new EnvResolver([...targetServices, { ...service, projectId: targetProjectId }], [...targetEnv, ...ownEnv]);
    for (const e of ownEnv) {
      try {
        resolver.resolve(e.value);
      } catch (err) {
        throw new Conflict(`after the move, ${e.key} would not resolve: ${(err as Error).message}`);
      }
    }
  }

  /** With `keepVolumes`, its volumes stay the project's (no service) for another service to mount; else they go with it. */
  async delete(access: Access, serviceId: string, keepVolumes = false): Promise<ProxyResult> {
    access.requireWrite();
    const found = await visibleService(this.d.store, access, serviceId);
    // the engine removes the Docker volumes the record still lists: none when they are kept
    const service = keepVolumes ? { ...found, volumes: [] } : found;
    const domains = await this.d.store.domains.listByServices([service.id]);
    await this.d.store.services.deleteCascade(service.id, keepVolumes);
    await this.d.dnsGone?.(domains);
    await this.d.store.settings.delete(cloneReachSetting(service.id));
    await this.d.store.projects.update(service.projectId, { updatedAt: this.d.clock.now() });
    this.announce(service, 'deleted');
    await this.d.engine.serviceDeleted(service);
    return this.d.proxy.apply();
  }

  async suggestionKeys(access: Access, serviceId: string): Promise<{ suggestions: Suggestion[]; databaseVariables: DatabaseVariableSuggestion[] }> {
    const service = await visibleService(this.d.store, access, serviceId);
    const { services, resolver } = await this.d.catalog.resolver(service.projectId);
    const suggestions: Suggestion[] = [];
    if (service.hostPort !== null) suggestions.push({ key: 'hostPort', label: `Host port ${service.hostPort} (http://127.0.0.1:${service.hostPort})` });
    if (service.internalPort !== null) suggestions.push({ key: 'internalPort', label: `Port inside the container: ${service.internalPort}` });
    for (const other of services) {
      if (other.id === service.id) continue;
      const ref = referenceName(other);
      for (const key of resolver.variablesOf(other).keys()) {
        suggestions.push({ key: `${ref}.${key}`, label: `${key} of ${other.name}` });
      }
    }
    const databaseVariables = await this.d.catalog.databaseVariables(service.projectId, service.id);
    return { suggestions, databaseVariables };
  }
}
