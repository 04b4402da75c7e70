// Joining a worker node (POST /api/nodes/join and the open /api/nodes/join/:token/... routes): a
// single-use token (30 min), only its keyed hash stored (migration 019), and one command line that
// fetches the join script over HTTPS pinned to the API certificate's key. The script, Berth's CA
// (for the registry) and the join answer are given for a known, unexpired token only; the answer
// (Docker's worker token) goes to the first machine that asks and, again, to that machine only.
import { randomBytes } from 'node:crypto';
import type { NodeJoinCommand } from '../../shared/types/swarm.js';
import type { Access } from './access.js';
import type { Clock } from './clock.js';
import { Conflict, InvalidInput, NotFound } from './errors.js';
import type { CaPort } from './ports/ca.js';
import type { Store } from './ports/store.js';
import type { JoinEndpointPort, RegistryControlPort, SwarmControlPort } from './ports/swarm-control.js';
import type { SwarmPort } from './ports/swarm.js';

const LIFETIME_MS = 30 * 60 * 1000;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{32,64}$/;
const MACHINE_ID = /^[0-9a-f]{32}$/;
const HOSTNAME = /^[A-Za-z0-9][A-Za-z0-9.-]{0,252}$/;
/** What may be put into the script between single quotes: no quote, no backslash, no control character. */
const SCRIPT_SAFE = /^[A-Za-z0-9.:/[\]_+=-]*$/;

interface JoinAnswer {
  joinToken: string;
  managerAddress: string;
  registryAddress: string;
}

export interface NodeJoinsDeps {
  store: Store;
  clock: Clock;
  swarm: SwarmPort;
  control: SwarmControlPort;
  registry: RegistryControlPort;
  endpoint: JoinEndpointPort;
  ca: CaPort;
}

export class NodeJoins {
  constructor(private readonly d: NodeJoinsDeps) {}

  async create(access: Access): Promise<NodeJoinCommand> {
    access.requireWrite();
    access.requireAllProjects('joining nodes');
    if (!(await this.d.swarm.enabled())) throw new Conflict('Swarm mode is off: turn it on first (POST /api/swarm)', 'swarm_off');
    const endpoint = await this.d.endpoint.endpoint();
    if (endpoint === null) {
      throw new Conflict(
        'new nodes fetch the join script over HTTPS, and this daemon serves its API over HTTPS nowhere: on an installed server set BERTH_API_TLS_ADDR (Caddy serves it), on a development daemon BERTH_JOIN_TLS_ADDR',
        'join_endpoint_missing',
      );
    }
    const token = randomBytes(24).toString('base64url');
    const now = Date.parse(this.d.clock.now());
    const expiresAt = new Date(now + LIFETIME_MS).toISOString();
    await this.d.store.nodeJoins.deleteExpired(this.d.clock.now());
    await this.d.store.nodeJoins.insert({ tokenHash: this.d.store.hashToken(token), createdAt: this.d.clock.now(), expiresAt });
    // pipefail: a fetch that fails (a wrong pin, an expired token) fails the command, instead of
    // bash running an empty script and exiting 0 (pin, URL and token hold no quote or space)
    const command = `bash -o pipefail -c "curl -fsSk --pinnedpubkey 'sha256//${endpoint.pin}' ${endpoint.baseUrl}/api/nodes/join/${token}/script | bash"`;
    return { token, command, expiresAt };
  }

  /** The join script for a valid token, its values filled in. */
  async script(token: string): Promise<string> {
    await this.valid(token);
    const endpoint = await this.d.endpoint.endpoint();
    const manager = await this.d.swarm.managerAddress();
    if (endpoint === null || manager === null) throw new NotFound('join token not found or expired');
    const { address: registry } = await this.d.registry.ensure();
    const values: Record<string, string> = { BASE_URL: endpoint.baseUrl, PIN: endpoint.pin, TOKEN: token, MANAGER: manager, REGISTRY: registry };
    for (const [name, value] of Object.entries(values)) {
      // every value is a validated token, address or base64: this is a guard, never an escape
      if (!SCRIPT_SAFE.test(value)) throw new Error(`join script value ${name} has characters a script cannot hold`);
    }
    return (await this.d.endpoint.scriptTemplate()).replace(/@@([A-Z_]+)@@/g, (whole, name: string) => values[name] ?? whole);
  }

  /** Berth's CA (it signs the registry's certificate), for a valid token. */
  async ca(token: string): Promise<string> {
    await this.valid(token);
    return this.d.ca.caPem();
  }

  /** Docker's worker token and where to join, for the first machine that asks with this token (and that machine again). */
  async complete(token: string, input: { hostname: string; machineId: string }): Promise<JoinAnswer> {
    if (!MACHINE_ID.test(input.machineId)) throw new InvalidInput('machineId must be the 32 hexadecimal characters of /etc/machine-id');
    if (!HOSTNAME.test(input.hostname)) throw new InvalidInput('hostname must be a plain host name');
    const join = await this.valid(token);
    if (join.machineId === null) {
      const claimed = await this.d.store.nodeJoins.claim(join.tokenHash, input.machineId, input.hostname, this.d.clock.now());
      if (!claimed) return this.complete(token, input); // another machine won the race: answer as for a used token
    } else if (join.machineId !== input.machineId) {
      throw new Conflict(`this join command was already used by ${join.hostname ?? 'another server'}: create a new one with \`berth nodes join-command\``, 'join_token_used');
    }
    const manager = await this.d.swarm.managerAddress();
    if (manager === null) throw new Conflict('Swarm mode was turned off since this join command was made', 'swarm_off');
    const { address: registryAddress } = await this.d.registry.ensure();
    return { joinToken: await this.d.control.workerJoinToken(), managerAddress: manager, registryAddress };
  }

  private async valid(token: string) {
    const join = TOKEN_PATTERN.test(token) ? await this.d.store.nodeJoins.get(this.d.store.hashToken(token)) : null;
    if (!join || join.expiresAt <= this.d.clock.now()) throw new NotFound('join token not found or expired');
    return join;
  }
}
