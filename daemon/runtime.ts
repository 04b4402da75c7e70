// Opening a data dir: the directory itself (0700), the secret key, the store. Shared by the daemon
// and the CLI so both see the same state.
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadOrCreateSecretKey, secretBoxFromKey } from './crypto/secret-box.js';
import { tokenHasherFromKey } from './crypto/token-hash.js';
import { openStore } from './store/open.js';
import { cachedStore, type CachedStore } from './store/read-cache.js';

export async function openDataDir(dataDir: string): Promise<CachedStore> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
  const secretKey = loadOrCreateSecretKey(join(dataDir, 'secret.key'));
  return cachedStore(await openStore(dataDir, secretBoxFromKey(secretKey), tokenHasherFromKey(secretKey)), join(dataDir, 'store.changed'));
}
