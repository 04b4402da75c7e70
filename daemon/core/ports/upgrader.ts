// The installer's upgrader as core sees it: three files in <BERTH_DATA_DIR>/upgrade/ (the only
// place the daemon and the upgrader meet; docs/install.md and the installer own the other side)
// and, without systemd, starting the upgrader as a process of its own. The adapter is
// daemon/server-tools/upgrade-files.ts. Everything read is untrusted text: core parses it.

/** How the upgrader runs (BERTH_UPGRADER): a systemd path unit that watches for `request`, or a process the daemon starts. */
export type UpgraderMode = 'path-unit' | 'spawn';

/** `request`: the daemon writes it; `status` and `log`: the upgrader writes them. */
export type UpgradeFileName = 'request' | 'status' | 'log';

export interface UpgradeFileText {
  /** Decoded as UTF-8 (invalid bytes replaced); at most the bytes asked for. */
  text: string;
  /** True when the file held more than was read (a tail then starts mid-line). */
  truncated: boolean;
  /** The file's last change (ISO). */
  modifiedAt: string;
}

export interface UpgradeFilesPort {
  /**
   * The first `maxBytes` of the file, or with `tail` its last `maxBytes` after byte `since` (all
   * of it when the file is now shorter than `since`: the upgrader started it again); null when
   * there is no such file.
   */
  read(file: UpgradeFileName, maxBytes: number, tail?: { since: number }): Promise<UpgradeFileText | null>;
  /** The file's size in bytes; 0 when there is none. */
  size(file: UpgradeFileName): Promise<number>;
  /** Writes `request` (mode 0600) atomically: `request.tmp`, then a rename. */
  writeRequest(text: string): Promise<void>;
  /** Removes `request` (an upgrader that could not be started never takes it); no error when it is gone. */
  removeRequest(): Promise<void>;
  /** `spawn` mode: starts the upgrader detached in a session of its own; throws UpgraderNotStarted when it cannot. */
  startUpgrader(): Promise<void>;
  /** Whether an upgrader process runs now (what makes a `running` status that stopped changing stale or not). */
  upgraderRunning(): Promise<boolean>;
}

/** The upgrader could not be started (its script is missing, ...): the message says why. */
export class UpgraderNotStarted extends Error {}

/** The release feed (BERTH_RELEASE_FEED): its JSON body, untrusted. */
export interface ReleaseFeedPort {
  /** The feed's URL; null when none is configured. */
  readonly url: string | null;
  /** GETs the feed (bounded in time and size) and parses its body as JSON; throws with a reason. */
  fetch(): Promise<unknown>;
}
