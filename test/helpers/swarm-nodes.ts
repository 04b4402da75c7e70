// Several Swarm nodes on one machine: the host's dockerd is the manager, workers are
// Docker-in-Docker containers of berth-test/swarm-node (test/setup/swarm-images.sh) that join
// through Berth's real join command. The host's Swarm mode is host-wide, so every suite that turns
// it on runs under `flock /tmp/berth-host-swarm.lock` and turns it off again in its `after`.

import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DIND_OPTIONS, type ExecResult, execIn } from './dind.js';
import { docker, requireDocker } from './docker.js';
import type { BerthClient } from '../../shared/client.js';
import { REPO_ROOT } from './repo-root.js';
import { until } from './wait.js';

/** Every worker container carries it; `removeAllWorkers` removes by it (and by the name prefix). */
const WORKER_LABEL = 'dev.berth.test.swarm-node';
const WORKER_PREFIX = 'berth-test-node-';

interface SwarmImages {
  node: string;
  registry: string;
  /** The stand-in for docker:27-cli (BERTH_IMAGE_DOCKER_CLI): the image-pruning job on every node runs it. */
  dockerCli: string;
  /** An image with node on its PATH, the stand-in for node:22-alpine (BERTH_IMAGE_NODE): the engine relay on a node runs it. */
  nodeJs: string;
}

let images: SwarmImages | null = null;

/** Builds (or finds) berth-test/swarm-node, berth-test/registry and berth-test/docker-cli; their hashed references. */
export function requireSwarmImages(): SwarmImages {
  if (images) return images;
  requireDocker();
  const res = spawnSync('bash', [join(REPO_ROOT, 'test/setup/swarm-images.sh')], { encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`swarm image setup failed:\n${res.stderr}\n${res.stdout}`);
  const [node, registry, dockerCli] = res.stdout.trim().split('\n');
  // test/setup/docker.sh builds berth-test/node (busybox, the host's node)
  images = { node: node!, registry: registry!, dockerCli: dockerCli!, nodeJs: 'berth-test/node:latest' };
  return images;
}

export interface SwarmWorker {
  /** The container's name (also its hostname, which becomes the node's hostname). */
  name: string;
  hostname: string;
  /** Its address on Docker's default bridge (the address the swarm sees it at). */
  address: string;
  /**
   * Runs argv in the worker (as root), to its end. Asynchronous: the test daemon runs in the same
   * process, and a join script calls it back while this waits.
   */
  exec(argv: string[], timeoutMs?: number): Promise<ExecResult>;
  /** The worker's own dockerd: `docker <args>` inside it. */
  docker(...args: string[]): Promise<ExecResult>;
  remove(): void;
}

/** Starts a DinD worker named `berth-test-node-<suffix>` and waits for its inner dockerd. */
export async function startWorker(suffix: string): Promise<SwarmWorker> {
  const { node } = requireSwarmImages();
  const name = `${WORKER_PREFIX}${suffix}`;
  spawnSync('docker', ['rm', '-f', '-v', name], { stdio: 'ignore' });
  docker('run', '-d', '--name', name, '--hostname', name, '--label', `${WORKER_LABEL}=1`, ...DIND_OPTIONS, node);
  await until(`the inner dockerd of ${name}`, async () => (await execIn(name, ['docker', 'info', '--format', '{{.ServerVersion}}'], 10_000)).status === 0, 60_000, 300);
  const address = docker('inspect', '-f', '{{.NetworkSettings.Networks.bridge.IPAddress}}', name);
  return {
    name,
    hostname: name,
    address,
    exec: (argv, timeoutMs) => execIn(name, argv, timeoutMs),
    docker: (...args) => execIn(name, ['docker', ...args]),
    remove: () => {
      spawnSync('docker', ['rm', '-f', '-v', name], { stdio: 'ignore' });
    },
  };
}

/** Removes every worker container (by label and by name prefix), with its inner /var/lib/docker. */
export function removeAllWorkers(): void {
  const byLabel = docker('ps', '-aq', '--filter', `label=${WORKER_LABEL}`);
  const byName = docker('ps', '-aq', '--filter', `name=^${WORKER_PREFIX}`);
  const ids = [...new Set(`${byLabel}\n${byName}`.split('\n').filter(Boolean))];
  if (ids.length > 0) spawnSync('docker', ['rm', '-f', '-v', ...ids], { stdio: 'ignore' });
}

/** The host's address on Docker's default bridge: what workers reach the manager at. */
export function bridgeAddress(): string {
  const gateway = docker('network', 'inspect', 'bridge', '-f', '{{(index .IPAM.Config 0).Gateway}}');
  if (gateway) return gateway;
  // some dockerd versions leave the default bridge's Gateway out of its IPAM config: the first address of its subnet
  const subnet = docker('network', 'inspect', 'bridge', '-f', '{{(index .IPAM.Config 0).Subnet}}');
  const parts = subnet.split('/')[0]!.split('.').map(Number);
  parts[3] = parts[3]! + 1;
  return parts.join('.');
}

/** The host dockerd's Swarm state (`inactive`, `active`, ...). */
export function hostSwarmState(): string {
  return docker('info', '--format', '{{.Swarm.LocalNodeState}}');
}

/**
 * The host's Swarm mode for tests that need it without going through Berth, and the clean-up every
 * swarm suite ends with. Callers hold /tmp/berth-host-swarm.lock (run the suite under flock).
 */
export const hostSwarm = {
  on(advertiseAddress = bridgeAddress()): void {
    if (hostSwarmState() === 'active') return;
    docker('swarm', 'init', '--advertise-addr', advertiseAddress);
  },
  /** Leaves the swarm (no error when it is already off). */
  off(): void {
    spawnSync('docker', ['swarm', 'leave', '--force'], { stdio: 'ignore' });
  },
  /** Fails early when the suite does not hold the host lock's promise of a swarm-free host. */
  assertOff(): void {
    const state = hostSwarmState();
    if (state !== 'inactive' && state !== '') throw new Error(`the host's Swarm mode is ${state}: another suite left it on, or this one is not run under flock /tmp/berth-host-swarm.lock`);
  },
};

/**
 * Joins `worker` the way a user does: the daemon's join command (POST /api/nodes/join), pasted as
 * root on the new server. Fails with the script's output when it does not exit 0.
 */
export async function joinWithCommand(admin: Pick<BerthClient, 'createJoinCommand'>, worker: SwarmWorker): Promise<void> {
  const { command } = await admin.createJoinCommand();
  const ran = await worker.exec(['bash', '-c', command], 180_000);
  if (ran.status !== 0) throw new Error(`the join command failed on ${worker.name} (exit ${ran.status}):\n${ran.stdout}\n${ran.stderr}`);
}

/**
 * Removes what a swarm suite leaves on the host (run at its start too: a crashed run may have left
 * it; every swarm suite holds the host lock, so none is in use): the workers, Berth's registry
 * container and volume, and the manager's trust of that registry. Leaves the host's Swarm mode off.
 */
export function removeSwarmLeftovers(manager?: string, registryPort = 5443): void {
  removeAllWorkers();
  hostSwarm.off();
  spawnSync('docker', ['rm', '-f', '-v', 'berth-registry'], { stdio: 'ignore' });
  spawnSync('docker', ['volume', 'rm', 'berth-registry-data'], { stdio: 'ignore' });
  if (manager) rmSync(`/etc/docker/certs.d/${manager}:${registryPort}`, { recursive: true, force: true });
}

/** A deployment's whole log, one string: what a suite matches task lines against. */
export async function deploymentLogText(client: Pick<BerthClient, 'deploymentLogPages'>, deploymentId: string): Promise<string> {
  const out: string[] = [];
  for await (const page of client.deploymentLogPages(deploymentId)) out.push(...page.logs.map((l) => l.line));
  return out.join('\n');
}
