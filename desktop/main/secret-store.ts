// API keys, kept only in the main process and encrypted with Electron's safeStorage (the OS
// keychain: Keychain, DPAPI, libsecret/kwallet). Where the platform only has a weak backend
// (Linux without a secret service: `basic_text`, a hard-coded password) keys are refused unless
// the user picked one of two labelled choices: a 0600 file, or asking for each key at every
// launch (memory only). A store that cannot be read is moved aside and reported, never reset.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** The part of Electron's safeStorage this uses (injected). */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(encrypted: Buffer): string;
  /** Linux only in Electron: 'basic_text', 'gnome_libsecret', 'kwallet', ... */
  getSelectedStorageBackend?(): string;
}

export type WeakBackendChoice = 'plain-file' | 'ask-each-launch';

export const WEAK_BACKEND_CHOICES: { id: WeakBackendChoice; label: string }[] = [
  { id: 'plain-file', label: 'Store keys unencrypted in a file only you can read (0600)' },
  { id: 'ask-each-launch', label: 'Ask for each key every time Berth starts (kept in memory only)' },
];

export class WeakBackendError extends Error {
  override name = 'WeakBackendError';
  readonly choices = WEAK_BACKEND_CHOICES;
  constructor(readonly backend: string) {
    super(
      `this desktop offers no keychain Berth can use (safeStorage backend "${backend}" would keep keys in plain text under a known password); install and unlock a secret service (gnome-keyring, KWallet) or choose one of: ${WEAK_BACKEND_CHOICES.map((c) => `"${c.label}"`).join(' or ')}`,
    );
  }
}

export interface SecretStoreStatus {
  mode: 'keychain' | 'plain-file' | 'ask-each-launch' | 'refused';
  backend: string;
  /** Where keys are kept, for the settings screen. */
  where: string;
  /** A store that could not be read, moved aside to this path. */
  corruptBackup: string | null;
}

interface StoreFile {
  version: 1;
  encoding: 'safeStorage' | 'plain';
  keys: Record<string, string>;
}

const WEAK_BACKENDS = new Set(['basic_text', 'unknown']);

export class SecretStore {
  private keys = new Map<string, string>();
  private corruptBackup: string | null = null;
  private choice: WeakBackendChoice | null;

  constructor(private readonly opts: { file: string; safeStorage: SafeStorageLike; platform: NodeJS.Platform; choice?: WeakBackendChoice | null }) {
    this.choice = opts.choice ?? null;
    this.load();
  }

  backend(): string {
    if (!this.opts.safeStorage.isEncryptionAvailable()) return 'unavailable';
    if (this.opts.platform === 'linux') return this.opts.safeStorage.getSelectedStorageBackend?.() ?? 'unknown';
    return this.opts.platform === 'darwin' ? 'keychain' : this.opts.platform === 'win32' ? 'dpapi' : 'unknown';
  }

  isWeak(): boolean {
    const b = this.backend();
    return b === 'unavailable' || WEAK_BACKENDS.has(b);
  }

  status(): SecretStoreStatus {
    const backend = this.backend();
    const mode = !this.isWeak() ? 'keychain' : (this.choice ?? 'refused');
    const where =
      mode === 'keychain'
        ? `${this.opts.file}, encrypted with the system keychain (${backend})`
        : mode === 'plain-file'
          ? `${this.opts.file}, unencrypted, readable only by you (0600)`
          : mode === 'ask-each-launch'
            ? 'in memory only: Berth asks for each key at every launch'
            : 'nowhere: no keychain is available and no alternative was chosen';
    return { mode, backend, where, corruptBackup: this.corruptBackup };
  }

  /** The user's answer to the weak-backend question (kept in the app's settings by the caller). */
  choose(choice: WeakBackendChoice): void {
    this.choice = choice;
    this.save();
  }

  get(serverId: string): string | undefined {
    return this.keys.get(serverId);
  }

  set(serverId: string, key: string): void {
    if (this.isWeak() && !this.choice) throw new WeakBackendError(this.backend());
    this.keys.set(serverId, key);
    this.save();
  }

  delete(serverId: string): void {
    this.keys.delete(serverId);
    this.save();
  }

  private load(): void {
    const { file, safeStorage } = this.opts;
    if (!existsSync(file)) return;
    try {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as StoreFile;
      if (parsed.version !== 1 || typeof parsed.keys !== 'object' || parsed.keys === null) throw new Error('unknown format');
      for (const [id, value] of Object.entries(parsed.keys)) {
        if (typeof value !== 'string') throw new Error('bad entry');
        this.keys.set(id, parsed.encoding === 'safeStorage' ? safeStorage.decryptString(Buffer.from(value, 'base64')) : value);
      }
    } catch {
      this.keys.clear();
      const backup = `${file}.corrupt-${Date.now()}`;
      renameSync(file, backup);
      this.corruptBackup = backup;
    }
  }

  private save(): void {
    const { file, safeStorage } = this.opts;
    const mode = this.status().mode;
    if (mode === 'refused' || mode === 'ask-each-launch') return; // nothing is written
    const encoding = mode === 'keychain' ? 'safeStorage' : 'plain';
    const keys: Record<string, string> = {};
    for (const [id, key] of this.keys) keys[id] = encoding === 'safeStorage' ? safeStorage.encryptString(key).toString('base64') : key;
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.tmp`;
    writeFileSync(tmp, JSON.stringify({ version: 1, encoding, keys } satisfies StoreFile) + '\n', { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, file);
  }
}
