// The S3 store with the AWS SDK loaded on first use: a daemon without remote backups never loads it.
import type { RemoteSettings, RemoteStore } from '../core/ports/remote-store.js';

export function lazyS3Store(settings: RemoteSettings): RemoteStore {
  let real: Promise<RemoteStore> | null = null;
  const store = () => (real ??= import('./s3-store.js').then((m) => m.s3Store(settings)));
  return {
    upload: async (key, path, size, signal) => (await store()).upload(key, path, size, signal),
    download: async (key, signal) => (await store()).download(key, signal),
    delete: async (key) => (await store()).delete(key),
    check: async () => (await store()).check(),
  };
}
