// How the main process reaches one server: plain fetch, or fetch over a connection that accepts
// only the pinned certificate (shared/pinned-tls.ts, as the CLI does). Testing a server = its
// health answer and the scope of the key.
import { certificateChangedMessage, FingerprintMismatchError, pinnedFetch, type FetchLike } from '../../shared/pinned-tls.js';
import type { ServerTestResult } from '../ipc/contract.js';
import type { ServerEntry } from './server-list.js';

const fetchers = new Map<string, FetchLike>();

export function fetchFor(server: Pick<ServerEntry, 'fingerprint'>): FetchLike {
  if (!server.fingerprint) return (input, init) => fetch(input, init);
  let f = fetchers.get(server.fingerprint);
  if (!f) fetchers.set(server.fingerprint, (f = pinnedFetch(server.fingerprint)));
  return f;
}

/**
 * A readable reason for a failed connection. A certificate other than the pinned one says what
 * changed and how to re-pin here (the server list's edit form takes the new fingerprint).
 */
export function connectionError(err: unknown): string {
  let e: unknown = err;
  for (let i = 0; i < 5 && e; i++) {
    if (e instanceof FingerprintMismatchError) return certificateChangedMessage(e, `edit the server and paste the new fingerprint ${e.actual}`);
    e = (e as { cause?: unknown }).cause;
  }
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ? `cannot connect (${cause.code})` : err instanceof Error ? err.message : String(err);
}

/** What testing a server found (the contract's ServerTestResult). */
export type ServerTest = ServerTestResult;

/** Health, then the key's scope (GET /api/session with the key as a bearer answers who it is; no session is created). */
export async function testServer(server: Pick<ServerEntry, 'url' | 'fingerprint'>, key: string): Promise<ServerTest> {
  const f = fetchFor(server);
  try {
    const health = await f(`${server.url}/api/health`, { headers: { accept: 'application/json' } });
    if (!health.ok) return { ok: false, error: `the server answered HTTP ${health.status} to /api/health: is this a Berth daemon?` };
    const { version } = (await health.json()) as { version: string };
    const res = await f(`${server.url}/api/session`, { headers: { authorization: `Bearer ${key}`, accept: 'application/json' } });
    const body = (await res.json().catch(() => null)) as { key?: ServerTest['key']; error?: { message?: string } } | null;
    if (!res.ok || !body?.key) return { ok: false, version, error: body?.error?.message ?? `the key was refused (HTTP ${res.status})` };
    return { ok: true, version, key: body.key };
  } catch (err) {
    return { ok: false, error: connectionError(err) };
  }
}
