// instances <service> (where its instances run, with Docker's error for a failed one) and
// scale <service> <n> (set its replicas, then deploy and follow like `berth deploy`).
import type { Command } from 'commander';
import { deployAndFollow } from './commands-deploy.js';
import { parseDuration } from './durations.js';
import { table } from './output.js';
import { openSession } from './session.js';
import { parseReplicas } from './commands-swarm.js';

export function registerReplicaCommands(program: Command): void {
  program
    .command('instances')
    .description("a service's instances: node, state, desired state, Docker's error, started")
    .argument('<service>', 'service id, or name/slug in --project or the linked project')
    .action(async (ref: string, _o, cmd: Command) => {
      const s = openSession(cmd);
      const service = await s.service(ref);
      const { instances } = await s.client.listInstances(service.id);
      if (s.out.json) return instances.forEach((i) => s.out.event(i));
      if (instances.length === 0) return s.out.info(`${service.slug} has no instances: deploy it (berth deploy ${service.slug})`);
      s.out.line(
        table(
          ['ID', 'NODE', 'STATE', 'DESIRED', 'STARTED', 'ERROR'],
          instances.map((i) => [i.id.slice(0, 12), i.nodeHostname, i.state, i.desiredState, i.startedAt, i.error]),
        ),
      );
    });

  program
    .command('scale')
    .description('set how many instances a service runs (above 1 needs Swarm mode), then deploy it and follow the deployment')
    .argument('<service>', 'service id, or name/slug in --project or the linked project')
    .argument('<replicas>', 'the number of instances, 1 or more', parseReplicas)
    .option('--no-deploy', 'only save the number; it applies at the next deployment')
    .option('--timeout <duration>', 'stop following after this long and exit 1; the deployment goes on', parseDuration)
    .action(async (ref: string, replicas: number, o: { deploy: boolean; timeout?: number }, cmd: Command) => {
      const s = openSession(cmd);
      const found = await s.service(ref);
      const { service } = await s.client.patchService(found.id, { replicas });
      if (!o.deploy) {
        s.out.result({ type: 'scaled', service }, () => '');
        return s.out.success(`${service.slug} will run ${replicas} instance${replicas === 1 ? '' : 's'} from its next deployment`);
      }
      if (s.out.json) s.out.event({ type: 'scaled', service });
      else s.out.info(`${service.slug}: ${replicas} instance${replicas === 1 ? '' : 's'}`);
      await deployAndFollow(s, service, {}, o.timeout === undefined ? {} : { timeout: o.timeout });
    });
}
