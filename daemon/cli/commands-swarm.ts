// swarm [status] | on | off, and nodes [list] | join-command | drain | activate | label | rm: Swarm
// mode on this server and the nodes that joined it (a key over all projects). <node> is a node's
// id (or a unique prefix of it) or its hostname.
import { InvalidArgumentError, type Command } from 'commander';
import type { SwarmNode, SwarmStatus } from '../../shared/types/swarm.js';
import { CliError, usageError } from './exit-codes.js';
import { table } from './output.js';
import { openSession, type Session } from './session.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];
const gib = (n: number) => `${(n / 1024 ** 3).toFixed(1)} GiB`;
const labelsText = (labels: Record<string, string>) =>
  Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');

function statusText(sw: SwarmStatus): string {
  if (!sw.enabled) return 'swarm    off';
  return [`swarm    on`, `manager  ${sw.managerAddress ?? '-'}`, `nodes    ${sw.nodeCount}`].join('\n');
}

function nodesTable(nodes: SwarmNode[]): string {
  return table(
    ['ID', 'HOSTNAME', 'ROLE', 'STATE', 'AVAILABILITY', 'ADDRESS', 'CPUS', 'MEMORY', 'TASKS', 'LABELS'],
    nodes.map((n) => [n.id.slice(0, 12), n.hostname, n.role, n.state, n.availability, n.address, n.cpus, gib(n.memoryBytes), n.tasks, labelsText(n.labels) || null]),
  );
}

/** A node by exact id, hostname, or a unique id prefix; two nodes of that hostname is a usage error (pass the id). */
export async function findNode(s: Session, ref: string): Promise<SwarmNode> {
  const { nodes } = await s.client.listNodes();
  const byId = nodes.find((n) => n.id === ref);
  if (byId) return byId;
  const byName = nodes.filter((n) => n.hostname === ref);
  if (byName.length === 1) return byName[0]!;
  if (byName.length > 1) throw usageError(`node name ${ref} is ambiguous: ${byName.map((n) => n.id).join(', ')}; pass the id`);
  const byPrefix = nodes.filter((n) => n.id.startsWith(ref));
  if (byPrefix.length === 1) return byPrefix[0]!;
  if (byPrefix.length > 1) throw usageError(`node id prefix ${ref} is ambiguous: ${byPrefix.map((n) => `${n.hostname} (${n.id})`).join(', ')}`);
  throw new CliError(`no node ${ref} on ${s.server} (berth nodes lists them)`);
}

/** `key=value` words (a label's name is not empty; its value may be). */
export function labelPairs(words: string[], what: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const w of words) {
    const at = w.indexOf('=');
    if (at <= 0) throw usageError(`${what} takes key=value, not ${w}`);
    out[w.slice(0, at)] = w.slice(at + 1);
  }
  return out;
}

function nodeDone(s: Session, node: SwarmNode, said: string): void {
  s.out.result(node, () => '');
  s.out.success(said);
}

export function registerSwarmCommands(program: Command): void {
  const swarm = program.command('swarm').description('Swarm mode: this server as the manager of more servers (a key over all projects)');
  swarm
    .command('status', { isDefault: true })
    .description('whether Swarm mode is on, the manager address and the node count')
    .action(async (_o, cmd: Command) => {
      const s = openSession(cmd);
      const { swarm: sw } = await s.client.getSwarm();
      s.out.result(sw, () => statusText(sw));
    });
  swarm
    .command('on')
    .description('turn Swarm mode on: this server becomes the manager (docker swarm init)')
    .option('--advertise-address <address>', "the address other servers reach this one at (default: the server's publicIp setting)")
    .action(async (o: { advertiseAddress?: string }, cmd: Command) => {
      const s = openSession(cmd);
      const { swarm: sw } = await s.client.enableSwarm(o.advertiseAddress ? { advertiseAddress: o.advertiseAddress } : {});
      s.out.result(sw, () => statusText(sw));
      s.out.success('Swarm mode is on; add a node with: berth nodes join-command');
    });
  swarm
    .command('off')
    .description('turn Swarm mode off (refused while workers or services with more than one replica remain)')
    .action(async (_o, cmd: Command) => {
      const s = openSession(cmd);
      const { swarm: sw } = await s.client.disableSwarm();
      s.out.result(sw, () => statusText(sw));
      s.out.success('Swarm mode is off');
    });

  const nodes = program.command('nodes').description('the nodes of the swarm (a key over all projects)');
  nodes
    .command('list', { isDefault: true })
    .description('the nodes: role, state, availability, address, CPUs, memory, tasks, labels')
    .action(async (_o, cmd: Command) => {
      const s = openSession(cmd);
      const { nodes: list } = await s.client.listNodes();
      if (s.out.json) return list.forEach((n) => s.out.event(n));
      if (list.length === 0) return s.out.info('no nodes: Swarm mode is off (berth swarm on)');
      s.out.line(nodesTable(list));
    });
  nodes
    .command('join-command')
    .description('a single-use command to paste as root on a new server to join it (its expiry on stderr)')
    .action(async (_o, cmd: Command) => {
      const s = openSession(cmd);
      const join = await s.client.createJoinCommand();
      s.out.result(join, () => join.command);
      s.out.info(`single use; expires ${join.expiresAt}`);
    });
  nodes
    .command('drain')
    .description("move a node's tasks to the other nodes and place none there (refused for the node of a database unless --force)")
    .argument('<node>', 'node id or hostname')
    .option('--force', 'drain even the node that holds databases (they stop until it is active again)')
    .action(async (ref: string, o: { force?: boolean }, cmd: Command) => {
      const s = openSession(cmd);
      const node = await findNode(s, ref);
      if (node.role === 'worker' && node.tasks > 0) s.out.info(`moving ${node.tasks} task(s) off ${node.hostname}: each new task answers before an old one stops (up to a minute)`);
      const { node: now } = await s.client.patchNode(node.id, { availability: 'drain', ...(o.force ? { force: true } : {}) });
      nodeDone(s, now, `${now.hostname} is draining`);
    });
  nodes
    .command('activate')
    .description('let a drained or paused node take tasks again')
    .argument('<node>', 'node id or hostname')
    .action(async (ref: string, _o, cmd: Command) => {
      const s = openSession(cmd);
      const node = await findNode(s, ref);
      const { node: now } = await s.client.patchNode(node.id, { availability: 'active' });
      nodeDone(s, now, `${now.hostname} is active`);
    });
  nodes
    .command('label')
    .description("set (key=value) or remove (--remove key) a node's labels; services place their instances by them")
    .argument('<node>', 'node id or hostname')
    .argument('[labels...]', 'key=value pairs to set')
    .option('--remove <key>', 'remove this label (repeatable)', collect)
    .action(async (ref: string, words: string[], o: { remove?: string[] }, cmd: Command) => {
      const set = labelPairs(words, 'a label');
      if (words.length === 0 && !o.remove?.length) throw usageError('give key=value labels to set or --remove key');
      const s = openSession(cmd);
      const node = await findNode(s, ref);
      // the daemon replaces the whole set: start from the node's labels
      const labels = { ...node.labels, ...set };
      for (const k of o.remove ?? []) delete labels[k];
      const { node: now } = await s.client.patchNode(node.id, { labels });
      nodeDone(s, now, `${now.hostname}: ${labelsText(now.labels) || 'no labels'}`);
    });
  nodes
    .command('rm')
    .description('remove a node that is down or drained from the swarm')
    .argument('<node>', 'node id or hostname')
    .action(async (ref: string, _o, cmd: Command) => {
      const s = openSession(cmd);
      const node = await findNode(s, ref);
      await s.client.removeNode(node.id);
      s.out.result({ ok: true, nodeId: node.id, hostname: node.hostname }, () => '');
      s.out.success(`removed ${node.hostname}`);
    });
}

/** A replica count: a whole number from 1 (commander's usage error, exit 2, otherwise). */
export function parseReplicas(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number of replicas, 1 or more');
  return n;
}
