// domains list|add|rm, names list|release (generated hostnames kept per project), and dns (an A
// record for a domain through a connected DNS provider).
import type { Command } from 'commander';
import { DNS_PROVIDER_IDS } from '../../shared/constants.js';
import type { DnsProviderId, Domain } from '../../shared/types.js';
import { CliError, usageError } from './exit-codes.js';
import { table } from './output.js';
import { openSession } from './session.js';

export function registerDomainCommands(program: Command): void {
  const domains = program.command('domains').description("a service's custom domains");

  domains
    .command('list')
    .argument('<service>')
    .action(async (ref: string, _o, cmd: Command) => {
      const s = openSession(cmd);
      const list = (await s.client.overview((await s.service(ref)).id)).domains;
      if (s.out.json) return list.forEach((d) => s.out.event(d));
      if (list.length === 0) return s.out.info('no custom domains');
      s.out.line(
        table(
          ['ID', 'HOSTNAME', 'STATUS'],
          list.map((d) => [d.id, d.hostname, d.status]),
        ),
      );
    });

  domains
    .command('add')
    .argument('<service>')
    .argument('<hostname>')
    .action(async (ref: string, hostname: string, _o, cmd: Command) => {
      const s = openSession(cmd);
      const { domain, proxy } = await s.client.addDomain((await s.service(ref)).id, hostname);
      s.out.result({ domain, proxy }, () => '');
      s.out.success(`added ${domain.hostname} (${domain.id})${proxy.ok ? '' : `; the proxy did not take it yet: ${proxy.detail}`}`);
    });

  domains
    .command('rm')
    .argument('<service>')
    .argument('<domain>', 'hostname or id')
    .action(async (ref: string, which: string, _o, cmd: Command) => {
      const s = openSession(cmd);
      const service = await s.service(ref);
      const d = (await s.client.overview(service.id)).domains.find((x) => x.id === which || x.hostname === which);
      if (!d) throw new CliError(`no domain ${which} on ${service.slug}`);
      const { proxy } = await s.client.deleteDomain(service.id, d.id);
      s.out.result({ ok: true, domain: d, proxy }, () => '');
      s.out.success(`removed ${d.hostname}`);
    });

  const names = program.command('names').description('generated hostnames and the projects that keep them (a key over all projects)');

  names.command('list').action(async (_o, cmd: Command) => {
    const s = openSession(cmd);
    const list = (await s.client.generatedNames()).names;
    if (s.out.json) return list.forEach((n) => s.out.event(n));
    if (list.length === 0) return s.out.info('no generated names');
    s.out.line(
      table(
        ['LABEL', 'HOSTNAME', 'PROJECT', 'SERVICE'],
        list.map((n) => [n.label, n.hostname ?? '-', n.projectId, n.serviceId ?? '(kept)']),
      ),
    );
  });

  names
    .command('release')
    .description('let another project get a name kept for the project that used it')
    .argument('<name>', 'the label or the full hostname')
    .action(async (name: string, _o, cmd: Command) => {
      const s = openSession(cmd);
      const r = await s.client.releaseGeneratedName(name);
      s.out.result(r, () => '');
      s.out.success(`released ${name}`);
    });

  program
    .command('dns')
    .description('create or update the A record of a custom domain at a connected DNS provider')
    .argument('<domain>', 'the hostname, as added with berth domains add')
    .requiredOption('--provider <id>', DNS_PROVIDER_IDS.join(', '))
    .option('--service <service>', 'the service holding the domain (default: found among the visible services)')
    .action(async (hostname: string, o: { provider: string; service?: string }, cmd: Command) => {
      if (!(DNS_PROVIDER_IDS as readonly string[]).includes(o.provider)) throw usageError(`--provider must be one of ${DNS_PROVIDER_IDS.join(', ')}`);
      const s = openSession(cmd);
      let found: { serviceId: string; domain: Domain } | undefined;
      const services = o.service ? [await s.service(o.service)] : ((await s.scopeProject())?.services ?? (await s.projects()).flatMap((p) => p.services));
      for (const svc of services) {
        const d = (await s.client.overview(svc.id)).domains.find((x) => x.hostname === hostname.toLowerCase() || x.hostname === hostname);
        if (d) {
          found = { serviceId: svc.id, domain: d };
          break;
        }
      }
      if (!found) throw new CliError(`no service has the domain ${hostname} (add it with berth domains add)`);
      const { result } = await s.client.createDnsRecord(found.serviceId, found.domain.id, o.provider as DnsProviderId);
      s.out.result(result, () => '');
      s.out.success(`${result.providerName}: A ${result.hostname} -> ${result.targetIp} ${result.action} (zone ${result.zone})`);
    });
}
