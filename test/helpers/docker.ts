// Docker for the deployment suites: the setup script (installs and starts dockerd if needed, builds
// the small local images) runs once per test process; helpers read what Docker holds.
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './repo-root.js';

let ready: string | null = null;

/** Ensures a working Docker Engine and the busybox base image; returns the image reference. */
export function requireDocker(): string {
  if (ready) return ready;
  if (process.env.BERTH_TEST_NO_DOCKER === '1') throw new Error('this suite needs Docker: it does not belong in test/unit.mocharc.cjs (npm run test:unit)');
  const res = spawnSync('bash', [join(REPO_ROOT, 'test/setup/docker.sh')], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`Docker setup failed:\n${res.stderr}\n${res.stdout}`);
  ready = 'berth-test/busybox:latest';
  return ready;
}

export function docker(...args: string[]): string {
  return execFileSync('docker', args, { encoding: 'utf8' }).trim();
}

export function containersWithLabel(label: string): string[] {
  const out = docker('ps', '-a', '-q', '--filter', `label=${label}`);
  return out ? out.split('\n') : [];
}

/**
 * Images Berth built for a service or a deployment: the owner label (`<instance>/<project>/<service>`,
 * on every layer of the service's builds) names the service; the deployment is the image's tag
 * (`berth/<slug>:<first 12 characters of the deployment id>`), or a fourth part of the label on
 * images built before the label moved into the Dockerfile.
 */
export function builtImagesOf(owner: { serviceId?: string; deploymentId?: string }): string[] {
  const out = docker('images', '-q', '--no-trunc', '--filter', 'label=dev.berth.image-owner');
  const ids = out ? [...new Set(out.split('\n'))] : [];
  return ids.filter((id) => {
    // an image removed between the listing and its inspect (a purge under way) is not there
    const inspected = spawnSync('docker', ['image', 'inspect', '--format', '{{index .Config.Labels "dev.berth.image-owner"}}|{{join .RepoTags ","}}', id], { encoding: 'utf8' });
    if (inspected.status !== 0) return false;
    const [label = '', tags = ''] = inspected.stdout.trim().split('|');
    const [, , service, deployment] = label.split('/');
    const ofDeployment = (deploymentId: string) =>
      deployment !== undefined ? deployment === deploymentId : tags.split(',').some((t) => /^berth\/[^:]+:/.test(t) && t.endsWith(`:${deploymentId.slice(0, 12)}`));
    return (owner.serviceId === undefined || service === owner.serviceId) && (owner.deploymentId === undefined || ofDeployment(owner.deploymentId));
  });
}

export function danglingImages(): string[] {
  const out = docker('images', '-q', '-a', '--filter', 'dangling=true');
  return out ? out.split('\n').sort() : [];
}

/**
 * Removes every container, network and volume one daemon instance created, best effort (no Docker
 * at all is fine). A stopped test daemon's apps keep running by design; left alone, each suite's
 * project networks would use up Docker's address pools (about 30 networks) over a whole run.
 */
export function removeInstanceObjects(instanceId: string): void {
  const filter = `label=dev.berth.instance=${instanceId}`;
  const run = (...args: string[]) => execFileSync('docker', args, { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  const ids = (...args: string[]) => {
    try {
      return run(...args, '--filter', filter)
        .split('\n')
        .filter(Boolean);
    } catch {
      return [];
    }
  };
  const remove = (args: string[], found: string[]) => {
    if (found.length === 0) return;
    try {
      run(...args, ...found);
    } catch {
      // one of them is gone already, or still in use: the next suite's cleanup does not depend on it
    }
  };
  remove(['rm', '-f', '-v'], ids('ps', '-a', '-q'));
  remove(['network', 'rm'], ids('network', 'ls', '-q'));
  remove(['volume', 'rm', '-f'], ids('volume', 'ls', '-q'));
}
