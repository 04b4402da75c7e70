// The list of servers the app knows: plain configuration (name, URL, colour, the pinned
// certificate fingerprint, mute), one JSON file. Keys are never here: see secret-store.ts.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { normalizeFingerprint } from '../../shared/pinned-tls.js';

export interface ServerEntry {
  id: string;
  name: string;
  url: string;
  colour: string;
  /** SHA-256 of the server's certificate (lower-case hex), for a self-signed HTTPS daemon. */
  fingerprint?: string;
  muted: boolean;
}

const COLOURS = ['#2563eb', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#db2777', '#4b5563'];

export class ServerListError extends Error {
  override name = 'ServerListError';
}

function normalizeServerUrl(input: string): string {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new ServerListError(`not a URL: ${input}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ServerListError('a server URL starts with https:// (or http:// for a daemon on this machine)');
  if (url.username || url.password || url.search || url.hash) throw new ServerListError('a server URL has no user, query or fragment');
  return url.origin + url.pathname.replace(/\/+$/, '');
}

export class ServerList {
  private servers: ServerEntry[] = [];
  /** Set when the file could not be read: it was moved aside to this path. */
  readonly corruptBackup: string | null = null;

  constructor(private readonly file: string) {
    if (!existsSync(file)) return;
    try {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as { servers?: ServerEntry[] };
      if (!Array.isArray(parsed.servers)) throw new Error('no servers array');
      this.servers = parsed.servers.map((s) => ({ ...s, muted: Boolean(s.muted) }));
    } catch {
      const backup = `${file}.corrupt-${Date.now()}`;
      renameSync(file, backup);
      this.corruptBackup = backup;
    }
  }

  list(): ServerEntry[] {
    return this.servers.map((s) => ({ ...s }));
  }

  get(id: string): ServerEntry | undefined {
    const s = this.servers.find((x) => x.id === id);
    return s && { ...s };
  }

  add(input: { name?: string; url: string; fingerprint?: string; colour?: string }): ServerEntry {
    const url = normalizeServerUrl(input.url);
    const fingerprint = input.fingerprint?.trim() ? normalizeFingerprint(input.fingerprint) : undefined;
    if (fingerprint && !url.startsWith('https:')) throw new ServerListError('a pinned certificate needs an https:// URL');
    const entry: ServerEntry = {
      id: randomUUID(),
      name: input.name?.trim() || new URL(url).hostname,
      url,
      colour: input.colour ?? COLOURS[this.servers.length % COLOURS.length]!,
      ...(fingerprint ? { fingerprint } : {}),
      muted: false,
    };
    this.servers.push(entry);
    this.save();
    return { ...entry };
  }

  update(id: string, patch: { name?: string; colour?: string; muted?: boolean; fingerprint?: string }): ServerEntry {
    const s = this.servers.find((x) => x.id === id);
    if (!s) throw new ServerListError(`no server ${id}`);
    // a new pin (the server's address and certificate changed); a pin is replaced, never removed here
    if (patch.fingerprint !== undefined) {
      if (!s.url.startsWith('https:')) throw new ServerListError('a pinned certificate needs an https:// URL');
      s.fingerprint = normalizeFingerprint(patch.fingerprint);
    }
    if (patch.name !== undefined) {
      if (!patch.name.trim()) throw new ServerListError('a server needs a name');
      s.name = patch.name.trim();
    }
    if (patch.colour !== undefined) {
      if (!/^#[0-9a-fA-F]{6}$/.test(patch.colour)) throw new ServerListError('a colour is #rrggbb');
      s.colour = patch.colour;
    }
    if (patch.muted !== undefined) s.muted = patch.muted;
    this.save();
    return { ...s };
  }

  remove(id: string): void {
    this.servers = this.servers.filter((s) => s.id !== id);
    this.save();
  }

  private save(): void {
    mkdirSync(dirname(this.file), { recursive: true });
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify({ servers: this.servers }, null, 2) + '\n');
    renameSync(tmp, this.file);
  }
}
