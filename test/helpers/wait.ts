import type { BerthClient } from '../../shared/client.js';
import type { Deployment } from '../../shared/types.js';

export async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 60_000, everyMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Polls the deployment list until the deployment reaches one of `statuses`. */
export async function waitForDeployment(client: BerthClient, serviceId: string, deploymentId: string, statuses: string[], timeoutMs = 90_000): Promise<Deployment> {
  let last = '';
  try {
    return await until(
      `deployment ${deploymentId} to be ${statuses.join(' or ')}`,
      async () => {
        const dep = (await client.listDeployments(serviceId)).deployments.find((d) => d.id === deploymentId);
        last = dep?.status ?? 'missing';
        return dep && statuses.includes(dep.status) ? dep : null;
      },
      timeoutMs,
    );
  } catch (err) {
    const logs = await client.deploymentLogs(deploymentId).catch(() => ({ logs: [] }));
    throw new Error(`${(err as Error).message} (last status ${last}); log:\n${logs.logs.map((l) => l.line).join('\n')}`, { cause: err });
  }
}

export async function httpText(url: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { headers });
  return { status: res.status, text: await res.text() };
}
