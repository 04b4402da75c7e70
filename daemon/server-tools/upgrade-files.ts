// The daemon's side of the installer's upgrader (core/ports/upgrader.ts): the files in
// <BERTH_DATA_DIR>/upgrade/ (the one directory the sandboxed daemon of an install may write besides
// its data) and, in `spawn` mode (no systemd), the upgrader started as
// `bash <BERTH_INSTALL_ROOT>/current/installers/upgrade.sh <dir>` in a session of its own, so that
// stopping the daemon (which the upgrade does) does not stop it. Under systemd a path unit
// watching `request` starts it outside the daemon's sandbox instead.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type UpgradeFileName, type UpgradeFilesPort, type UpgradeFileText, UpgraderNotStarted } from '../core/ports/upgrader.js';

/** What the upgrader's command line holds: how a running one is recognised in /proc. */
const UPGRADER_SCRIPT = 'installers/upgrade.sh';

export class UpgradeFiles implements UpgradeFilesPort {
  readonly dir: string;

  constructor(
    dataDir: string,
    /** BERTH_INSTALL_ROOT (/opt/berth): the upgrader is `current/installers/upgrade.sh` under it. */
    private readonly installRoot: string,
  ) {
    this.dir = join(dataDir, 'upgrade');
  }

  async read(file: UpgradeFileName, maxBytes: number, tail?: { since: number }): Promise<UpgradeFileText | null> {
    let handle;
    try {
      handle = await open(join(this.dir, file), 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
    try {
      const st = await handle.stat();
      // a directory or a device where a file should be: as if there were none
      if (!st.isFile()) return null;
      const since = tail && tail.since <= st.size ? tail.since : 0;
      const length = Math.min(st.size - since, maxBytes);
      const buf = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buf, 0, length, tail ? st.size - length : 0);
      return { text: buf.subarray(0, bytesRead).toString('utf8'), truncated: st.size - since > length, modifiedAt: st.mtime.toISOString() };
    } finally {
      await handle.close();
    }
  }

  async size(file: UpgradeFileName): Promise<number> {
    try {
      return (await stat(join(this.dir, file))).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw err;
    }
  }

  async writeRequest(text: string): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const tmp = join(this.dir, 'request.tmp');
    await writeFile(tmp, text, { mode: 0o600 });
    // the mode of a request.tmp left from before (writeFile keeps an existing file's mode)
    await chmod(tmp, 0o600);
    await rename(tmp, join(this.dir, 'request'));
  }

  async removeRequest(): Promise<void> {
    await rm(join(this.dir, 'request'), { force: true });
  }

  async startUpgrader(): Promise<void> {
    const script = join(this.installRoot, 'current', UPGRADER_SCRIPT);
    if (!existsSync(script)) throw new UpgraderNotStarted(`${script} does not exist (BERTH_INSTALL_ROOT=${this.installRoot})`);
    await new Promise<void>((resolve, reject) => {
      const child = spawn('bash', [script, this.dir], { detached: true, stdio: 'ignore', cwd: '/' });
      child.once('error', (err) => reject(new UpgraderNotStarted(`bash ${script}: ${err.message}`)));
      child.once('spawn', () => {
        child.unref();
        resolve();
      });
    });
  }

  async upgraderRunning(): Promise<boolean> {
    let pids: string[];
    try {
      pids = (await readdir('/proc')).filter((p) => /^\d+$/.test(p));
    } catch {
      return false;
    }
    for (const pid of pids) {
      const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
      if (cmdline.includes(UPGRADER_SCRIPT)) return true;
    }
    return false;
  }
}
