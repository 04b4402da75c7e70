// Berth's own image registry on the Swarm manager (ImageRegistryPort): workers pull the images Berth
// builds from it, so a task never lands on a node that lacks its image ("No such image"). One
// container `berth-registry` from BERTH_IMAGE_REGISTRY (the official registry:2 in production),
// TLS with a certificate from Berth's CA for the manager address (an IP SAN), htpasswd auth with a
// random password only Berth holds (sealed in the settings), blobs in the named volume
// `berth-registry-data`, published on the manager address only at BERTH_REGISTRY_PORT.
//
// The manager's own dockerd pushes to it, so it must trust Berth's CA for that address: dockerd
// reads /etc/docker/certs.d/<host:port>/ca.crt on every request, no restart needed. Workers get the
// same file from the join script.
import type Docker from 'dockerode';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { isIPv6 } from 'node:net';
import { join } from 'node:path';
import type { ImageRegistryPort, RegistryAuth, RunningRegistry, SwarmPort } from '../core/ports/swarm.js';
import type { SettingsRepo } from '../core/ports/store.js';
import { Conflict } from '../core/errors.js';
import type { BerthCa } from '../databases/tls.js';
import type { Labels, Ownership } from '../docker/labels.js';
import { imageExists, pullImage } from '../docker/images.js';

export const REGISTRY_CONTAINER = 'berth-registry';
export const REGISTRY_VOLUME = 'berth-registry-data';
const ROLE = 'registry';
const USERNAME = 'berth';
const PASSWORD_SETTING = 'registryPassword';
/** The address the running container was made for: a new advertise address means a new certificate. */
const LABEL_ADDRESS = 'dev.berth.registry.address';
/**
 * What the running container was configured as: a registry made by an older Berth (its blob cache
 * on) is made again, keeping its volume.
 */
const LABEL_CONFIG = 'dev.berth.registry.config';
const CONFIG_VERSION = '2';
/** The certificate's directory under the CA's: a name no service id can take (ids have no dash). */
const CERT_ID = 'berth-registry';

export interface RegistryDeps {
  docker: Docker;
  own: Ownership;
  ca: BerthCa;
  settings: SettingsRepo;
  swarm: SwarmPort;
  image: string;
  port: number;
  /** Where the htpasswd file lives (the data dir's `registry/`). */
  dir: string;
  /** The manager dockerd's per-registry CA folder (/etc/docker/certs.d). */
  certsDir: string;
  now: () => string;
  log: (message: string, err?: unknown) => void;
}

/** `host:port`, with brackets around an IPv6 host. */
function hostPort(host: string, port: number): string {
  return `${isIPv6(host) ? `[${host}]` : host}:${port}`;
}

export class BerthRegistry implements ImageRegistryPort {
  private running: Promise<{ address: string; auth: RegistryAuth }> | null = null;
  /** Pushes under way, and a garbage collection's turn: pushes and a collection never overlap. */
  private readonly turns = new PushTurns();

  constructor(private readonly d: RegistryDeps) {}

  /** One ensure at a time: deployments and the swarm route may ask together. */
  ensure(): Promise<{ address: string; auth: RegistryAuth }> {
    this.running ??= this.ensureNow().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async ensureNow(): Promise<{ address: string; auth: RegistryAuth }> {
    const manager = await this.d.swarm.managerAddress();
    if (manager === null) throw new Conflict("Berth's image registry runs only in Swarm mode: turn Swarm on first (POST /api/swarm)");
    const address = hostPort(manager, this.d.port);
    const auth = { username: USERNAME, password: await this.password(), serveraddress: address };
    const caPem = await this.d.ca.caPem();
    this.trustOnManager(address, caPem);
    const existing = await this.inspect();
    if (existing && !this.d.own.ownsSystem(existing.labels, ROLE)) {
      throw new Conflict(`a container named ${REGISTRY_CONTAINER} exists that this Berth did not create: remove or rename it, then try again`);
    }
    if (existing && existing.labels[LABEL_ADDRESS] === address && existing.labels[LABEL_CONFIG] === CONFIG_VERSION && existing.running) return { address, auth };
    if (existing) await this.d.docker.getContainer(existing.id).remove({ force: true });
    await this.create(manager, address, auth.password);
    await waitAnswering(manager, this.d.port, caPem);
    return { address, auth };
  }

  async pushing<T>(push: (registry: { address: string; auth: RegistryAuth }) => Promise<T>): Promise<T> {
    const registry = await this.ensure();
    return this.turns.push(() => push(registry));
  }

  async whileNoPush<T>(collect: (registry: RunningRegistry) => Promise<T>): Promise<T | null> {
    const existing = await this.inspect();
    if (!existing?.running || !this.d.own.ownsSystem(existing.labels, ROLE)) return null;
    const address = existing.labels[LABEL_ADDRESS];
    if (!address) return null;
    const auth = { username: USERNAME, password: await this.password(), serveraddress: address };
    const caPem = await this.d.ca.caPem();
    return this.turns.exclusive(() => collect({ address, auth, containerId: existing.id, caPem }));
  }

  /** Removes the container and the manager's trust of it. The volume stays (see docs/swarm.md). */
  async remove(): Promise<void> {
    const existing = await this.inspect();
    if (existing && this.d.own.ownsSystem(existing.labels, ROLE)) {
      await this.d.docker.getContainer(existing.id).remove({ force: true });
      const address = existing.labels[LABEL_ADDRESS];
      if (address && !address.includes('/')) rmSync(join(this.d.certsDir, address), { recursive: true, force: true });
    }
  }

  /** The registry's password: made once (32 random bytes), sealed in the settings. */
  private async password(): Promise<string> {
    const stored = await this.d.settings.getSealed(PASSWORD_SETTING);
    if (stored !== null) return stored;
    const made = randomBytes(32).toString('base64url');
    await this.d.settings.setSealed(PASSWORD_SETTING, made, this.d.now());
    return made;
  }

  private trustOnManager(address: string, caPem: string): void {
    const dir = join(this.d.certsDir, address);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o755 });
      writeFileSync(join(dir, 'ca.crt'), caPem, { mode: 0o644 });
    } catch (err) {
      throw new Error(`this server's Docker Engine cannot be told to trust Berth's registry (writing ${dir}/ca.crt failed: ${(err as Error).message}); the daemon must run as root`, { cause: err });
    }
  }

  private async inspect(): Promise<{ id: string; labels: Labels; running: boolean } | null> {
    try {
      const c = await this.d.docker.getContainer(REGISTRY_CONTAINER).inspect();
      return { id: c.Id, labels: c.Config.Labels ?? {}, running: c.State.Running };
    } catch (err) {
      if ((err as { statusCode?: number }).statusCode === 404) return null;
      throw err;
    }
  }

  private async create(manager: string, address: string, password: string): Promise<void> {
    const { docker, own } = this.d;
    const cert = await this.d.ca.issueServer(CERT_ID, [manager]);
    const authDir = join(this.d.dir, 'auth');
    mkdirSync(authDir, { recursive: true, mode: 0o755 });
    // bcrypt: the only hash distribution's htpasswd accepts
    const { hash } = await import('bcryptjs');
    writeFileSync(join(authDir, 'htpasswd'), `${USERNAME}:${await hash(password, 10)}\n`, { mode: 0o644 });
    await this.ensureVolume();
    if (!(await imageExists(docker, this.d.image))) {
      await pullImage(docker, this.d.image, (line) => this.d.log(`pulling ${this.d.image}: ${line}`), new AbortController().signal);
    }
    const container = await docker.createContainer({
      name: REGISTRY_CONTAINER,
      Image: this.d.image,
      Labels: { ...own.systemLabels(ROLE), [LABEL_ADDRESS]: address, [LABEL_CONFIG]: CONFIG_VERSION },
      Env: [
        'REGISTRY_HTTP_ADDR=:5000',
        'REGISTRY_HTTP_TLS_CERTIFICATE=/certs/server.crt',
        'REGISTRY_HTTP_TLS_KEY=/certs/server.key',
        'REGISTRY_AUTH=htpasswd',
        'REGISTRY_AUTH_HTPASSWD_REALM=Berth registry',
        'REGISTRY_AUTH_HTPASSWD_PATH=/auth/htpasswd',
        // deleting images Berth no longer keeps (rollback window) frees their blobs on garbage collection
        'REGISTRY_STORAGE_DELETE_ENABLED=true',
        // no in-memory blob cache: after a garbage collection it still calls deleted blobs present, and
        // a push of the same layers again skips them (distribution#1803): the image would never pull
        'REGISTRY_STORAGE_CACHE_BLOBDESCRIPTOR=disabled',
      ],
      ExposedPorts: { '5000/tcp': {} },
      HostConfig: {
        Binds: [`${cert.dir}:/certs:ro`, `${authDir}:/auth:ro`, `${REGISTRY_VOLUME}:/var/lib/registry`],
        // on the manager address only: workers reach it there, nothing else needs to
        PortBindings: { '5000/tcp': [{ HostIp: manager, HostPort: String(this.d.port) }] },
        RestartPolicy: { Name: 'unless-stopped' },
      },
    });
    await container.start();
  }

  private async ensureVolume(): Promise<void> {
    const { docker, own } = this.d;
    try {
      const v = await docker.getVolume(REGISTRY_VOLUME).inspect();
      if (!own.ownsSystem(v.Labels, ROLE)) throw new Conflict(`a volume named ${REGISTRY_VOLUME} exists that this Berth did not create: remove or rename it, then try again`);
    } catch (err) {
      if ((err as { statusCode?: number }).statusCode !== 404) throw err;
      await docker.createVolume({ Name: REGISTRY_VOLUME, Labels: own.systemLabels(ROLE) });
    }
  }
}

/** Pushes run side by side; an exclusive turn waits for them to end and holds new ones back. */
class PushTurns {
  private pushes = 0;
  private exclusiveTurn: Promise<unknown> | null = null;
  private drained: (() => void) | null = null;

  async push<T>(fn: () => Promise<T>): Promise<T> {
    while (this.exclusiveTurn) await this.exclusiveTurn.catch(() => undefined);
    this.pushes++;
    try {
      return await fn();
    } finally {
      if (--this.pushes === 0) this.drained?.();
    }
  }

  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    while (this.exclusiveTurn) await this.exclusiveTurn.catch(() => undefined);
    const turn = (async () => {
      if (this.pushes > 0) await new Promise<void>((resolve) => (this.drained = resolve));
      this.drained = null;
      return fn();
    })();
    this.exclusiveTurn = turn;
    try {
      return await turn;
    } finally {
      this.exclusiveTurn = null;
    }
  }
}

/** Waits until the registry answers /v2/ over TLS that verifies against Berth's CA (401 without credentials). */
async function waitAnswering(host: string, port: number, caPem: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const req = request({ host, port, path: '/v2/', ca: caPem, timeout: 2000 }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('timeout', () => req.destroy(new Error('timed out')));
        req.on('error', reject);
        req.end();
      });
      if (status === 401 || status === 200) return;
      last = `answered ${status}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`Berth's registry did not answer on ${hostPort(host, port)} within ${timeoutMs / 1000} s (${last})`);
}
