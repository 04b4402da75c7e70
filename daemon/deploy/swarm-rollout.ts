// Following a Swarm rollout until it is over: every task of the new image is told in the deploy
// log as it moves ("task 2/3 running on node-b", "task 1/3 rejected on node-c: <Status.Err>"), and
// the rollout is done when Docker says the update completed and every desired task runs AND
// answers at <node address>:<its published port>. It has failed when Swarm rolls back or pauses,
// when one replica keeps failing, or when the time is up.
import type { ServiceRecord } from '../core/records.js';
import { inspectOwnedSwarmService } from '../docker/swarm-services.js';
import { listTasks, nodeDirectory, type TaskView } from '../docker/swarm-tasks.js';
import { probeAddress } from './task-probe.js';
import type { DeployDeps } from './context.js';

export type Rollout = { state: 'done' } | { state: 'failed'; reason: string } | { state: 'aborted' };

/** A replica whose tasks failed this many times does not come up on its own (Docker would retry forever). */
const FAILURES_PER_REPLICA = 3;
const POLL_MS = 1000;
/** The least time a rollout gets: pulls on workers and Swarm's monitor window come on top of an app's start. */
const MIN_ROLLOUT_MS = 120_000;
const ENDED = new Set(['failed', 'rejected', 'shutdown', 'complete', 'orphaned', 'remove']);

export async function followRollout(
  d: DeployDeps,
  service: ServiceRecord,
  swarmServiceId: string,
  image: string,
  isUpdate: boolean,
  say: (line: string, stream?: 'stdout' | 'stderr') => void,
  signal: AbortSignal,
): Promise<Rollout> {
  const deadline = Date.now() + Math.max(d.healthTimeoutMs, MIN_ROLLOUT_MS);
  const told = new Map<string, string>();
  const failures = new Map<number, number>();
  const replicas = service.replicas;
  const probe = service.runtimeMode === 'web' || service.runtimeMode === 'static' ? 'http' : 'tcp';
  while (Date.now() < deadline) {
    if (signal.aborted) return { state: 'aborted' };
    const current = await inspectOwnedSwarmService(d.docker, d.own, swarmServiceId, { serviceId: service.id });
    if (!current) return { state: 'failed', reason: 'the Swarm service was removed during the rollout' };
    const nodes = await nodeDirectory(d.docker, await d.swarm.managerAddress());
    const tasks = (await listTasks(d.docker, swarmServiceId)).filter((t) => t.image === image).sort((a, b) => a.slot - b.slot || a.timestamp.localeCompare(b.timestamp));
    for (const t of tasks) tell(t, told, failures, replicas, nodes.get(t.nodeId)?.hostname ?? (t.nodeId ? t.nodeId.slice(0, 12) : 'no node yet'), say);

    if (isUpdate && current.updateState && /^rollback|paused/.test(current.updateState)) {
      return { state: 'failed', reason: `Swarm stopped the update (${current.updateState})${current.updateMessage ? `: ${current.updateMessage}` : ''}` };
    }
    const stuck = [...failures].find(([, n]) => n >= FAILURES_PER_REPLICA);
    if (stuck) {
      const last = tasks.filter((t) => t.slot === stuck[0] && t.err).at(-1);
      return { state: 'failed', reason: `task ${stuck[0]}/${replicas} failed ${stuck[1]} times${last?.err ? `: ${last.err}` : ''}` };
    }
    const running = tasks.filter((t) => t.desiredState === 'running' && t.state === 'running');
    const updateDone = !isUpdate || current.updateState === 'completed';
    if (running.length >= replicas && updateDone && (await allAnswer(running, nodes, service.internalPort, probe))) return { state: 'done' };
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return { state: 'failed', reason: `not every task of ${replicas} was running and answering within ${Math.round(Math.max(d.healthTimeoutMs, MIN_ROLLOUT_MS) / 1000)} s` };
}

function tell(t: TaskView, told: Map<string, string>, failures: Map<number, number>, replicas: number, hostname: string, say: (line: string, stream?: 'stdout' | 'stderr') => void): void {
  const key = `${t.state}|${t.nodeId}`;
  if (told.get(t.id) === key) return;
  const first = !told.has(t.id);
  told.set(t.id, key);
  const bad = t.state === 'failed' || t.state === 'rejected';
  if (bad) failures.set(t.slot, (failures.get(t.slot) ?? 0) + 1);
  // the quiet in-between states (new, allocated, pending, assigned, accepted) only once, as "scheduled"
  if (!bad && !['preparing', 'starting', 'running', 'shutdown', 'complete'].includes(t.state) && !first) return;
  const what = bad
    ? `${t.state} on ${hostname}: ${t.err ?? t.message}`
    : `${ENDED.has(t.state) ? t.state : t.state === 'running' || t.state === 'starting' || t.state === 'preparing' ? t.state : 'scheduled'} on ${hostname}`;
  say(`task ${t.slot}/${replicas} ${what}`, bad ? 'stderr' : 'stdout');
}

async function allAnswer(running: TaskView[], nodes: Map<string, { address: string }>, internalPort: number | null, kind: 'http' | 'tcp'): Promise<boolean> {
  if (internalPort === null) return true;
  const answers = await Promise.all(
    running.map((t) => {
      const address = nodes.get(t.nodeId)?.address;
      return address && t.publishedPort !== null ? probeAddress(address, t.publishedPort, kind) : Promise.resolve(false);
    }),
  );
  return answers.every(Boolean);
}
