// Console sessions: a key pasted once into the sign-in form is exchanged for a random session
// secret held in an HttpOnly cookie. Only the secret's keyed hash is stored (with the key it stands
// for and an expiry), so sessions survive a restart and a copy of the data dir does not hold them.
// Deleting a key deletes its sessions (foreign key), so revocation ends them.
import { randomBytes } from 'node:crypto';
import type { Clock } from './clock.js';
import { Unauthorized } from './errors.js';
import type { KeyService } from './keys.js';
import type { KeyRecord } from './records.js';
import type { Store } from './ports/store.js';

const SESSION_TTL_MS = 7 * 24 * 3600_000;

export interface OpenedSession {
  secret: string;
  key: KeyRecord;
  expiresAt: string;
}

export interface SessionInfo {
  secretHash: string;
  key: KeyRecord;
}

export class SessionService {
  constructor(
    private store: Store,
    private keys: KeyService,
    private clock: Clock,
    private ttlMs = SESSION_TTL_MS,
  ) {}

  /** Checks the key like any request would (401 when unknown), then opens a session for it. */
  async open(token: string | undefined): Promise<OpenedSession> {
    const key = await this.keys.authenticate(token);
    const secret = randomBytes(32).toString('base64url');
    const createdAt = this.clock.now();
    const expiresAt = new Date(Date.parse(createdAt) + this.ttlMs).toISOString();
    await this.store.sessions.deleteExpired(createdAt);
    await this.store.sessions.insert({ secretHash: this.store.hashToken(secret), keyId: key.id, createdAt, expiresAt });
    return { secret, key, expiresAt };
  }

  /** The key behind a session secret; 401 when the session is unknown, expired or its key revoked. */
  async authenticate(secret: string): Promise<SessionInfo> {
    const secretHash = this.store.hashToken(secret);
    const session = await this.store.sessions.get(secretHash);
    if (!session) throw new Unauthorized('your session has ended; sign in again');
    if (session.expiresAt <= this.clock.now()) {
      await this.store.sessions.delete(secretHash);
      throw new Unauthorized('your session has expired; sign in again');
    }
    const key = await this.store.keys.get(session.keyId);
    if (!key) {
      await this.store.sessions.delete(secretHash);
      throw new Unauthorized('the key of this session was revoked; sign in again');
    }
    return { secretHash, key };
  }

  async end(secretHash: string): Promise<void> {
    await this.store.sessions.delete(secretHash);
  }
}
