// The free space that decides whether new work may start (core/disk-space.ts): Berth's data dir and
// Docker's data root, through statfs (bavail: what an unprivileged writer may still use). Docker's
// root comes from the Engine once; when the Engine is remote (its root not on this host) or not
// answering, only the data dir is measured.
import type Docker from 'dockerode';
import { statfs } from 'node:fs/promises';
import type { DiskVolume } from '../../shared/types.js';
import type { DiskProbe } from '../core/ports/disk-probe.js';

export function diskProbe(docker: Docker, dataDir: string): DiskProbe {
  let dockerRoot: Promise<string | null> | null = null;
  const root = () => {
    dockerRoot ??= docker.info().then(
      (info: { DockerRootDir?: string }) => info.DockerRootDir ?? null,
      () => {
        dockerRoot = null; // asked again next time
        return null;
      },
    );
    return dockerRoot;
  };
  return {
    async volumes() {
      const out: DiskVolume[] = [await measure('data', dataDir)];
      const dockerDir = await root();
      if (dockerDir) {
        const docker = await measure('docker', dockerDir).catch(() => null);
        if (docker) out.push(docker);
      }
      return out;
    },
  };
}

async function measure(role: DiskVolume['role'], path: string): Promise<DiskVolume> {
  const s = await statfs(path);
  return { role, path, freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize };
}
