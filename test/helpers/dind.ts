// Containers that play a second machine (a Swarm worker, a VPS with systemd): the run options that
// let Docker (and systemd) work inside a container here, and running a program in one.
//
// The options are the ones that work on these machines (../shared/ENVIRONMENT.md): `--privileged`
// fails ("unable to apply caps": no CAP_SYS_RESOURCE in the bounding set), so every other
// capability, no seccomp/apparmor confinement, the host's cgroup tree and kernel modules.
import { spawn } from 'node:child_process';

export const DIND_OPTIONS = [
  '--cap-add=ALL',
  '--cap-drop=SYS_RESOURCE',
  '--security-opt',
  'seccomp=unconfined',
  '--security-opt',
  'apparmor=unconfined',
  '--security-opt',
  'systempaths=unconfined',
  '--cgroupns=host',
  '-v',
  '/sys/fs/cgroup:/sys/fs/cgroup:rw',
  '-v',
  '/lib/modules:/lib/modules:ro',
];

export interface ExecResult {
  status: number;
  stdout: string;
  stderr: string;
}

/**
 * `docker exec [-i] <container> argv...` to its end, without blocking the event loop (the daemon
 * under test may run in this process and be called back meanwhile). `input` is written to stdin.
 */
export function execIn(container: string, argv: string[], timeoutMs = 120_000, input?: string): Promise<ExecResult> {
  return new Promise((resolve) => {
    const child = spawn('docker', ['exec', ...(input === undefined ? [] : ['-i']), container, ...argv], { stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    if (input !== undefined) child.stdin!.end(input);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ status: -1, stdout, stderr: `${stderr}${String(err)}` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ status: code ?? -1, stdout, stderr });
    });
  });
}
