// A deployment's config files: written once per deployment under the data dir
// (`files/<serviceId>/<deploymentId>/`, directories 0700, each file with its mode), references
// resolved like env values, and bind-mounted read-only at their paths. The folder is the
// deployment's snapshot: a rollback mounts the files of the deployment it goes back to, a one-off
// container those of the live deployment. Snapshots of deployments that can no longer run go.
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BuildError } from '../core/build-error.js';
import { EnvResolver } from '../core/env-references.js';
import type { DeploymentRecord, ServiceRecord } from '../core/records.js';
import type { DeployDeps } from './context.js';

type FilesDeps = Pick<DeployDeps, 'filesDir' | 'store'>;
const MANIFEST = 'manifest.json';
/** `${VAR}`: a variable of the service itself (references to other services are `${service.VAR}`). */
const OWN_VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

interface ManifestEntry {
  file: string;
  target: string;
}

function snapshotDir(d: FilesDeps, serviceId: string, deploymentId: string): string {
  return join(d.filesDir, serviceId, deploymentId);
}

/** What a config file holds once its references are resolved: `${service.VAR}` first, then the service's own `${VAR}` (unknown ones stay as written). */
async function resolveContent(d: FilesDeps, service: ServiceRecord, path: string, content: string, env: Record<string, string>): Promise<string> {
  let out = content;
  if (out.includes('${')) {
    const services = await d.store.services.list([service.projectId]);
    const vars = await d.store.env.listByServices(services.map((s) => s.id));
    try {
      out = new EnvResolver(services, vars).resolve(out);
    } catch (err) {
      throw new BuildError(`config file ${path}: ${(err as Error).message}`);
    }
    out = out.replace(OWN_VARIABLE, (whole, key: string) => env[key] ?? whole);
  }
  return out;
}

function bindsOf(dir: string): { source: string; target: string }[] {
  const manifest = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8')) as ManifestEntry[];
  return manifest.map((m) => ({ source: join(dir, m.file), target: m.target }));
}

/**
 * Writes the deployment's files (or, for a rollback, copies the snapshot of the deployment it goes
 * back to) and answers their read-only binds.
 */
export async function writeDeploymentFiles(
  d: FilesDeps,
  service: ServiceRecord,
  dep: DeploymentRecord,
  env: Record<string, string>,
  say: (line: string) => void,
): Promise<{ source: string; target: string }[]> {
  const dir = snapshotDir(d, service.id, dep.id);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(d.filesDir, service.id), { recursive: true, mode: 0o700 });
  chmodSync(d.filesDir, 0o700);
  if (dep.trigger === 'rollback') {
    const source = (await d.store.deployments.listByService(service.id))
      .filter((x) => x.id !== dep.id && (dep.filesFrom ? x.id === dep.filesFrom : x.imageTag === dep.imageTag) && (x.status === 'running' || x.status === 'superseded'))
      .sort((a, b) => (b.finishedAt ?? b.createdAt).localeCompare(a.finishedAt ?? a.createdAt))
      .find((x) => existsSync(join(snapshotDir(d, service.id, x.id), MANIFEST)));
    if (source) {
      cpSync(snapshotDir(d, service.id, source.id), dir, { recursive: true });
      const binds = bindsOf(dir);
      if (binds.length > 0) say(`Config files: the ${binds.length} file(s) of deployment ${source.id}, mounted read-only`);
      return binds;
    }
    if (service.files.length > 0) say("Config files: the deployment rolled back to kept no snapshot of its files; the service's current files are mounted");
  }
  mkdirSync(dir, { mode: 0o700 });
  const manifest: ManifestEntry[] = [];
  for (const [i, f] of service.files.entries()) {
    const file = `f${i}`;
    writeFileSync(join(dir, file), await resolveContent(d, service, f.path, f.content, env), { mode: parseInt(f.mode, 8) });
    // the umask must not take bits the user asked for
    chmodSync(join(dir, file), parseInt(f.mode, 8));
    manifest.push({ file, target: f.path });
  }
  writeFileSync(join(dir, MANIFEST), JSON.stringify(manifest), { mode: 0o600 });
  if (manifest.length > 0) say(`Config files: ${manifest.map((m) => m.target).join(', ')} (read-only)`);
  return bindsOf(dir);
}

/** The binds of a deployment's snapshot (a one-off container gets the live deployment's); none when it has no snapshot. */
export function deploymentBinds(d: FilesDeps, serviceId: string, deploymentId: string): { source: string; target: string }[] {
  const dir = snapshotDir(d, serviceId, deploymentId);
  return existsSync(join(dir, MANIFEST)) ? bindsOf(dir) : [];
}

export function removeDeploymentFiles(d: FilesDeps, serviceId: string, deploymentId: string): void {
  rmSync(snapshotDir(d, serviceId, deploymentId), { recursive: true, force: true });
}

export function removeServiceFiles(d: Pick<DeployDeps, 'filesDir'>, serviceId: string): void {
  rmSync(join(d.filesDir, serviceId), { recursive: true, force: true });
}

/** Removes the snapshots of the service's deployments that can no longer run (not in `keep`). */
export function pruneDeploymentFiles(d: FilesDeps, serviceId: string, keep: ReadonlySet<string>): void {
  const root = join(d.filesDir, serviceId);
  if (!existsSync(root)) return;
  for (const id of readdirSync(root)) if (!keep.has(id)) removeDeploymentFiles(d, serviceId, id);
}
