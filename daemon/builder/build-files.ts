// The files Berth itself writes into a checkout before a build (the generated Dockerfiles, the
// extra CA bundle). A repository is hostile input: it may hold a symbolic link, a directory or a
// file under any of these names, pointing anywhere on the server. Berth never writes through
// what the repository put there: the entry is removed (a link itself, never its target) and the
// file is created exclusively (O_CREAT|O_EXCL, which does not follow a link), and the build log
// says the repository held a reserved name.
import { lstatSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const AUTOBUILD_DOCKERFILE = '.berth-autobuild.Dockerfile';
export const GENERATED_DOCKERFILE = '.berth.Dockerfile';
export const CA_IN_CONTEXT = '.berth-build-ca.pem';

/** Writes `name` in `dir` (a directory already checked to be inside the checkout), never through anything the repository placed there. */
export function writeBuildFile(dir: string, name: string, content: string | Buffer, log: (line: string) => void): void {
  const path = join(dir, name);
  const existing = lstatOrNull(path);
  if (existing) {
    const what = existing.isSymbolicLink() ? 'a symbolic link' : existing.isDirectory() ? 'a directory' : 'a file';
    log(`Note: the repository holds ${what} named ${name}, a name Berth reserves for its own build files; it is replaced, and never followed or read`);
    rmSync(path, { recursive: true, force: true });
  }
  writeFileSync(path, content, { flag: 'wx', mode: 0o644 });
}

function lstatOrNull(path: string): ReturnType<typeof lstatSync> | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}
