// A stand-in for the installer's upgrader (installers/upgrade.sh is the installer's, tested on a
// systemd VPS): an install root whose current/installers/upgrade.sh takes the daemon's request and
// reports through the status and log files as the contract says, so the code under test (the
// daemon, the CLI, the console) meets what a real upgrade writes. The bundle named decides the
// outcome: a name with `unhealthy` rolls back, `missing` fails before switching, anything else
// succeeds, upgrading to the version in the name (berth-1.2.3.tar.gz) or 9.9.9. While hold() is in
// force it waits after each step, so a test can look at a run under way.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VERSION } from '../../daemon/version.js';

export interface FakeInstall {
  /** BERTH_INSTALL_ROOT. */
  root: string;
  /** The daemon's environment for upgrades through this fake (spawn mode). */
  env: Record<string, string>;
  /** The fake waits before its next step until release(). */
  hold(): void;
  release(): void;
  remove(): void;
}

const SCRIPT = `#!/bin/bash
# fake installers/upgrade.sh (test/helpers/fake-upgrader.ts): reports as the real one does
set -u
dir="$1"
root="$(cd "$(dirname "$0")/../.." && pwd)"
hold="$root/hold"
pause() { while [ -e "$hold" ]; do sleep 0.1; done; }
[ -f "$dir/request" ] || exit 0
id="$(sed -n 's/^ID=//p' "$dir/request")"
from="$(sed -n 's/^FROM=//p' "$dir/request")"
rm -f "$dir/request"
to="$(printf '%s' "$from" | sed -n 's/.*berth-\\([0-9][0-9.]*[0-9]\\)\\.tar\\.gz.*/\\1/p')"
[ -n "$to" ] || to=9.9.9
started="$(date -u +%Y-%m-%dT%H:%M:%S.000Z)"
status() { # state step message finished
  printf 'ID=%s\\nSTATE=%s\\nFROM_VERSION=${VERSION}\\nTO_VERSION=%s\\nSTEP=%s\\nMESSAGE=%s\\nSTARTED_AT=%s\\nFINISHED_AT=%s\\n' "$id" "$1" "$to" "$2" "$3" "$started" "$4" > "$dir/status.tmp"
  mv "$dir/status.tmp" "$dir/status"
}
step() { echo "berth: ==> $1" >> "$dir/log"; status running "$1" "" ""; pause; }
finish() { echo "berth: $3" >> "$dir/log"; status "$1" "$2" "$4" "$(date -u +%Y-%m-%dT%H:%M:%S.000Z)"; }
step "download $from"
case "$from" in *missing*) finish failed "download" "download failed" "the bundle could not be downloaded: 404 Not Found"; exit 0;; esac
step "verify the checksum"
step "back up Berth's state"
step "install $to beside ${VERSION}"
step "switch to $to"
step "wait for the daemon"
case "$from" in *unhealthy*)
  step "roll back to ${VERSION}"
  finish rolled_back "roll back to ${VERSION}" "rolled back to ${VERSION}" "the new daemon did not answer /api/health within 60 s; ${VERSION} and its state backup are back"; exit 0;;
esac
finish succeeded "done" "upgraded from ${VERSION} to $to" ""
`;

/** Where the fake install takes upgrades from (what install.sh would have set). */
export const UPGRADE_SOURCES = ['https://releases.example.com/', '/srv/'];

export function fakeInstall(): FakeInstall {
  const root = mkdtempSync(join(tmpdir(), 'berth-install-'));
  const installers = join(root, 'current', 'installers');
  mkdirSync(installers, { recursive: true });
  writeFileSync(join(installers, 'upgrade.sh'), SCRIPT);
  chmodSync(join(installers, 'upgrade.sh'), 0o755);
  const hold = join(root, 'hold');
  return {
    root,
    env: { BERTH_UPGRADER: 'spawn', BERTH_INSTALL_ROOT: root, BERTH_UPGRADE_SOURCES: UPGRADE_SOURCES.join(' ') },
    hold: () => writeFileSync(hold, ''),
    release: () => rmSync(hold, { force: true }),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}
