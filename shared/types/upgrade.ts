// Upgrading Berth itself (GET/POST /api/system/upgrade). The daemon hands a request to the
// installer's upgrader (installers/upgrade.sh, run by a systemd path unit or spawned detached) and
// reads back what it reports; the upgrader backs up Berth's state, installs the release beside the
// current one, switches, and switches back by itself when the new daemon is not healthy.

/**
 * How a run stands: `running` (also while no upgrader took the request yet); `succeeded`: the new
 * release runs; `rolled_back`: the new release was unhealthy, the previous release and its state
 * backup are back and running; `failed`: it stopped before switching (download, checksum,
 * preflight...) and nothing changed.
 */
export type UpgradeState = 'running' | 'succeeded' | 'rolled_back' | 'failed';

export interface UpgradeRun {
  /** The request's id (a UUID the daemon chose). */
  id: string;
  state: UpgradeState;
  /** The version before the upgrade; null until the upgrader said. */
  fromVersion: string | null;
  /** The version of the bundle; null until the upgrader read it. */
  toVersion: string | null;
  /** The bundle asked for (an https URL or a path on the server); null when this daemon did not record the request. */
  from: string | null;
  /** The step under way (or the last one), e.g. "wait for the daemon". */
  step: string | null;
  /** Why it rolled back or failed (one line); null while running and on success. */
  message: string | null;
  startedAt: string | null;
  /** null while running. */
  finishedAt: string | null;
  /** The upgrader's last output lines (at most 200), oldest first. */
  log: string[];
}

export interface LatestRelease {
  version: string;
  /** Where its bundle is (what `from` would be). */
  url: string;
}

export interface ServerUpgrade {
  /** The version this daemon runs. */
  currentVersion: string;
  /** False on a daemon not installed by install.sh (a development daemon): no upgrader to hand a request to. */
  available: boolean;
  /** Why upgrades are not available; null when they are. */
  unavailableReason: string | null;
  /** A newer release from the release feed (BERTH_RELEASE_FEED); null when none is configured, known or newer. */
  latest: LatestRelease | null;
  /** Whether a release feed is configured (BERTH_RELEASE_FEED): without one, `latest` is always null. */
  releaseFeed: boolean;
  /**
   * Where an upgrade asked for through the API may come from (BERTH_UPGRADE_SOURCES, set by
   * install.sh to where Berth was installed from): URL prefixes or folders on the server. Any other
   * source is refused (403 upgrade_source_not_allowed): the release runs as root.
   */
  sources: string[];
  /** The last run this server knows of; null when there was none. */
  run: UpgradeRun | null;
}
