// Checks the hostile-tenant suites of the streams/memory/references part share: the daemon still
// answers within a second, and a refused request is a clear 4xx.
import { expect } from 'chai';
import { ApiError } from '../../shared/client.js';

/** `/api/health` answers 200 within 1 s (the daemon is neither frozen nor gone). */
export async function expectHealthy(url: string): Promise<void> {
  const started = Date.now();
  const res = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(1000) });
  expect(res.status).to.equal(200);
  await res.arrayBuffer();
  expect(Date.now() - started, 'health answered').to.be.below(1000);
}

export async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, 'the request should have been refused').to.be.instanceOf(ApiError);
  return err as ApiError;
}
