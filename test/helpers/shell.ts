// Running host commands from a test (ip, iptables, ss): the output trimmed, or nothing for clean-ups.
import { execFileSync } from 'node:child_process';

/** `cmd args...` to its end; its stdout trimmed. Throws (with stderr) when it fails. */
export function sh(cmd: string, ...args: string[]): string {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** `sh` for a clean-up of something that may not be there: a failure is ignored. */
export function quiet(cmd: string, ...args: string[]): void {
  try {
    sh(cmd, ...args);
  } catch {
    // nothing to clean up
  }
}
