// checks <service> | checks add|edit|pause|resume|rm|incidents: a service's uptime checks (the
// service by name within the linked project, a check by name or id). A target is one of the
// service's domains (--domain, by hostname) or, without one, its first domain or its host port.
import { Command } from 'commander';
import type { BerthClient } from '../../shared/client.js';
import type { Check, CheckPatch, Domain } from '../../shared/types.js';
import { parseCount } from './durations.js';
import { CliError, usageError } from './exit-codes.js';
import { table } from './output.js';
import { openSession } from './session.js';
import { terminalSafe } from './terminal-text.js';

async function findCheck(client: BerthClient, serviceId: string, ref: string): Promise<Check> {
  const { checks } = await client.listChecks(serviceId);
  const check = checks.find((c) => c.name === ref) ?? checks.find((c) => c.id === ref);
  if (!check) throw new CliError(`no check named ${ref} on this service`);
  return check;
}

const pct = (r: number | null) => (r === null ? '-' : `${(r * 100).toFixed(2)}%`);

function targetText(c: Check, domains: Domain[]): string {
  if (c.target.kind === 'port') return `port${c.path}`;
  const domainId = c.target.domainId;
  return `${domains.find((d) => d.id === domainId)?.hostname ?? domainId}${c.path}`;
}

interface SettingOptions {
  domain?: string;
  port?: boolean;
  path?: string;
  expect?: string;
  keyword?: string;
  interval?: number;
  timeout?: number;
  failures?: number;
  name?: string;
}

function withSettingOptions(cmd: Command): Command {
  return cmd
    .option('--name <name>', 'a name (default: the domain and path)')
    .option('--domain <hostname>', "one of the service's domains (default: its first, else its host port)")
    .option('--port', "the service's host port on 127.0.0.1 instead of a domain")
    .option('--path <path>', 'the request path (default /)')
    .option('--expect <status>', 'the status that counts as up (default 200; "any" for any 2xx/3xx)')
    .option('--keyword <text>', 'text the body must contain')
    .option('--interval <seconds>', 'seconds between checks (default 60, 10 to 3600)', parseCount)
    .option('--timeout <seconds>', 'seconds to wait for an answer (default 10, less than the interval)', parseCount)
    .option('--failures <n>', 'consecutive failures that open an incident (default 3)', parseCount);
}

function settings(o: SettingOptions, domains: Domain[]): CheckPatch {
  if (o.domain && o.port) throw usageError('give --domain or --port, not both');
  const out: CheckPatch = {};
  if (o.domain) {
    const d = domains.find((x) => x.hostname === o.domain!.toLowerCase());
    if (!d) throw new CliError(`${o.domain} is not a domain of this service`);
    out.target = { kind: 'domain', domainId: d.id };
  }
  if (o.port) out.target = { kind: 'port' };
  if (o.name !== undefined) out.name = o.name;
  if (o.path !== undefined) out.path = o.path;
  if (o.expect !== undefined) {
    if (o.expect !== 'any' && !/^[0-9]{3}$/.test(o.expect)) throw usageError('--expect must be a status such as 200, or "any"');
    out.expectedStatus = o.expect === 'any' ? null : Number(o.expect);
  }
  if (o.keyword !== undefined) out.keyword = o.keyword;
  if (o.interval !== undefined) out.intervalSeconds = o.interval;
  if (o.timeout !== undefined) out.timeoutSeconds = o.timeout;
  if (o.failures !== undefined) out.failuresBeforeIncident = o.failures;
  return out;
}

export function registerCheckCommands(program: Command): void {
  const checks = program
    .command('checks')
    .description("a service's uptime checks: `berth checks <service>` lists them")
    .argument('[service]')
    .action(async (ref: string | undefined, _o: unknown, cmd: Command) => {
      if (!ref) throw usageError('name a service: berth checks <service>');
      const s = openSession(cmd);
      const service = await s.service(ref);
      const { checks: list } = await s.client.listChecks(service.id);
      if (s.out.json) return list.forEach((c) => s.out.event(c));
      const { domains } = await s.client.overview(service.id);
      s.out.line(
        table(
          ['NAME', 'TARGET', 'STATUS', 'UPTIME 24H', 'UPTIME 90D', 'LAST RESPONSE', 'ERROR'],
          list.map((c) => [
            terminalSafe(c.name, true),
            terminalSafe(targetText(c, domains), true),
            c.openIncidentId ? `${c.status} (incident)` : c.status,
            pct(c.uptime24h),
            pct(c.uptime90d),
            c.lastResponseMs === null ? '-' : `${c.lastResponseMs} ms`,
            terminalSafe(c.lastError ?? '', true),
          ]),
        ),
      );
    });

  checks.addCommand(
    withSettingOptions(new Command('add').argument('<service>')).action(async (ref: string, o: SettingOptions, cmd: Command) => {
      const s = openSession(cmd);
      const service = await s.service(ref);
      const { domains } = await s.client.overview(service.id);
      const { check } = await s.client.createCheck(service.id, settings(o, domains));
      s.out.result(check, () => '');
      s.out.success(`check ${check.name} created: ${targetText(check, domains)} every ${check.intervalSeconds} s`);
    }),
  );

  checks.addCommand(
    withSettingOptions(new Command('edit').argument('<service>').argument('<check>')).action(async (ref: string, checkRef: string, o: SettingOptions, cmd: Command) => {
      const s = openSession(cmd);
      const service = await s.service(ref);
      const { domains } = await s.client.overview(service.id);
      const found = await findCheck(s.client, service.id, checkRef);
      const { check } = await s.client.patchCheck(service.id, found.id, settings(o, domains));
      s.out.result(check, () => '');
      s.out.success(`check ${check.name} changed`);
    }),
  );

  for (const [name, enabled] of [
    ['pause', false],
    ['resume', true],
  ] as const) {
    checks
      .command(name)
      .argument('<service>')
      .argument('<check>')
      .action(async (ref: string, checkRef: string, _o: unknown, cmd: Command) => {
        const s = openSession(cmd);
        const service = await s.service(ref);
        const { check } = await s.client.patchCheck(service.id, (await findCheck(s.client, service.id, checkRef)).id, { enabled });
        s.out.result(check, () => '');
        s.out.success(`check ${check.name} ${enabled ? 'resumed' : 'paused'}`);
      });
  }

  checks
    .command('rm')
    .argument('<service>')
    .argument('<check>')
    .action(async (ref: string, checkRef: string, _o: unknown, cmd: Command) => {
      const s = openSession(cmd);
      const service = await s.service(ref);
      const check = await findCheck(s.client, service.id, checkRef);
      await s.client.deleteCheck(service.id, check.id);
      s.out.result({ ok: true, id: check.id }, () => '');
      s.out.success(`check ${check.name} deleted`);
    });

  checks
    .command('incidents')
    .argument('<service>')
    .argument('<check>')
    .action(async (ref: string, checkRef: string, _o: unknown, cmd: Command) => {
      const s = openSession(cmd);
      const service = await s.service(ref);
      const check = await findCheck(s.client, service.id, checkRef);
      const { incidents } = await s.client.checkIncidents(service.id, check.id);
      if (s.out.json) return incidents.forEach((i) => s.out.event(i));
      s.out.line(
        table(
          ['INCIDENT', 'STARTED', 'RESOLVED', 'FAILURES', 'CAUSE'],
          incidents.map((i) => [i.id, i.startedAt, i.resolvedAt ?? 'open', String(i.failures), terminalSafe(i.cause, true)]),
        ),
      );
    });
}
