// projects (list, create), services (list, create), status (the server's metrics).
import type { Command } from 'commander';
import type { CreateServiceInput } from '../../shared/client.js';
import type { SwarmNode } from '../../shared/types/swarm.js';
import { parseCount } from './durations.js';
import { usageError } from './exit-codes.js';
import { table } from './output.js';
import { openSession } from './session.js';
import { findNode, labelPairs, parseReplicas } from './commands-swarm.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

const gb = (n: number) => `${(n / 1024 ** 3).toFixed(1)} GB`;
const mb = (n: number) => `${(n / 1024 ** 2).toFixed(0)} MB`;

/** A node's hostname for the listing, else the start of its id. */
const nodeLabel = (nodes: SwarmNode[] | null, id: string) => nodes?.find((n) => n.id === id)?.hostname ?? id.slice(0, 12);

export function registerProjectCommands(program: Command): void {
  const projects = program
    .command('projects')
    .description('list the projects the key can see')
    .action(async (_o, cmd: Command) => {
      const s = openSession(cmd);
      const list = await s.projects();
      if (s.out.json) return list.forEach(({ services: _services, ...p }) => s.out.event(p));
      s.out.line(
        table(
          ['ID', 'SLUG', 'NAME', 'STATUS', 'SERVICES'],
          list.map((p) => [p.id, p.slug, p.name, p.status, p.serviceCount]),
        ),
      );
    });

  projects
    .command('create')
    .description('create a project (needs a write key over all projects)')
    .argument('<name>')
    .option('--description <text>', 'what the project is for', '')
    .action(async (name: string, o: { description: string }, cmd: Command) => {
      const s = openSession(cmd);
      const { project } = await s.client.createProject({ name, description: o.description });
      s.out.result(project, () => `created project ${project.slug} (${project.id})`);
    });

  const services = program
    .command('services')
    .description('list services (of --project or the linked project, else of every project)')
    .action(async (_o, cmd: Command) => {
      const s = openSession(cmd);
      const scope = await s.scopeProject();
      const projects = scope ? [scope] : await s.projects();
      const rows = projects.flatMap((p) => p.services.map((svc) => ({ project: p.slug, svc })));
      if (s.out.json) return rows.forEach((r) => s.out.event(r.svc));
      // a NODE column only when a database runs on another node than this server (hostnames best effort)
      const placed = rows.some((r) => r.svc.nodeId);
      const nodes = placed
        ? await s.client.listNodes().then(
            (r) => r.nodes,
            () => null,
          )
        : null;
      s.out.line(
        table(
          ['ID', 'PROJECT', 'SLUG', 'STATUS', ...(placed ? ['NODE'] : []), 'URL'],
          rows.map(({ project, svc }) => [svc.id, project, svc.slug, svc.status, ...(placed ? [svc.nodeId ? nodeLabel(nodes, svc.nodeId) : null] : []), svc.primaryUrl]),
        ),
      );
    });

  services
    .command('create')
    .description('create a service (not deployed) in --project or the linked project, from a git repository or a Docker image')
    .argument('<name>')
    .option('--repo <repo>', "owner/name on the server's git base, or an https:// git URL")
    .option('--image <ref>', 'a Docker image reference')
    .option('--branch <branch>', 'the git branch to deploy')
    .option('--port <port>', 'the port the app listens on inside its container', parseCount)
    .option('--replicas <n>', 'how many instances run (above 1 needs Swarm mode)', parseReplicas)
    .option('--placement <key=value>', 'run only on nodes with this label (repeatable)', collect)
    .option('--node <id|hostname>', 'the Swarm node a database runs on, with its volume (default: this server); it cannot move later')
    .action(async (name: string, o: { repo?: string; image?: string; branch?: string; port?: number; replicas?: number; placement?: string[]; node?: string }, cmd: Command) => {
      if (Boolean(o.repo) === Boolean(o.image)) throw usageError('give one of --repo or --image');
      if (o.node !== undefined && !o.repo?.startsWith('database:')) throw usageError('--node applies to databases only: --repo database:<engine>');
      const nodeLabels = labelPairs(o.placement ?? [], '--placement');
      const s = openSession(cmd);
      const project = await s.scopeProject();
      if (!project) throw usageError('no project: pass --project or run this in a linked directory');
      const nodeId = o.node !== undefined ? (await findNode(s, o.node)).id : undefined;
      const source: Partial<CreateServiceInput> = o.image ? { dockerImage: o.image } : /^https?:\/\//.test(o.repo!) ? { repoUrl: o.repo! } : { repoFullName: o.repo! };
      const input: CreateServiceInput = {
        name,
        ...source,
        ...(o.branch ? { branch: o.branch } : {}),
        ...(o.port !== undefined ? { internalPort: o.port } : {}),
        ...(o.replicas !== undefined ? { replicas: o.replicas } : {}),
        ...(o.placement?.length ? { placement: { nodeLabels } } : {}),
        ...(nodeId !== undefined ? { nodeId } : {}),
      };
      const { service } = await s.client.createService(project.id, input);
      s.out.result(service, () => `created ${service.slug} (${service.id}) in ${project.slug}${service.nodeId ? ` on node ${service.nodeId.slice(0, 12)}` : ''}`);
    });

  program
    .command('status')
    .description("the server's health and metrics (CPU, memory, disks, containers)")
    .action(async (_o, cmd: Command) => {
      const s = openSession(cmd);
      const [health, m] = await Promise.all([s.client.health(), s.client.systemMetrics()]);
      s.out.result({ server: s.server, version: health.version, metrics: m }, () => {
        const lines = [`server   ${s.server} (berth ${health.version})`, `sampled  ${m.collectedAt}`];
        const { cpu, memory, disks } = m.host;
        if (cpu) lines.push(`cpu      ${cpu.loadPercent.toFixed(0)}% of ${cpu.cores} cores`);
        if (memory) lines.push(`memory   ${gb(memory.usedBytes)} of ${gb(memory.totalBytes)}`);
        for (const d of disks ?? []) lines.push(`disk     ${d.mount}: ${gb(d.usedBytes)} of ${gb(d.totalBytes)}`);
        if (m.services && m.services.length > 0) {
          lines.push(
            '',
            table(
              ['CONTAINER', 'CPU', 'MEMORY'],
              m.services.map((c) => [c.containerName, c.cpuPercent === null ? '-' : `${c.cpuPercent.toFixed(1)}%`, mb(c.memoryBytes)]),
            ),
          );
        }
        for (const e of m.errors) lines.push(`note     ${e}`);
        return lines.join('\n');
      });
    });
}
