// Importing a docker-compose file (or a template of the gallery) into a project: the plan that says
// what each compose service becomes and what Berth could not take, and the templates.
// POST /api/projects/:projectId/compose answers a ComposeImportResult; GET /api/templates lists
// the gallery.
import type { DatabaseEngine } from './databases.js';
import type { NewServiceInput, Service, ServiceLimitsInput } from './services.js';

/** What one compose service becomes. */
export type ComposeTarget = 'image' | 'git' | `database:${DatabaseEngine}` | 'skipped';

/** How a service waits for one it depends on before its first deployment starts. */
export type ComposeDependencyCondition = 'service_started' | 'service_healthy' | 'service_completed_successfully';

/** The Berth service a compose service becomes: exactly what the import creates. */
export interface ComposeBerthService {
  /** The Berth service's name (the compose name when it is a valid, free name; otherwise adjusted, and a warning says so). */
  name: string;
  /** The body the import sends to create it (volumes, files, startCommand, internalPort, runtimeMode included). */
  input: NewServiceInput;
  /** Its variables, in order; a value may hold `${<berth service>.<VARIABLE>}` references (a host named after another compose service becomes its `PRIVATE_HOST`, its managed URL a reference to it). */
  env: { key: string; value: string }[];
  limits?: ServiceLimitsInput;
  /** Services (Berth names) whose first deployment must be live (and, for service_healthy, pass their health check) before this one's starts. */
  dependsOn: { service: string; condition: ComposeDependencyCondition }[];
  /** The compose healthcheck as argv run inside the container (exec), used to wait for service_healthy; null when none. */
  healthcheck: { command: string[]; intervalSeconds: number; timeoutSeconds: number; retries: number; startPeriodSeconds: number } | null;
  /** Whether it gets the generated `<slug>.<rootDomain>` name (web services with a published or exposed port). */
  generatedName: boolean;
}

export interface ComposeServicePlan {
  /** The compose service's name. */
  service: string;
  becomes: ComposeTarget;
  /** Absent when skipped. */
  berthService?: ComposeBerthService;
  /** The compose keys of this service Berth takes; every other key of it is in `unsupported`. */
  mapped: string[];
}

export interface ComposeUnsupported {
  /** The compose service, or null for a top-level key. */
  service: string | null;
  /** The key (`cap_add`, `volumes[1]`, `networks`, `x-custom`...). */
  key: string;
  /** Why, in plain words. */
  why: string;
}

export interface ComposePlan {
  services: ComposeServicePlan[];
  /** The file's top-level keys Berth takes (`services`, `volumes`, `name`, `version`); every other one is in `unsupported` with service null. Always sent by the daemon. */
  mapped?: string[];
  unsupported: ComposeUnsupported[];
  warnings: string[];
  /** Compose service names in the order their services are created and first deployed (databases first, then depends_on order). */
  order: string[];
}

export interface ComposeImportInput {
  /** The compose file's text (YAML). Either this or `template`. */
  compose?: string;
  /** A .env file's text, for `${VAR}` interpolation. */
  env?: string;
  /** Contents of the files the compose file bind-mounts (`./nginx.conf:/etc/nginx/nginx.conf:ro`), by the path as written in it: they become config files. */
  files?: Record<string, string>;
  /** Only answer the plan; create nothing. */
  dryRun?: boolean;
  /** Where `build:` services come from: they become git services of this repository (`context` -> rootDir). */
  repository?: { url: string; branch?: string };
  /** A template id of GET /api/templates instead of `compose`. */
  template?: string;
  /** The template's variables (the ones left out are generated or take their default). */
  variables?: Record<string, string>;
  /** Compose services with a known database image to keep as plain image services instead of managed databases. */
  plainImages?: string[];
}

export interface ComposeImportResult extends ComposePlan {
  /** Without dryRun: the services created, in creation order. */
  created?: Service[];
}

export interface ComposeTemplateVariable {
  name: string;
  description: string;
  /** The value used when none is given. */
  default?: string;
  /** Generated when none is given: a random secret (URL-safe, 32 characters) or 64 hex digits. */
  generate?: 'secret' | 'hex';
  /** Must be given (no default, nothing generated). */
  required?: boolean;
}

export interface ComposeTemplate {
  id: string;
  name: string;
  description: string;
  /** The compose file, with `${VARIABLE}` placeholders for the variables. */
  compose: string;
  variables: ComposeTemplateVariable[];
  /** A note on what it needs (memory, disk). */
  resources: string;
  /** The project's website. */
  website: string;
  /** Files the compose file bind-mounts (by the path as written), imported as config files; they may hold Berth references such as `${db.MYSQL_PASSWORD}`. */
  files?: Record<string, string>;
}
