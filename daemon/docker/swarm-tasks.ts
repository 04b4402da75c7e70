// A Swarm service's tasks and the nodes they run on, as the Engine reports them: what the deploy
// log follows, what Caddy's pools are made of and what GET /services/:id/instances answers.
import type Docker from 'dockerode';

export interface TaskView {
  id: string;
  /** Replica number (1..N). */
  slot: number;
  nodeId: string;
  state: string;
  desiredState: string;
  /** Docker's error for a rejected or failed task, verbatim. */
  err: string | null;
  message: string;
  /** The host port Docker published the service's port at on the task's node (mode host). */
  publishedPort: number | null;
  /** When the task last changed state. */
  timestamp: string;
  image: string;
  /** The task's container on its node ('' before it has one). */
  containerId: string;
}

interface RawTask {
  ID: string;
  Slot?: number;
  NodeID?: string;
  DesiredState?: string;
  Spec?: { ContainerSpec?: { Image?: string } };
  Status?: {
    State?: string;
    Err?: string;
    Message?: string;
    Timestamp?: string;
    PortStatus?: { Ports?: { TargetPort?: number; PublishedPort?: number }[] };
    ContainerStatus?: { ContainerID?: string };
  };
}

export async function listTasks(docker: Docker, swarmServiceId: string): Promise<TaskView[]> {
  const tasks = (await docker.listTasks({ filters: { service: [swarmServiceId] } })) as RawTask[];
  return tasks.map((t) => ({
    id: t.ID,
    slot: t.Slot ?? 0,
    nodeId: t.NodeID ?? '',
    state: t.Status?.State ?? 'unknown',
    desiredState: t.DesiredState ?? 'unknown',
    err: t.Status?.Err || null,
    message: t.Status?.Message ?? '',
    publishedPort: t.Status?.PortStatus?.Ports?.[0]?.PublishedPort ?? null,
    timestamp: t.Status?.Timestamp ?? '',
    image: t.Spec?.ContainerSpec?.Image ?? '',
    containerId: t.Status?.ContainerStatus?.ContainerID ?? '',
  }));
}

export interface NodeView {
  hostname: string;
  /** Where the manager reaches the node; the manager's own node reports 0.0.0.0 at times, so callers substitute the manager address. */
  address: string;
  isManager: boolean;
}

export async function nodeDirectory(docker: Docker, managerAddress: string | null): Promise<Map<string, NodeView>> {
  const out = new Map<string, NodeView>();
  const nodes = (await docker.listNodes()) as { ID: string; Description?: { Hostname?: string }; Status?: { Addr?: string }; ManagerStatus?: { Addr?: string } }[];
  for (const n of nodes) {
    const isManager = n.ManagerStatus !== undefined;
    let address = n.Status?.Addr ?? '';
    if (isManager && (address === '' || address === '0.0.0.0' || address === '127.0.0.1')) address = managerAddress ?? n.ManagerStatus?.Addr?.split(':')[0] ?? '';
    out.set(n.ID, { hostname: n.Description?.Hostname ?? n.ID.slice(0, 12), address, isManager });
  }
  return out;
}
