// The Docker Engine of any Swarm node, for the daemon on the manager: Swarm schedules tasks on a
// worker but offers no `exec` into them, nor any other call to that node's Engine. Each worker the
// daemon needs to reach gets ONE small Swarm service, `berth-engine-<node id 12>`, pinned to it
// (`node.id==<id>`): a Node.js relay (engine-relay-script.ts, from BERTH_IMAGE_NODE pushed to Berth's
// registry) with the node's /var/run/docker.sock bound in, published in host mode at
// BERTH_NODE_ENGINE_PORT on the node's address. It speaks TLS with a server certificate from
// Berth's CA for that address, and takes only clients with a certificate from the same CA, which
// only this daemon holds (tls/clients/berth-daemon). The node's key travels as a Swarm secret
// (encrypted in the raft log, on the node only in its task's tmpfs); the certificate, the CA and
// the script as configs. Made on first use, kept while the node stays, removed with the node.
// Nothing here opens a door Swarm did not open already: a manager can run any container with any
// bind mount on its workers; the relay only lets the daemon see what it ran.
import Docker from 'dockerode';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Conflict, NotFound } from '../core/errors.js';
import type { ImageRegistryPort } from '../core/ports/swarm.js';
import type { BerthCa } from '../databases/tls.js';
import type { NodeEngineSource } from '../deploy/context.js';
import type { Labels, Ownership } from '../docker/labels.js';
import { toolImageInRegistry } from '../docker/tool-images.js';
import { RELAY_SCRIPT } from './engine-relay-script.js';

const ROLE = 'node-engine';
const LABEL_NODE = 'dev.berth.node-engine.node';
/** A digest of everything the service was made from: a different one means a new service. */
const LABEL_SPEC = 'dev.berth.node-engine.spec';
const CLIENT_NAME = 'berth-daemon';
const READY_MS = 90_000;
const RELAY_DIR = '/berth-relay';

export interface NodeEnginesDeps {
  docker: Docker;
  own: Ownership;
  ca: BerthCa;
  registry: ImageRegistryPort;
  /** An image with `node` on its PATH (BERTH_IMAGE_NODE, default `node:22-alpine`). */
  image: string;
  /** Where the relay listens on each node (BERTH_NODE_ENGINE_PORT, 5444). */
  port: number;
  /** The CA's folder (the data dir's `tls/`): node certificates live under services/berth-engine-<id>/. */
  tlsDir: string;
  log: (message: string, err?: unknown) => void;
}

interface DockerNode {
  ID: string;
  Description?: { Hostname?: string };
  Status?: { State?: string; Addr?: string };
}

interface RawService {
  ID: string;
  Spec?: { Name?: string; Labels?: Labels };
}

export class NodeEngines implements NodeEngineSource {
  private readonly clients = new Map<string, { address: string; docker: Docker }>();
  private readonly making = new Map<string, Promise<Docker>>();

  constructor(private readonly d: NodeEnginesDeps) {}

  /**
   * The Engine that runs on `nodeId`: this daemon's own for the manager's node, else the node's
   * relay (made and waited for on first use). NotFound for a node not in the swarm, Conflict for
   * one that is not ready.
   */
  async engine(nodeId: string): Promise<Docker> {
    const info = (await this.d.docker.info()) as { Swarm?: { NodeID?: string } };
    if (info.Swarm?.NodeID === nodeId) return this.d.docker;
    const node = await this.node(nodeId);
    const address = node.Status?.Addr ?? '';
    const cached = this.clients.get(nodeId);
    if (cached && cached.address === address) return cached.docker;
    let making = this.making.get(nodeId);
    if (!making) {
      making = this.make(node, address).finally(() => this.making.delete(nodeId));
      this.making.set(nodeId, making);
    }
    return making;
  }

  /** The address `nodeId` advertises to the swarm (NotFound, Conflict: as engine()). */
  async address(nodeId: string): Promise<string> {
    return (await this.node(nodeId)).Status?.Addr ?? '';
  }

  /** Removes a node's relay (service, secret, configs, certificate): the node left. */
  async forget(nodeId: string): Promise<void> {
    this.clients.delete(nodeId);
    for (const s of await this.services(nodeId)) await this.d.docker.getService(s.ID).remove();
    await this.removeObjects(nodeId, null);
    rmSync(this.certDir(nodeId), { recursive: true, force: true });
  }

  /** Swarm went off: every relay went with it. */
  forgetAll(): void {
    this.clients.clear();
  }

  private async node(nodeId: string): Promise<DockerNode> {
    let node: DockerNode;
    try {
      node = (await this.d.docker.getNode(nodeId).inspect()) as DockerNode;
    } catch (err) {
      if ((err as { statusCode?: number }).statusCode === 404) throw new NotFound(`node ${nodeId} is not in the swarm`);
      throw err;
    }
    const state = node.Status?.State ?? 'unknown';
    if (state !== 'ready') throw new Conflict(`node ${node.Description?.Hostname ?? nodeId} is ${state}: its Docker Engine cannot be reached`, 'node_unavailable');
    return node;
  }

  private certDir(nodeId: string): string {
    return join(this.d.tlsDir, 'services', `berth-engine-${nodeId}`);
  }

  private async make(node: DockerNode, address: string): Promise<Docker> {
    const name = `berth-engine-${node.ID.slice(0, 12)}`;
    const server = await this.serverCertificate(node.ID, address);
    const client = await this.d.ca.client(CLIENT_NAME);
    const registry = await this.d.registry.ensure();
    const image = await this.d.registry.pushing((r) => toolImageInRegistry(this.d.docker, 'node', this.d.image, r, (m) => this.d.log(m)));
    const digest = createHash('sha256')
      .update([image, server.cert, server.key, client.ca, RELAY_SCRIPT, String(this.d.port)].join('\0'))
      .digest('hex')
      .slice(0, 12);
    const existing = await this.services(node.ID);
    if (!existing.some((s) => s.Spec?.Labels?.[LABEL_SPEC] === digest)) {
      for (const s of existing) await this.d.docker.getService(s.ID).remove();
      await this.removeObjects(node.ID, digest);
      const labels = { ...this.d.own.systemLabels(ROLE), [LABEL_NODE]: node.ID };
      const object = async (kind: 'secret' | 'config', what: string, data: string) => {
        const objectName = `${name}-${what}-${digest}`;
        const spec = { Name: objectName, Labels: labels, Data: Buffer.from(data).toString('base64') };
        try {
          const made = (await (kind === 'secret' ? this.d.docker.createSecret(spec) : this.d.docker.createConfig(spec))) as { id?: string; ID?: string };
          return { id: made.id ?? made.ID ?? '', name: objectName };
        } catch (err) {
          // 409: made by an earlier attempt that stopped before its service
          if ((err as { statusCode?: number }).statusCode !== 409) throw err;
          const found = (await (kind === 'secret' ? this.d.docker.getSecret(objectName) : this.d.docker.getConfig(objectName)).inspect()) as { ID: string };
          return { id: found.ID, name: objectName };
        }
      };
      const key = await object('secret', 'key', server.key);
      const files = [
        { ...(await object('config', 'crt', server.cert)), file: 'server.crt' },
        { ...(await object('config', 'ca', client.ca)), file: 'ca.crt' },
        { ...(await object('config', 'relay', RELAY_SCRIPT)), file: 'relay.mjs' },
      ];
      const spec = {
        Name: name,
        Labels: { ...labels, [LABEL_SPEC]: digest },
        TaskTemplate: {
          ContainerSpec: {
            Image: image,
            Labels: labels,
            Command: ['node', `${RELAY_DIR}/relay.mjs`],
            Env: [`BERTH_RELAY_TLS_DIR=${RELAY_DIR}`, `BERTH_RELAY_KEY=/run/secrets/${key.name}`, `BERTH_RELAY_PORT=${this.d.port}`],
            Mounts: [{ Type: 'bind', Source: '/var/run/docker.sock', Target: '/var/run/docker.sock' }],
            Secrets: [{ SecretID: key.id, SecretName: key.name, File: { Name: key.name, UID: '0', GID: '0', Mode: 0o400 } }],
            Configs: files.map((f) => ({ ConfigID: f.id, ConfigName: f.name, File: { Name: `${RELAY_DIR}/${f.file}`, UID: '0', GID: '0', Mode: 0o444 } })),
          },
          Resources: { Limits: { MemoryBytes: 128 * 1024 * 1024 } },
          RestartPolicy: { Condition: 'any', Delay: 2e9, MaxAttempts: 0 },
          Placement: { Constraints: [`node.id==${node.ID}`] },
          LogDriver: { Name: 'json-file', Options: { 'max-size': '1m', 'max-file': '1' } },
        },
        Mode: { Replicated: { Replicas: 1 } },
        EndpointSpec: { Ports: [{ Protocol: 'tcp', TargetPort: this.d.port, PublishedPort: this.d.port, PublishMode: 'host' }] },
      };
      this.d.log(`starting the engine relay on node ${node.Description?.Hostname ?? node.ID} (${address}:${this.d.port})`);
      await this.d.docker.createService(registry.auth, spec as unknown as Docker.CreateServiceOptions);
    }
    const docker = new Docker({ protocol: 'https', host: address, port: this.d.port, ca: client.ca, cert: client.cert, key: client.key });
    await this.waitAnswering(docker, name, node);
    this.clients.set(node.ID, { address, docker });
    return docker;
  }

  /** The node's server certificate for `address`, issued once per address. */
  private async serverCertificate(nodeId: string, address: string): Promise<{ cert: string; key: string }> {
    const dir = this.certDir(nodeId);
    const marker = join(dir, 'address');
    if (!existsSync(marker) || readFileSync(marker, 'utf8') !== address || !existsSync(join(dir, 'server.key'))) {
      await this.d.ca.issueServer(`berth-engine-${nodeId}`, [address]);
      writeFileSync(marker, address, { mode: 0o600 });
    }
    return { cert: readFileSync(join(dir, 'server.crt'), 'utf8'), key: readFileSync(join(dir, 'server.key'), 'utf8') };
  }

  /** Until the relay answers a ping; the task's own error (an image that would not pull, a port taken) when it never does. */
  private async waitAnswering(docker: Docker, name: string, node: DockerNode): Promise<void> {
    const deadline = Date.now() + READY_MS;
    let last: string;
    for (;;) {
      try {
        await docker.ping();
        return;
      } catch (err) {
        last = (err as Error).message;
      }
      if (Date.now() > deadline) {
        const tasks = (await this.d.docker.listTasks({ filters: { service: [name] } })) as { Status?: { State?: string; Err?: string } }[];
        const why = tasks.map((t) => t.Status?.Err).find((e) => e) ?? last;
        throw new Error(`the engine relay on node ${node.Description?.Hostname ?? node.ID} did not answer within ${READY_MS / 1000} s: ${why}`);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  private async services(nodeId: string): Promise<RawService[]> {
    const label = [...Object.entries(this.d.own.systemLabels(ROLE)).map(([k, v]) => `${k}=${v}`), `${LABEL_NODE}=${nodeId}`];
    const list = (await this.d.docker.listServices({ filters: { label } })) as RawService[];
    return list.filter((s) => this.d.own.ownsSystem(s.Spec?.Labels, ROLE) && s.Spec?.Labels?.[LABEL_NODE] === nodeId);
  }

  /** The node's secrets and configs but those of `keep` (a spec digest); one still in use stays until the next time. */
  private async removeObjects(nodeId: string, keep: string | null): Promise<void> {
    const label = [...Object.entries(this.d.own.systemLabels(ROLE)).map(([k, v]) => `${k}=${v}`), `${LABEL_NODE}=${nodeId}`];
    const secrets = (await this.d.docker.listSecrets({ filters: { label } })) as { ID: string; Spec?: { Name?: string; Labels?: Labels } }[];
    const configs = (await this.d.docker.listConfigs({ filters: { label } })) as { ID: string; Spec?: { Name?: string; Labels?: Labels } }[];
    const stale = (o: { Spec?: { Name?: string; Labels?: Labels } }) => this.d.own.ownsSystem(o.Spec?.Labels, ROLE) && (keep === null || !o.Spec?.Name?.endsWith(`-${keep}`));
    for (const s of secrets.filter(stale))
      await this.d.docker
        .getSecret(s.ID)
        .remove()
        .catch(() => undefined);
    for (const c of configs.filter(stale))
      await this.d.docker
        .getConfig(c.ID)
        .remove()
        .catch(() => undefined);
  }
}
