// The use cases the HTTP layer and the CLI call, built from explicit dependencies.
import { Catalog } from './catalog.js';
import type { Clock } from './clock.js';
import type { DeploymentEngine } from './deployment-engine.js';
import type { EventSink } from './events.js';
import { Deployments, type LogReader } from './deployments.js';
import { Domains } from './domains.js';
import { EnvVars } from './env-vars.js';
import type { PortProbe, PortRange } from './host-ports.js';
import { KeyService } from './keys.js';
import type { LimitPolicy } from './limits.js';
import { Projects } from './projects.js';
import type { ProxyPort } from './proxy.js';
import { Services } from './services.js';
import type { Store } from './store.js';
import { Webhooks } from './webhooks.js';

export interface CoreDeps {
  store: Store;
  clock: Clock;
  proxy: ProxyPort;
  portRange: PortRange;
  probePort: PortProbe;
  publicIp: () => Promise<string>;
  engine: DeploymentEngine;
  buildLogs: LogReader;
  events: EventSink;
  /** Container limits: the server's defaults and maxima. */
  limits: LimitPolicy;
}

export interface Core {
  keys: KeyService;
  projects: Projects;
  services: Services;
  env: EnvVars;
  domains: Domains;
  deployments: Deployments;
  webhooks: Webhooks;
  catalog: Catalog;
}

export function buildCore(deps: CoreDeps): Core {
  const catalog = new Catalog(deps.store, deps.limits);
  const deployments = new Deployments(deps.store, deps.clock, deps.engine, deps.buildLogs, deps.events);
  return {
    keys: new KeyService(deps.store, deps.clock),
    projects: new Projects(deps.store, deps.clock, deps.proxy, catalog, deps.engine),
    services: new Services({ ...deps, catalog }),
    env: new EnvVars(deps.store, deps.clock, catalog),
    domains: new Domains(deps.store, deps.clock, deps.proxy, deps.events),
    deployments,
    webhooks: new Webhooks(deps.store, deps.clock, deployments),
    catalog,
  };
}
