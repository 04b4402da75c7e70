// Remote backup storage: any S3-compatible service (daemon/backups/s3-store.ts implements it). Settings live in the daemon's settings,
// the secret sealed at rest.
import type { Readable } from 'node:stream';

export interface RemoteSettings {
  endpoint: string;
  region: string;
  bucket: string;
  /** Key prefix inside the bucket, '' for none; keys are `<prefix><serviceId>/<file>`. */
  prefix: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Path-style addressing (most self-hosted S3 servers want it). */
  forcePathStyle: boolean;
}

export interface RemoteStore {
  /** Uploads a local file (multipart above a part size), verifying the upload finished. */
  upload(key: string, path: string, sizeBytes: number, signal?: AbortSignal): Promise<void>;
  /** Streams an object. */
  download(key: string, signal?: AbortSignal): Promise<{ body: Readable; sizeBytes: number | null }>;
  /** Removes an object; an object already gone is not an error. */
  delete(key: string): Promise<void>;
  /** A real, authenticated call (a listing of the prefix, at most one key): true only when it succeeded. */
  check(): Promise<{ connected: boolean; detail: string }>;
}

export type RemoteStoreFactory = (settings: RemoteSettings) => RemoteStore;
