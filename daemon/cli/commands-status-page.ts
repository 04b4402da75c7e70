// status-page: a project's public status page (berth status-page [PROJECT]; `set` to set it up or
// change it, `rm` to remove it). The page shows only the services given with --service, under the
// labels given there.
import type { Command } from 'commander';
import type { StatusPage, StatusPageService } from '../../shared/types.js';
import { usageError } from './exit-codes.js';
import { openSession, type Session } from './session.js';

function pageText(projectSlug: string, page: StatusPage | null): string {
  if (!page) return `project ${projectSlug} has no status page (berth status-page set ${projectSlug} --hostname status.example.com --service web=Website)`;
  const lines = [
    `${page.url}${page.enabled ? '' : '  (disabled: Caddy does not serve it)'}`,
    `title     ${page.title}`,
    `rendered  ${page.renderedAt ?? 'not yet'}`,
    'services:',
    ...page.services.map((s) => `  ${s.label}  (${s.serviceId})`),
  ];
  return lines.join('\n');
}

/** `--service NAME=Label`: a service of the project, by id, name or slug, and its public label. */
async function servicesOf(s: Session, projectId: string, given: string[]): Promise<StatusPageService[]> {
  const out: StatusPageService[] = [];
  const project = (await s.projects()).find((p) => p.id === projectId)!;
  for (const item of given) {
    const eq = item.indexOf('=');
    const ref = eq === -1 ? item : item.slice(0, eq);
    const service = project.services.find((x) => x.id === ref || x.name === ref || x.slug === ref);
    if (!service) throw usageError(`--service ${item}: no service ${ref} in project ${project.slug}`);
    const label = eq === -1 ? service.name : item.slice(eq + 1);
    out.push({ serviceId: service.id, label });
  }
  return out;
}

export function registerStatusPageCommands(program: Command): void {
  const statusPage = program
    .command('status-page')
    .description("a project's public status page: its address, title and the services it shows (berth status-page [PROJECT])")
    .argument('[project]', 'project id, slug or name (default: --project or the linked one)')
    .action(async (ref: string | undefined, _o, cmd: Command) => {
      const s = openSession(cmd);
      const project = await s.project(ref);
      const { statusPage: page } = await s.client.statusPage(project.id);
      s.out.result({ project: project.slug, statusPage: page }, () => pageText(project.slug, page));
    });

  statusPage
    .command('set')
    .description('set up or change the status page: served by Caddy on --hostname, without a key; it shows only the --service entries, under their labels')
    .argument('[project]', 'project id, slug or name')
    .option('--hostname <name>', 'the DNS name it is served on (point it at this server)')
    .option('--title <text>', 'the heading (default: the project name)')
    .option('--service <name=Label>', 'a service it shows, and the label the public sees (repeat; default label: the service name)', (v: string, all: string[]) => [...all, v], [] as string[])
    .option('--disable', 'keep the settings, stop serving the page')
    .option('--enable', 'serve the page again')
    .action(async (ref: string | undefined, o: { hostname?: string; title?: string; service: string[]; disable?: boolean; enable?: boolean }, cmd: Command) => {
      const s = openSession(cmd);
      if (o.disable && o.enable) throw usageError('give --enable or --disable, not both');
      const project = await s.project(ref);
      const { statusPage: current } = await s.client.statusPage(project.id);
      const hostname = o.hostname ?? current?.hostname;
      if (!hostname) throw usageError('a new status page needs --hostname');
      // kept as they are, but for services deleted or moved away since (the server would refuse them)
      const services = o.service.length > 0 ? await servicesOf(s, project.id, o.service) : (current?.services ?? []).filter((x) => project.services.some((p) => p.id === x.serviceId));
      const enabled = o.disable ? false : o.enable ? true : (current?.enabled ?? true);
      const { statusPage: page } = await s.client.putStatusPage(project.id, { hostname, title: o.title ?? current?.title, services, enabled });
      s.out.result({ project: project.slug, statusPage: page }, () => pageText(project.slug, page));
    });

  statusPage
    .command('rm')
    .description('remove the status page (Caddy stops serving it)')
    .argument('[project]', 'project id, slug or name')
    .action(async (ref: string | undefined, _o, cmd: Command) => {
      const s = openSession(cmd);
      const project = await s.project(ref);
      await s.client.deleteStatusPage(project.id);
      s.out.result({ project: project.slug, removed: true }, () => `the status page of ${project.slug} is removed`);
    });
}
