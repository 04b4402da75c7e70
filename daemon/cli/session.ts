// What every client command starts from: the global options resolved into a server, a key and an
// API client (pinned when the context holds a fingerprint), the output, and service lookup.
import type { Command } from 'commander';
import { BerthClient } from '../../shared/client.js';
import { normalizeFingerprint, pinnedFetch } from '../../shared/pinned-tls.js';
import type { Project, Service } from '../../shared/types.js';
import { readCliConfig, type Context } from './config-store.js';
import { CliError, EXIT, usageError } from './exit-codes.js';
import { findLinkedProject } from './linked-project.js';
import { Output } from './output.js';

export interface GlobalOptions {
  server?: string;
  token?: string;
  context?: string;
  project?: string;
  json?: boolean;
  yes?: boolean;
  quiet?: boolean;
}

/** The global options as commander parsed them, with the environment's defaults. */
export function globalsOf(cmd: Command): GlobalOptions {
  const o = cmd.optsWithGlobals<GlobalOptions>();
  return { ...o, server: o.server ?? (process.env.BERTH_SERVER || undefined), token: o.token ?? (process.env.BERTH_TOKEN || undefined) };
}

export function outputOf(cmd: Command): Output {
  const o = globalsOf(cmd);
  return new Output({ json: Boolean(o.json), quiet: Boolean(o.quiet) });
}

export function normalizeServer(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(/^[a-z]+:\/\//i.test(url) ? url : `https://${url}`);
  } catch {
    throw usageError(`not a server URL: ${url}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw usageError(`the server URL must be http(s): ${url}`);
  return parsed.origin + parsed.pathname.replace(/\/+$/, '');
}

/** A client for this server, pinned to a fingerprint when there is one. */
export function makeClient(server: string, token: string | null, fingerprint?: string): BerthClient {
  return new BerthClient(server, token, fingerprint ? { fetch: pinnedFetch(fingerprint) } : {});
}

export class Session {
  constructor(
    readonly out: Output,
    readonly client: BerthClient,
    readonly server: string,
    readonly opts: GlobalOptions,
  ) {}

  private projectsCache: Project[] | null = null;

  async projects(): Promise<Project[]> {
    this.projectsCache ??= (await this.client.listProjects()).projects;
    return this.projectsCache;
  }

  /** The project named by --project (id, slug or name), else the linked one for this server, else null. */
  async scopeProject(): Promise<Project | null> {
    const ref = this.opts.project ?? this.linkedProjectId();
    return ref ? this.projectByRef(ref) : null;
  }

  /** The project `ref` names (id, slug or name); without one, --project or the linked project. */
  async project(ref: string | undefined): Promise<Project> {
    if (ref !== undefined) return this.projectByRef(ref);
    const scope = await this.scopeProject();
    if (!scope) throw usageError('name the project (or pass --project, or run where a project is linked)');
    return scope;
  }

  private async projectByRef(ref: string): Promise<Project> {
    const projects = await this.projects();
    const found = projects.find((p) => p.id === ref) ?? projects.find((p) => p.slug === ref) ?? projects.find((p) => p.name === ref);
    if (!found) throw new CliError(`no project ${ref} on ${this.server}`, EXIT.failed);
    return found;
  }

  private linkedProjectId(): string | undefined {
    const linked = findLinkedProject();
    return linked && normalizeServer(linked.link.server) === this.server ? linked.link.projectId : undefined;
  }

  /** A service by id; or by name or slug within --project / the linked project; or by a name unique on the server. */
  async service(ref: string): Promise<Service> {
    const projects = await this.projects();
    const all = projects.flatMap((p) => p.services);
    const byId = all.find((s) => s.id === ref);
    if (byId) return byId;
    const scope = await this.scopeProject();
    const candidates = (scope ? scope.services : all).filter((s) => s.name === ref || s.slug === ref);
    if (candidates.length === 1) return candidates[0]!;
    if (candidates.length === 0) {
      throw new CliError(`no service ${ref}${scope ? ` in project ${scope.slug}` : ''} on ${this.server}`, EXIT.failed);
    }
    const where = candidates.map((s) => `${projects.find((p) => p.id === s.projectId)?.slug ?? s.projectId}/${s.slug} (${s.id})`).join(', ');
    throw usageError(`service name ${ref} is ambiguous: ${where}; pass --project or the id`);
  }
}

export interface Target {
  server: string;
  token: string | undefined;
  fingerprint: string | undefined;
}

/** Resolves --server/--token/--context, BERTH_SERVER/BERTH_TOKEN/BERTH_CERT_SHA256 and the saved contexts. */
export function resolveTarget(opts: GlobalOptions): Target {
  const config = readCliConfig();
  let context: Context | undefined;
  if (opts.context) {
    context = config.contexts[opts.context];
    if (!context) throw usageError(`no context ${opts.context} (see berth context list)`);
  }
  let server = opts.server ? normalizeServer(opts.server) : undefined;
  if (!context) {
    context = server ? Object.values(config.contexts).find((c) => c.server === server) : config.current ? config.contexts[config.current] : undefined;
  }
  server ??= context?.server;
  if (!server) throw usageError('no server: run `berth login URL`, or pass --server / set BERTH_SERVER');
  const sameServer = context && context.server === server ? context : undefined;
  const envPin = process.env.BERTH_CERT_SHA256 ? normalizeFingerprintOrUsage(process.env.BERTH_CERT_SHA256) : undefined;
  return { server, token: opts.token ?? sameServer?.token, fingerprint: envPin ?? sameServer?.fingerprint };
}

export function openSession(cmd: Command): Session {
  const opts = globalsOf(cmd);
  const { server, token, fingerprint } = resolveTarget(opts);
  if (!token) throw new CliError(`no key for ${server}: run \`berth login ${server}\`, or pass --token / set BERTH_TOKEN`, EXIT.auth);
  return new Session(outputOf(cmd), makeClient(server, token, fingerprint), server, opts);
}

export function normalizeFingerprintOrUsage(value: string): string {
  try {
    return normalizeFingerprint(value);
  } catch (err) {
    throw usageError((err as Error).message);
  }
}
