// A Swarm service's log, as `docker service logs` shows it: the lines of every task wherever it
// runs, gathered by the manager. Each line says which node and task wrote it ("[node-b 3f2a9c1b0e12]
// listening on :8080"), so the runtime log of a replicated service reads like one container's.
import type Docker from 'dockerode';
import type { Readable } from 'node:stream';
import { followLogStream, type LogFollower } from './containers.js';

/** How often an unknown node id may trigger a fresh node list (a node that joined after the follow began). */
const NODE_REFRESH_MS = 10_000;

/**
 * With `details`, the Engine puts the task's attributes before each line, URL-encoded:
 * `com.docker.swarm.node.id=<id>,com.docker.swarm.service.id=<id>,com.docker.swarm.task.id=<id> <line>`.
 * Returns the line with them replaced by `[<node> <task id, 12>] `; a line without them as it is.
 */
export function withTaskPrefix(line: string, nodeName: (nodeId: string) => string): string {
  const space = line.indexOf(' ');
  const head = space === -1 ? line : line.slice(0, space);
  if (!head.includes('com.docker.swarm.')) return line;
  const attrs = new Map<string, string>();
  for (const kv of head.split(',')) {
    const eq = kv.indexOf('=');
    if (eq > 0) attrs.set(kv.slice(0, eq), safeDecode(kv.slice(eq + 1)));
  }
  const node = attrs.get('com.docker.swarm.node.id');
  const task = attrs.get('com.docker.swarm.task.id');
  if (!node && !task) return line;
  const rest = space === -1 ? '' : line.slice(space + 1);
  return `[${node ? nodeName(node) : '?'}${task ? ` ${task.slice(0, 12)}` : ''}] ${rest}`;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Follows every task's stdout and stderr of Swarm service `id` from `sinceSeconds` (see followContainerLogs for `busy` and `onEnd`). */
export async function followSwarmServiceLogs(
  docker: Docker,
  id: string,
  sinceSeconds: number,
  onLine: (line: string, stream: 'stdout' | 'stderr') => void,
  onEnd: () => void,
  busy: () => Promise<void> | null = () => null,
): Promise<LogFollower> {
  const names = new Map<string, string>();
  let refreshedAt = 0;
  const refresh = async () => {
    refreshedAt = Date.now();
    const nodes = (await docker.listNodes()) as { ID: string; Description?: { Hostname?: string } }[];
    for (const n of nodes) names.set(n.ID, n.Description?.Hostname ?? n.ID.slice(0, 12));
  };
  await refresh().catch(() => undefined);
  const nodeName = (nodeId: string) => {
    const known = names.get(nodeId);
    if (known) return known;
    if (Date.now() - refreshedAt > NODE_REFRESH_MS) void refresh().catch(() => undefined);
    return nodeId.slice(0, 12);
  };
  const raw = (await docker.getService(id).logs({ follow: true, stdout: true, stderr: true, since: sinceSeconds, details: true, timestamps: false })) as unknown as Readable;
  return followLogStream(raw, (line, stream) => onLine(withTaskPrefix(line, nodeName), stream), onEnd, busy);
}
