// A real S3-compatible server on 127.0.0.1 for tests: @20minutes/s3rver (in-process, files in a
// temporary directory). It checks AWS Signature Version 4 on every request, so a wrong secret is
// refused with SignatureDoesNotMatch and an unknown key id with InvalidAccessKeyId, and it speaks
// multipart uploads. Every request is recorded so tests can see what the client really sent.
//
// One fix is applied to the server (see canonicalUriFix): it computes the SigV4 canonical URI of a
// bucket-level request as `/<bucket>` although AWS SDK v3 sends and signs `/<bucket>/`, so it
// refused every correctly signed ListObjectsV2. The signature itself is still checked in full.
import S3rver, { type S3rverContext } from '@20minutes/s3rver';
import account from '@20minutes/s3rver/lib/models/account.js';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BackupStorageInput } from '../../shared/types.js';

interface S3Request {
  method: string;
  /** The path without the query, e.g. `/bucket/prefix/key`. */
  path: string;
  query: URLSearchParams;
}

export interface TestS3Server {
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Every request received, oldest first. */
  requests: S3Request[];
  stop(): Promise<void>;
}

/** The backup storage settings (PUT /api/system/backup-storage) that point the daemon at this server, under `prefix`. */
export function storageFor(s3: TestS3Server, prefix = 'berth/'): BackupStorageInput {
  return { endpoint: s3.endpoint, region: s3.region, bucket: s3.bucket, prefix, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey, forcePathStyle: true };
}

/**
 * For a path-style bucket-level request (`/<bucket>/`), makes the server's canonical URI the path
 * that was sent. Its formula is `<mountPath>/<bucket>[/<key>]` for path-style requests and
 * `/<bucket><mountPath>[/<key>]` for virtual-host ones; only the second can end in '/', so the
 * request is described to it that way (the flag only changes that formula for 's3' requests).
 */
async function canonicalUriFix(ctx: S3rverContext, next: () => Promise<void>): Promise<void> {
  if (!ctx.state.vhost && /^\/[^/]+\/$/.test(ctx.path)) {
    ctx.state.vhost = true;
    ctx.mountPath = '/';
  }
  await next();
}

export async function startS3Server(opts: { bucket?: string } = {}): Promise<TestS3Server> {
  const dir = mkdtempSync(join(tmpdir(), 'berth-s3-'));
  const bucket = opts.bucket ?? 'berth-backups';
  const accessKeyId = `AKTEST${randomBytes(7).toString('hex').toUpperCase()}`;
  const secretAccessKey = randomBytes(30).toString('base64');
  // The server keeps its accounts in a process-wide registry; each test server adds its own key pair.
  account.DUMMY_ACCOUNT.createKeyPair(accessKeyId, secretAccessKey);
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: dir,
    allowMismatchedSignatures: false,
    vhostBuckets: false,
    configureBuckets: [{ name: bucket }],
  });
  // Before the router (the last middleware), which runs the signature check.
  server.middleware.splice(server.middleware.length - 1, 0, canonicalUriFix);
  const { port } = await server.run();
  const requests: S3Request[] = [];
  server.httpServer.prependListener('request', (req: IncomingMessage) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push({ method: req.method ?? '', path: decodeURIComponent(url.pathname), query: url.searchParams });
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    region: 'us-east-1',
    bucket,
    accessKeyId,
    secretAccessKey,
    requests,
    async stop() {
      server.httpServer.closeAllConnections();
      await server.close();
      account.DUMMY_ACCOUNT.revokeAccessKey(accessKeyId);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
