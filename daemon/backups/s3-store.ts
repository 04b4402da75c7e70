// Remote backup storage on any S3-compatible service (AWS S3, MinIO, Backblaze B2, Cloudflare R2,
// Wasabi, Garage, ...), through the official AWS SDK.
//
// Keys given to the store are relative to the configured prefix (`<serviceId>/<file>`): the store
// adds the prefix, since callers only hold a RemoteStore, never the settings.
//
// Why the client is configured as it is:
// - timeouts: the SDK's defaults wait on a dead endpoint for minutes; a connection must open
//   within seconds, a request must be answered, and a socket may not sit idle for long.
// - checksums only when the operation requires them: the SDK's newer default (CRC32 trailers with
//   aws-chunked bodies) is refused by many S3-compatible servers; payloads are still signed.
// - errors carry the provider's code and message, never the credentials.
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { RemoteSettings, RemoteStore } from '../core/ports/remote-store.js';

/** Parts of 8 MiB, three in flight: at most ~24 MiB of a file in memory at once. */
export const PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 3;
const CONNECT_TIMEOUT_MS = 5_000;
/** Until the response headers arrive (a part's body is sent within it). */
const REQUEST_TIMEOUT_MS = 120_000;
/** No byte either way for this long: the connection is dead. */
const IDLE_TIMEOUT_MS = 30_000;
/** check() answers within this, whatever the endpoint does. */
const CHECK_TIMEOUT_MS = 12_000;

export function s3Store(settings: RemoteSettings): RemoteStore {
  const client = new S3Client({
    endpoint: settings.endpoint,
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
    maxAttempts: 3,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: {
      connectionTimeout: CONNECT_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      throwOnRequestTimeout: true,
      socketTimeout: IDLE_TIMEOUT_MS,
    },
  });
  const bucket = settings.bucket;
  const full = (key: string) => settings.prefix + key.replace(/^\/+/, '');
  const fail = (what: string, err: unknown): Error => new Error(`${what}: ${describeS3Error(err, settings)}`, { cause: err });

  return {
    async upload(key, path, sizeBytes, signal) {
      const Key = full(key);
      signal?.throwIfAborted();
      const body = createReadStream(path);
      const upload = new Upload({
        client,
        params: { Bucket: bucket, Key, Body: body, ContentLength: sizeBytes, ContentType: 'application/octet-stream' },
        partSize: PART_SIZE,
        queueSize: QUEUE_SIZE,
        // On failure the multipart upload is aborted so no orphaned parts are billed.
        leavePartsOnError: false,
      });
      const onAbort = () => void upload.abort().catch(() => undefined);
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        await upload.done();
      } catch (err) {
        if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('upload aborted');
        throw fail(`uploading ${Key} to bucket ${bucket}`, err);
      } finally {
        signal?.removeEventListener('abort', onAbort);
        body.destroy();
      }
      // The upload said it finished; the object's size proves it.
      let stored: number | undefined;
      try {
        stored = (await client.send(new HeadObjectCommand({ Bucket: bucket, Key }), { abortSignal: signal })).ContentLength;
      } catch (err) {
        throw fail(`checking ${Key} after upload`, err);
      }
      if (stored !== sizeBytes) throw new Error(`uploading ${Key}: the stored object has ${stored ?? 'an unknown number of'} bytes, expected ${sizeBytes}`);
    },

    async download(key, signal) {
      const Key = full(key);
      let out;
      try {
        out = await client.send(new GetObjectCommand({ Bucket: bucket, Key }), { abortSignal: signal });
      } catch (err) {
        throw fail(`downloading ${Key} from bucket ${bucket}`, err);
      }
      // In Node the SDK's body is the HTTP response itself: a Readable.
      if (!(out.Body instanceof Readable)) throw new Error(`downloading ${Key}: the response has no readable body`);
      return { body: out.Body, sizeBytes: out.ContentLength ?? null };
    },

    async delete(key) {
      const Key = full(key);
      try {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key }));
      } catch (err) {
        // S3 answers 204 for a missing key; some compatible servers say NoSuchKey / 404 instead.
        if (errorCode(err) === 'NoSuchKey' || (httpStatus(err) === 404 && errorCode(err) !== 'NoSuchBucket')) return;
        throw fail(`deleting ${Key} from bucket ${bucket}`, err);
      }
    },

    async check() {
      try {
        await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: settings.prefix || undefined, MaxKeys: 1 }), {
          abortSignal: AbortSignal.timeout(CHECK_TIMEOUT_MS),
        });
        return { connected: true, detail: `bucket ${bucket} at ${settings.endpoint} is reachable and the credentials are accepted` };
      } catch (err) {
        return { connected: false, detail: describeS3Error(err, settings) };
      }
    },
  };
}

function errorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { Code?: unknown; code?: unknown; name?: unknown };
  for (const c of [e.Code, e.code, e.name]) if (typeof c === 'string' && c !== '' && c !== 'Error') return c;
  return undefined;
}

function httpStatus(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
}

/** `<code>: <message>` from the provider, or the network failure; the secret is never part of it. */
function describeS3Error(err: unknown, settings: Pick<RemoteSettings, 'endpoint' | 'secretAccessKey'>): string {
  const code = errorCode(err);
  const status = httpStatus(err);
  let message = err instanceof Error ? err.message : String(err);
  // The SDK's text for an error body it could not parse ("UnknownError") says nothing useful.
  if (message === 'UnknownError' || message === '') message = status !== undefined ? `HTTP ${status}` : 'no message';
  let text: string;
  if (status !== undefined) {
    text = `${code ?? 'Error'}: ${message}${message.includes(String(status)) ? '' : ` (HTTP ${status})`}`;
  } else if (code === 'AbortError' || code === 'TimeoutError' || code === 'ETIMEDOUT') {
    text = `${settings.endpoint} did not answer in time (${code}): ${message}`;
  } else {
    text = `cannot reach ${settings.endpoint}${code ? ` (${code})` : ''}: ${message}`;
  }
  return settings.secretAccessKey ? text.split(settings.secretAccessKey).join('***') : text;
}
