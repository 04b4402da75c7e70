// The first deployments of an imported compose file, in dependency order: a service's deployment
// starts once each service it depends on is live (and, for `service_healthy`, once that service's
// compose health check passes, run by exec in its live container). A dependency that fails leaves
// its dependents undeployed, and the log says why. Runs in the background; every path ends logged.
import { deploymentFinal } from '../../shared/statuses.js';
import type { ComposeBerthService, ComposePlan, Service } from '../../shared/types.js';
import type { Access } from './access.js';
import { liveDeployment } from './deployment-states.js';
import type { Deployments } from './deployments.js';
import type { ExecRunner } from './ports/exec-runner.js';
import type { Store } from './ports/store.js';

export interface ComposeDeployDeps {
  store: Store;
  deployments: Deployments;
  execRunner: ExecRunner;
  log: (message: string, err?: unknown) => void;
  /** How often a deployment's status is read while waiting for it (ms). */
  pollMs?: number;
}

/** A first deployment is waited for at most this long (its own build and start limits end it sooner). */
const MAX_WAIT_MS = 2 * 60 * 60 * 1000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function deployOne(d: ComposeDeployDeps, access: Access, service: Service): Promise<boolean> {
  const deployment = await d.deployments.create(access, service.id, {});
  const deadline = Date.now() + MAX_WAIT_MS;
  while (Date.now() < deadline) {
    const now = await d.store.deployments.get(deployment.id);
    if (!now) break;
    if (now.status === 'running') return true;
    if (deploymentFinal(now.status)) {
      d.log(`compose import: the first deployment of ${service.name} ended ${now.status} (its log says why)`);
      return false;
    }
    await sleep(d.pollMs ?? 500);
  }
  d.log(`compose import: the first deployment of ${service.name} did not go live in time`);
  return false;
}

/** Runs the compose health check in the live container until it passes, its retries are spent, or nothing is live. */
async function passesHealthcheck(d: ComposeDeployDeps, service: Service, check: NonNullable<ComposeBerthService['healthcheck']>): Promise<boolean> {
  const startedAt = Date.now();
  let failures = 0;
  for (;;) {
    const [record, live] = await Promise.all([d.store.services.get(service.id), liveDeployment(d.store, service.id)]);
    if (!record || !live) return false;
    const outcome = await d.execRunner.attach({ service: record, live }, check.command, () => {}, {
      timeoutMs: Math.max(1, check.timeoutSeconds) * 1000,
      signal: new AbortController().signal,
    });
    if (outcome.exitCode === 0) return true;
    // failures during the start period do not count, as in Compose
    if (Date.now() - startedAt >= check.startPeriodSeconds * 1000 && ++failures > check.retries) {
      d.log(`compose import: the health check of ${service.name} failed ${failures} time(s)${outcome.error ? `: ${outcome.error}` : ` (exit code ${outcome.exitCode})`}`);
      return false;
    }
    await sleep(Math.max(0.2, check.intervalSeconds) * 1000);
  }
}

export async function deployInOrder(d: ComposeDeployDeps, access: Access, plan: ComposePlan, created: Service[]): Promise<void> {
  const byName = new Map(created.map((s) => [s.name, s]));
  const started = new Map<string, Promise<boolean>>();
  const healthy = new Map<string, Promise<boolean>>();
  const berthOf = (name: string) => plan.services.find((s) => s.berthService?.name === name)!.berthService!;
  const healthyOf = (name: string): Promise<boolean> => {
    let p = healthy.get(name);
    if (!p) {
      const berth = berthOf(name);
      // a managed database is live only once its engine answers: that is its health
      p = started.get(name)!.then((ok) => (ok && berth.healthcheck && !berth.input.repoFullName?.startsWith('database:') ? passesHealthcheck(d, byName.get(name)!, berth.healthcheck) : ok));
      healthy.set(name, p);
    }
    return p;
  };
  for (const composeName of plan.order) {
    const berth = plan.services.find((s) => s.service === composeName)!.berthService!;
    const service = byName.get(berth.name)!;
    const run = async (): Promise<boolean> => {
      for (const dep of berth.dependsOn) {
        const ok = await (dep.condition === 'service_healthy' ? healthyOf(dep.service) : started.get(dep.service)!);
        if (!ok) {
          d.log(`compose import: ${service.name} is not deployed: ${dep.service} ${dep.condition === 'service_healthy' ? 'did not become healthy' : 'did not go live'}`);
          return false;
        }
      }
      return deployOne(d, access, service);
    };
    started.set(
      berth.name,
      run().catch((err: unknown) => {
        d.log(`compose import: the first deployment of ${service.name} could not start`, err);
        return false;
      }),
    );
  }
  await Promise.all([...started.values(), ...healthy.values()]);
}
