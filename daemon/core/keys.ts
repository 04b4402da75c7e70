// API keys: issued with a secret shown once, stored only as a keyed hash (the store's hashToken;
// crypto/token-hash.ts says why a fast one), checked on every request.
import { randomBytes } from 'node:crypto';
import type { KeyAccess, KeyProjects } from '../../shared/types.js';
import type { Clock } from './clock.js';
import { InvalidInput, NotFound, Unauthorized } from './errors.js';
import { newId } from './ids.js';
import type { KeyRecord } from './records.js';
import type { Store } from './ports/store.js';
import { NO_EVENTS, type EventSink } from './events.js';

const TOKEN_PREFIX = 'berth_';
/** lastUsedAt is written at most this often per key, so reads stay reads. */
const TOUCH_INTERVAL_MS = 60_000;
const BOOTSTRAP_NAME = 'bootstrap';

export interface NewKey {
  name?: string | undefined;
  access: KeyAccess;
  projects: KeyProjects;
}

function newToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

export class KeyService {
  private lastTouch = new Map<string, number>();
  /** Recently seen secrets -> their hash: a request then costs a map lookup, not a digest. */
  private hashes = new Map<string, string>();

  constructor(
    private store: Store,
    private clock: Clock,
    private events: EventSink = NO_EVENTS,
  ) {}

  list(): Promise<KeyRecord[]> {
    return this.store.keys.list();
  }

  create(input: NewKey): Promise<{ key: KeyRecord; token: string }> {
    return this.insert(input, newToken(), false);
  }

  private async insert(input: NewKey, token: string, bootstrap: boolean): Promise<{ key: KeyRecord; token: string }> {
    const projects = input.projects === 'all' ? 'all' : [...new Set(input.projects)];
    if (projects !== 'all') {
      if (projects.length === 0) throw new InvalidInput('projects must be "all" or a non-empty list of project ids');
      for (const id of projects) {
        if (!(await this.store.projects.get(id))) throw new InvalidInput(`project ${id} does not exist`);
      }
    }
    const key: KeyRecord = {
      id: newId(),
      name: input.name?.trim() || `${input.access} key`,
      access: input.access,
      projects,
      createdAt: this.clock.now(),
      lastUsedAt: null,
    };
    await this.store.keys.insert(key, this.store.hashToken(token), { bootstrap });
    this.events.publish({ type: 'key', allProjects: true, data: { keyId: key.id, name: key.name, action: 'created' } });
    return { key, token };
  }

  /** The key with this id, null once revoked (streams opened with it re-check this). */
  find(id: string): Promise<KeyRecord | null> {
    return this.store.keys.get(id);
  }

  async revoke(id: string): Promise<void> {
    const key = await this.store.keys.get(id);
    if (!(await this.store.keys.delete(id))) throw new NotFound('key not found');
    this.events.publish({ type: 'key', allProjects: true, data: { keyId: id, name: key?.name ?? '', action: 'revoked' } });
  }

  async authenticate(token: string | undefined): Promise<KeyRecord> {
    if (!token) throw new Unauthorized('an API key is required: send Authorization: Bearer <key>');
    const known = this.hashes.get(token);
    const hash = known ?? this.store.hashToken(token);
    const key = await this.store.keys.findByTokenHash(hash);
    // only secrets that are keys are remembered: unknown ones (anyone can send them) add nothing
    if (!key) throw new Unauthorized('unknown API key');
    if (known === undefined) {
      if (this.hashes.size >= 1000) this.hashes.clear();
      this.hashes.set(token, hash);
    }
    const nowMs = Date.now();
    if (nowMs - (this.lastTouch.get(key.id) ?? 0) > TOUCH_INTERVAL_MS) {
      this.lastTouch.set(key.id, nowMs);
      const lastUsedAt = this.clock.now();
      await this.store.keys.touch(key.id, lastUsedAt);
      return { ...key, lastUsedAt };
    }
    return key;
  }

  /**
   * BERTH_BOOTSTRAP_KEY: after start, an all-projects write key with exactly this secret exists, and
   * keys made for an earlier value of the variable are revoked (their ids are returned).
   */
  async ensureBootstrap(secret: string): Promise<string[]> {
    const current = await this.store.keys.findByTokenHash(this.store.hashToken(secret));
    const superseded = (await this.store.keys.bootstrapKeyIds()).filter((id) => id !== current?.id);
    for (const id of superseded) await this.store.keys.delete(id);
    if (!current) await this.insert({ name: BOOTSTRAP_NAME, access: 'write', projects: 'all' }, secret, true);
    return superseded;
  }

  async count(): Promise<number> {
    return (await this.store.keys.list()).length;
  }
}
