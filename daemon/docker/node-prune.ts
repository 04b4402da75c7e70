// Image pruning on every Swarm node: a worker pulls each deployment's image from Berth's registry
// and would keep it forever. After a Swarm-backed deployment goes live, ONE Swarm service in mode
// GlobalJob (one task per node, run once, Engine API 1.41) runs a small sh script with the docker
// CLI against each node's own Engine (its socket bound in) and removes the images of the service's
// repository whose digest the manager did not name as kept (retire.ts computes them). Digests, not
// tags: Swarm pins a task's image as `repo:tag@sha256:...`, and a node that pulled by digest holds
// the image untagged, with only its RepoDigests. Nothing is forced: an image a container still runs
// cannot be removed, which is the safety net; stopped task containers of Berth's service (Swarm's
// task history) that hold an image no longer kept are removed first, or they would pin it.
import type Docker from 'dockerode';
import { randomBytes } from 'node:crypto';
import type { RegistryAuth } from '../core/ports/swarm.js';
import { LABEL_INSTANCE, LABEL_SERVICE, type Labels, type Ownership } from './labels.js';
import { DockerLogLines } from './output-lines.js';
import { nodeDirectory } from './swarm-tasks.js';

/** The role label of the job services (server-wide objects: no project or service label, so no lookup of a Berth service's Swarm service can take one for it). */
const ROLE = 'node-prune';
const POLL_MS = 1000;
/** A task in one of these has ended (a job's tasks never restart: RestartPolicy none). */
const ENDED = new Set(['complete', 'failed', 'rejected', 'shutdown', 'orphaned', 'remove']);

/**
 * Runs on each node with REPO, KEEP (space-separated digests), SERVICE, INSTANCE and NODE in its
 * environment: a constant script, every value arrives as a variable, never in the script's text.
 */
const SCRIPT = `
set -u
kept() { case " $KEEP " in *" $1 "*) return 0;; esac; return 1; }
# this repository's images: tag (or <none>), digest, full image id
images=$(docker image ls --digests --no-trunc --format '{{.Repository}} {{.Tag}} {{.Digest}} {{.ID}}' | while read -r repo tag digest id; do
  [ "$repo" = "$REPO" ] && echo "$tag $digest $id"
done)
ids=" $(echo "$images" | while read -r tag digest id; do echo "$id"; done | tr '\n' ' ') "
kept_ids=" $(echo "$images" | while read -r tag digest id; do kept "$digest" && echo "$id"; done | tr '\n' ' ') "
# stopped task containers of Berth's service (Swarm's task history) would pin an image that is not kept
docker ps -a -q --filter "label=${LABEL_SERVICE}=$SERVICE" --filter "label=${LABEL_INSTANCE}=$INSTANCE" --filter status=exited --filter status=created --filter status=dead |
while read -r c; do
  image=$(docker inspect -f '{{.Image}}' "$c") || continue
  case "$ids" in *" $image "*) ;; *) continue;; esac
  case "$kept_ids" in *" $image "*) continue;; esac
  docker rm "$c" >/dev/null 2>&1 && echo "$NODE: removed the stopped task container $c"
done
echo "$images" | while read -r tag digest id; do
  [ -n "$id" ] || continue
  kept "$digest" && continue
  if [ "$tag" != "<none>" ]; then
    # a tag without a digest cannot be matched against the kept ones: it stays
    [ "$digest" = "<none>" ] && continue
    ref="$REPO:$tag"
  else ref="$REPO@$digest"
  fi
  if out=$(docker image rm "$ref" 2>&1); then echo "$NODE: removed $ref"; else echo "$NODE: kept $ref: $out"; fi
done
echo "$NODE: done"
`;

export interface NodePruneRequest {
  serviceId: string;
  /** `<registry>/berth/<serviceId>`: only this repository's images are touched. */
  repo: string;
  /** Digests (`sha256:...`) that stay on every node. */
  keep: string[];
  /** The docker CLI image in Berth's registry (tool-images.ts). */
  image: string;
  auth: RegistryAuth;
  timeoutMs: number;
}

/** Runs the job to its end (or the time limit), logs what each node removed or why its task failed, and removes the job service. */
export async function pruneOnNodes(docker: Docker, own: Ownership, req: NodePruneRequest, log: (message: string) => void): Promise<void> {
  const labels = own.systemLabels(ROLE);
  const name = `berth-prune-${req.serviceId.slice(0, 8)}-${randomBytes(4).toString('hex')}`;
  const spec = {
    Name: name,
    Labels: labels,
    TaskTemplate: {
      ContainerSpec: {
        Image: req.image,
        Labels: labels,
        Command: ['sh', '-c', SCRIPT],
        Env: [`REPO=${req.repo}`, `KEEP=${req.keep.join(' ')}`, `SERVICE=${req.serviceId}`, `INSTANCE=${own.instanceId}`, 'NODE={{.Node.Hostname}}'],
        Mounts: [{ Type: 'bind', Source: '/var/run/docker.sock', Target: '/var/run/docker.sock' }],
      },
      RestartPolicy: { Condition: 'none' },
      LogDriver: { Name: 'json-file', Options: { 'max-size': '1m', 'max-file': '1' } },
    },
    Mode: { GlobalJob: {} },
  };
  await removeStaleJobs(docker, own, req.timeoutMs);
  const { id } = (await docker.createService(req.auth, spec as unknown as Docker.CreateServiceOptions)) as { id: string };
  try {
    const tasks = await waitEnded(docker, id, req.timeoutMs);
    const failed = tasks.filter((t) => t.state !== 'complete');
    const nodes = failed.length > 0 ? await nodeDirectory(docker, null) : new Map();
    for (const t of failed) log(`pruning ${req.repo} on ${nodes.get(t.node)?.hostname ?? t.node}: task ${t.state}${t.err ? `: ${t.err}` : ''}`);
    if (tasks.some((t) => !ENDED.has(t.state))) log(`pruning ${req.repo}: not every node finished within ${req.timeoutMs / 1000} s`);
    for (const line of await jobOutput(docker, id)) log(`pruning ${req.repo} on ${line}`);
  } finally {
    await removeJob(docker, own, id);
  }
}

interface JobTask {
  state: string;
  err: string;
  node: string;
}

/** Polls the job's tasks until there is at least one and all have ended, twice in a row (the global orchestrator makes them together), or the time is up. */
async function waitEnded(docker: Docker, id: string, timeoutMs: number): Promise<JobTask[]> {
  const deadline = Date.now() + timeoutMs;
  let endedBefore = false;
  for (;;) {
    const raw = (await docker.listTasks({ filters: { service: [id] } })) as { NodeID?: string; Status?: { State?: string; Err?: string } }[];
    const tasks = raw.map((t) => ({ state: t.Status?.State ?? 'unknown', err: t.Status?.Err ?? '', node: t.NodeID ?? '' }));
    const ended = tasks.length > 0 && tasks.every((t) => ENDED.has(t.state));
    if ((ended && endedBefore) || Date.now() > deadline) return tasks;
    endedBefore = ended;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** The job's output (every node's lines, each starting with its hostname), from the Swarm service's logs. */
async function jobOutput(docker: Docker, id: string): Promise<string[]> {
  const lines: string[] = [];
  const reader = new DockerLogLines((line) => lines.push(line));
  const data = (await docker.getService(id).logs({ stdout: true, stderr: true, follow: false })) as unknown as Buffer;
  reader.push(data);
  reader.end();
  return lines.filter((l) => l.trim() !== '');
}

/** Jobs a stopped daemon left behind (it removes each one after its run): gone once twice the time limit has passed. */
async function removeStaleJobs(docker: Docker, own: Ownership, timeoutMs: number): Promise<void> {
  const label = Object.entries(own.systemLabels(ROLE)).map(([k, v]) => `${k}=${v}`);
  const jobs = (await docker.listServices({ filters: { label } })) as { ID: string; CreatedAt?: string; Spec?: { Labels?: Labels } }[];
  for (const job of jobs) {
    if (own.ownsSystem(job.Spec?.Labels, ROLE) && Date.now() - Date.parse(job.CreatedAt ?? '') > 2 * timeoutMs) await removeJob(docker, own, job.ID);
  }
}

async function removeJob(docker: Docker, own: Ownership, id: string): Promise<void> {
  const info = (await docker.getService(id).inspect()) as { Spec?: { Labels?: Labels } };
  if (own.ownsSystem(info.Spec?.Labels, ROLE)) await docker.getService(id).remove();
}
