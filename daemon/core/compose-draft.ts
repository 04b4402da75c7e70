// What the mapping of one compose service works on (core/compose-service.ts and the per-entry keys
// in core/compose-service-keys.ts): the import's context and the draft of a plan entry.
import type { ComposeBerthService, ComposeDependencyCondition, ComposeTarget, ComposeUnsupported, DatabaseEngine } from '../../shared/types.js';

export interface ComposeContext {
  /** Contents of bind-mounted files and env_files, by the path as written. */
  files: ReadonlyMap<string, string>;
  plainImages: ReadonlySet<string>;
  repository: { url: string; branch?: string | undefined } | null;
  /** The .env variables (a bare `environment` name takes its value from them). */
  vars: ReadonlyMap<string, string>;
  parseEnv: (text: string, what: string) => Map<string, string>;
}

/** A compose service on its way to a plan entry. */
export interface ServiceDraft {
  service: string;
  becomes: ComposeTarget;
  engine: DatabaseEngine | null;
  berth: ComposeBerthService;
  mapped: string[];
  unsupported: ComposeUnsupported[];
  warnings: string[];
  /** Other names this service answers to on the network (container_name, hostname, aliases). */
  aliases: string[];
  /** depends_on and links, by compose name. */
  dependsOn: { service: string; condition: ComposeDependencyCondition }[];
}
