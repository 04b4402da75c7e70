// Opening a data dir: the directory itself (0700), the secret key, the store. Shared by the daemon
// and the CLI so both see the same state.
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Store } from './core/store.js';
import { loadOrCreateSecretKey, secretBoxFromKey } from './crypto/secret-box.js';
import { openStore } from './store/open.js';

export async function openDataDir(dataDir: string): Promise<Store> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
  const box = secretBoxFromKey(loadOrCreateSecretKey(join(dataDir, 'secret.key')));
  return openStore(dataDir, box);
}
