// Remote backup storage (any S3-compatible service): a system setting, stored as one JSON value
// sealed at rest in the settings table. Reading needs a key over all projects, changing it a
// write key over all projects. The secret access key is never returned: views say `hasSecret`.
// Every input is checked before anything is written, so a refused change writes nothing.
import { isIPv4 } from 'node:net';
import type { RemoteSettings, RemoteStore } from './ports/remote-store.js';
import type { Access } from './access.js';
import type { Clock } from './clock.js';
import { InvalidInput } from './errors.js';
import type { SettingsRepo } from './ports/store.js';
import type { BackupStorageSettings as BackupStorageView, BackupStorageStatus } from '../../shared/types.js';
import type { RemoteStoreFactory } from './ports/remote-store.js';
import { NO_EVENTS, type EventSink } from './events.js';

/** The settings key; its value is sealed. */
export const BACKUP_STORAGE_KEY = 'backupStorage';

/** The API's shapes: the settings without their secret, and the status GET and PUT answer. */
export type { BackupStorageStatus } from '../../shared/types.js';

/** As given by a client (shape-checked at the edge); checked and normalised here. */
export interface BackupStorageInput {
  endpoint: string;
  region: string;
  bucket: string;
  prefix?: string | undefined;
  accessKeyId: string;
  /** May be left out when one is stored and the endpoint and access key id stay the same. */
  secretAccessKey?: string | undefined;
  forcePathStyle?: boolean | undefined;
}

export class BackupStorage {
  constructor(
    private settings: SettingsRepo,
    private clock: Clock,
    private open: RemoteStoreFactory,
    private events: EventSink = NO_EVENTS,
  ) {}

  private changed(): void {
    this.events.publish({ type: 'settings', allProjects: true, data: { area: 'backup-storage' } });
  }

  /** The configuration (without its secret) and the result of a real, authenticated call. */
  async get(access: Access): Promise<BackupStorageStatus> {
    access.requireAllProjects('reading backup storage settings');
    return this.status(await this.stored());
  }

  async put(access: Access, input: BackupStorageInput): Promise<BackupStorageStatus> {
    admin(access);
    const existing = await this.stored();
    const next = checkSettings(input, existing);
    await this.settings.setSealed(BACKUP_STORAGE_KEY, JSON.stringify(next), this.clock.now());
    this.changed();
    return this.status(next);
  }

  async delete(access: Access): Promise<void> {
    admin(access);
    await this.settings.delete(BACKUP_STORAGE_KEY);
    this.changed();
  }

  /** The configured remote store for the backup runner; null when none is configured. */
  async remote(): Promise<RemoteStore | null> {
    const settings = await this.stored();
    return settings ? this.open(settings) : null;
  }

  private async stored(): Promise<RemoteSettings | null> {
    const raw = await this.settings.getSealed(BACKUP_STORAGE_KEY);
    return raw === null ? null : (JSON.parse(raw) as RemoteSettings);
  }

  private async status(settings: RemoteSettings | null): Promise<BackupStorageStatus> {
    if (!settings) return { storage: null, connected: false, detail: 'no remote backup storage is configured' };
    const { connected, detail } = await this.open(settings).check();
    return { storage: view(settings), connected, detail };
  }
}

function admin(access: Access): void {
  access.requireWrite();
  access.requireAllProjects('changing backup storage settings');
}

function view(s: RemoteSettings): BackupStorageView {
  return {
    endpoint: s.endpoint,
    region: s.region,
    bucket: s.bucket,
    prefix: s.prefix,
    accessKeyId: s.accessKeyId,
    hasSecret: s.secretAccessKey !== '',
    forcePathStyle: s.forcePathStyle,
  };
}

function checkSettings(input: BackupStorageInput, existing: RemoteSettings | null): RemoteSettings {
  const endpoint = checkEndpoint(input.endpoint);
  const region = checkRegion(input.region);
  const bucket = checkBucket(input.bucket);
  const prefix = checkPrefix(input.prefix ?? '');
  const accessKeyId = input.accessKeyId.trim();
  if (accessKeyId === '' || /\s/.test(accessKeyId)) throw new InvalidInput('accessKeyId must be a non-empty key id without spaces');
  let secretAccessKey: string;
  if (input.secretAccessKey !== undefined) {
    secretAccessKey = input.secretAccessKey;
    if (secretAccessKey.trim() === '') throw new InvalidInput('secretAccessKey must not be empty');
  } else if (existing && existing.endpoint === endpoint && existing.accessKeyId === accessKeyId) {
    secretAccessKey = existing.secretAccessKey;
  } else {
    // A stored secret is never sent to a new endpoint or paired with another key id.
    throw new InvalidInput(existing ? 'secretAccessKey is required when the endpoint or the access key id changes' : 'secretAccessKey is required');
  }
  return { endpoint, region, bucket, prefix, accessKeyId, secretAccessKey, forcePathStyle: input.forcePathStyle ?? true };
}

function checkEndpoint(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new InvalidInput('endpoint must be an absolute http or https URL like https://s3.example.com');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidInput('endpoint must be an http or https URL');
  if (url.username || url.password) throw new InvalidInput('endpoint must not carry credentials; give them as accessKeyId and secretAccessKey');
  if (url.search || url.hash) throw new InvalidInput('endpoint must not have a query or a fragment');
  return url.toString().replace(/\/+$/, '');
}

const REGION = /^[A-Za-z0-9](?:[A-Za-z0-9_-]{0,62}[A-Za-z0-9])?$/;

function checkRegion(raw: string): string {
  const region = raw.trim();
  if (!REGION.test(region)) throw new InvalidInput('region must be a region name like us-east-1 (letters, digits, - and _)');
  return region;
}

/** The S3 bucket naming rules (general purpose buckets). */
function checkBucket(raw: string): string {
  const bucket = raw.trim();
  const refuse = (why: string) => new InvalidInput(`bucket "${bucket.slice(0, 70)}" is not a valid bucket name: ${why}`);
  if (bucket.length < 3 || bucket.length > 63) throw refuse('it must be 3 to 63 characters long');
  if (!/^[a-z0-9.-]+$/.test(bucket)) throw refuse('only lowercase letters, digits, dots and hyphens are allowed');
  if (!/^[a-z0-9]/.test(bucket) || !/[a-z0-9]$/.test(bucket)) throw refuse('it must begin and end with a letter or a digit');
  if (bucket.includes('..')) throw refuse('it must not contain two adjacent dots');
  if (isIPv4(bucket)) throw refuse('it must not be formatted as an IP address');
  if (bucket.startsWith('xn--') || bucket.startsWith('sthree-')) throw refuse('it must not begin with xn-- or sthree-');
  if (bucket.endsWith('-s3alias') || bucket.endsWith('--ol-s3')) throw refuse('it must not end with -s3alias or --ol-s3');
  return bucket;
}

/** '' or `a/b/`: no leading slash, no empty segment, always ending with '/'. */
function checkPrefix(raw: string): string {
  const prefix = raw.trim();
  if (prefix === '') return '';
  if (prefix.startsWith('/')) throw new InvalidInput('prefix must not begin with "/"');
  if (prefix.length > 512) throw new InvalidInput('prefix must be at most 512 characters');
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (/[\u0000-\u001f\u007f\\]/.test(prefix)) throw new InvalidInput('prefix must not contain control characters or backslashes');
  const withSlash = prefix.endsWith('/') ? prefix : `${prefix}/`;
  const segments = withSlash.slice(0, -1).split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) throw new InvalidInput('prefix must not contain empty, "." or ".." segments');
  return withSlash;
}
