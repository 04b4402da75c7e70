// The app's own routes (server id `app`, paths under /desktop/, typed as AppRoutes in
// desktop/ipc/contract.ts): the window's server management, answered by the main process. A key
// only ever travels from the window to the main process, never back.
import type { AppRoutes, BridgeResponse } from '../ipc/contract.js';
import type { DesktopApp } from './desktop-app.js';
import { WEAK_BACKEND_CHOICES, WeakBackendError } from './secret-store.js';
import { ServerListError } from './server-list.js';

/** A 2xx answer of one of the contract's routes, typed by it. */
const ok = <R extends keyof AppRoutes>(_route: R, status: number, body: AppRoutes[R]['answer']): BridgeResponse => ({ status, body });
const bad = (status: number, code: string, message: string): BridgeResponse => ({ status, body: { error: { code, message } } });

export async function answerAppRoute(app: DesktopApp, method: string, path: string, body: unknown): Promise<BridgeResponse> {
  const b = (body ?? {}) as Record<string, unknown>;
  const str = (k: string) => (typeof b[k] === 'string' ? (b[k] as string) : undefined);
  const parts = path.split('/').slice(2); // ['servers', id?, 'test'?]
  try {
    if (parts[0] === 'keychain' && parts.length === 1 && method === 'POST') {
      const choice = str('choice');
      if (choice !== 'plain-file' && choice !== 'ask-each-launch') return bad(400, 'invalid_input', 'choice is plain-file or ask-each-launch');
      app.chooseWeakBackend(choice);
      return ok('POST /desktop/keychain', 200, { keys: app.secrets.status() });
    }
    if (parts[0] !== 'servers') return bad(404, 'not_found', 'no such route');
    if (parts.length === 1 && method === 'GET') return ok('GET /desktop/servers', 200, { servers: app.summaries(), keys: app.secrets.status(), choices: WEAK_BACKEND_CHOICES });
    if (parts.length === 1 && method === 'POST') {
      const url = str('url');
      const key = str('key');
      if (!url || !key) return bad(400, 'invalid_input', 'a server needs a URL and an API key');
      const fingerprint = str('fingerprint');
      const name = str('name');
      const { server, test } = await app.addServer({ url, key, ...(name ? { name } : {}), ...(fingerprint ? { fingerprint } : {}) });
      return ok('POST /desktop/servers', 201, { server: app.summaries().find((s) => s.id === server.id), test });
    }
    const id = parts[1]!;
    if (!app.servers.get(id)) return bad(404, 'not_found', 'no such server');
    if (parts.length === 3 && parts[2] === 'test' && method === 'POST') return ok('POST /desktop/servers/:id/test', 200, { test: await app.test(id) });
    if (parts.length === 3 && parts[2] === 'key' && method === 'POST') {
      // a key typed again (after "ask each launch", or a new key for the server)
      const key = str('key');
      if (!key) return bad(400, 'invalid_input', 'an API key is required');
      app.secrets.set(id, key);
      app.streams.get(id)?.reconnectNow();
      return ok('POST /desktop/servers/:id/key', 200, { test: await app.test(id) });
    }
    if (parts.length === 2 && method === 'PATCH') {
      const patch = {
        ...(str('name') !== undefined ? { name: str('name')! } : {}),
        ...(str('colour') !== undefined ? { colour: str('colour')! } : {}),
        ...(typeof b.muted === 'boolean' ? { muted: b.muted } : {}),
        ...(str('fingerprint') !== undefined ? { fingerprint: str('fingerprint')! } : {}),
      };
      app.update(id, patch);
      return ok('PATCH /desktop/servers/:id', 200, { server: app.summaries().find((s) => s.id === id) });
    }
    if (parts.length === 2 && method === 'DELETE') {
      app.remove(id);
      return ok('DELETE /desktop/servers/:id', 200, { ok: true });
    }
    return bad(404, 'not_found', 'no such route');
  } catch (err) {
    if (err instanceof WeakBackendError) return { status: 409, body: { error: { code: 'weak_keychain', message: err.message, choices: err.choices } } };
    if (err instanceof ServerListError || (err instanceof Error && /fingerprint/.test(err.message))) return bad(400, 'invalid_input', err.message);
    throw err;
  }
}
