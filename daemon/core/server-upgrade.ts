// Upgrading Berth itself. The daemon cannot replace the release it runs from (it is sandboxed, and
// it is what gets restarted), so it only hands a request to the installer's upgrader through files
// in <BERTH_DATA_DIR>/upgrade/ (ports/upgrader.ts) and reads back what the upgrader reports: the
// upgrader backs up Berth's state, installs the release beside the current one, switches, and
// switches back by itself when the new daemon is not healthy. A run is announced (the `settings`
// event, area `upgrade`, and the `upgrade` event) when it starts and once when it is found
// finished, usually by the daemon that started after the switch (or after the switch back).
// Reading needs a key over all projects; upgrading a write key over all.
import { randomUUID } from 'node:crypto';
import type { LatestRelease, ServerUpgrade, UpgradeRun, UpgradeState } from '../../shared/types.js';
import { UPGRADE_STATES, upgradeInProgress } from '../../shared/statuses.js';
import type { Access } from './access.js';
import type { Clock } from './clock.js';
import { Conflict, Forbidden } from './errors.js';
import type { EventSink } from './events.js';
import type { SettingsRepo } from './ports/store.js';
import { type ReleaseFeedPort, type UpgradeFilesPort, type UpgraderMode, UpgraderNotStarted } from './ports/upgrader.js';
import { checkUpgradeSource, compareVersions, isVersion, logLines, oneLine, parseKeyValues, timeOf, upgradeSourceRefusal, valueOf } from './upgrade-text.js';

/** The request this daemon last wrote (a setting: it is in the state backup the upgrader takes). */
const REQUEST_SETTING = 'upgradeRequest';
/** The id of the last finished run announced. */
const ANNOUNCED_SETTING = 'upgradeAnnounced';

const STATUS_MAX_BYTES = 64 * 1024;
const REQUEST_MAX_BYTES = 8 * 1024;
const LOG_MAX_BYTES = 64 * 1024;
const LOG_MAX_LINES = 200;
/** A run that says `running` but has not changed for this long, with no upgrader process, is stale. */
const STALE_MS = 30 * 60_000;
/** The release feed is asked at most this often (a bad answer too). */
const FEED_EVERY_MS = 60 * 60_000;

const UNAVAILABLE_REASON = 'this daemon was not installed by install.sh (a development daemon): upgrade it from its checkout';

interface RecordedRequest {
  id: string;
  from: string;
  requestedAt: string;
  /** The log's size when the request was written: the run's own lines come after it (the log is appended run after run). */
  logFrom: number;
}

export interface ServerUpgradesDeps {
  settings: SettingsRepo;
  clock: Clock;
  files: UpgradeFilesPort;
  feed: ReleaseFeedPort;
  events: EventSink;
  /** The version this daemon runs. */
  version: string;
  /** BERTH_UPGRADER; null: upgrades are not available here. */
  mode: UpgraderMode | null;
  /** BERTH_UPGRADE_SOURCES: where an upgrade asked for through the API may come from. */
  sources: readonly string[];
  /** Folders a bundle is never taken from (core/upgrade-text.ts tenantWritableDirs). */
  refusedDirs: readonly string[];
  log: (message: string, err?: unknown) => void;
}

export class ServerUpgrades {
  private latest: { at: number; release: LatestRelease | null } | null = null;
  private feedRead: Promise<void> | null = null;
  private announcing: Promise<void> | null = null;

  constructor(private readonly d: ServerUpgradesDeps) {}

  async get(access: Access): Promise<ServerUpgrade> {
    access.requireAllProjects('reading the upgrade state');
    return this.view();
  }

  async start(access: Access, input: { from: string }): Promise<ServerUpgrade> {
    access.requireWrite();
    access.requireAllProjects('upgrading Berth');
    const from = checkUpgradeSource(input.from);
    if (this.d.mode === null) throw new Conflict(UNAVAILABLE_REASON, 'upgrade_unavailable');
    // a key chooses when, never what: the release runs as root
    const refusal = upgradeSourceRefusal(from, this.d.sources, this.d.refusedDirs);
    if (refusal !== null) throw new Forbidden(refusal, 'upgrade_source_not_allowed');
    const run = await this.run();
    if (run && upgradeInProgress(run.run.state) && !(await this.stale(run.changedAt))) {
      throw new Conflict(`an upgrade is already under way (${run.run.step ?? 'running'}; request ${run.run.id}): wait for it to end`, 'upgrade_running');
    }
    const request: RecordedRequest = { id: randomUUID(), from, requestedAt: this.d.clock.now(), logFrom: await this.d.files.size('log') };
    // recorded first, so the state backup the upgrader takes knows the request it came from
    await this.d.settings.set(REQUEST_SETTING, JSON.stringify(request), request.requestedAt);
    await this.d.files.writeRequest(`ID=${request.id}\nFROM=${request.from}\nREQUESTED_AT=${request.requestedAt}\n`);
    if (this.d.mode === 'spawn') {
      try {
        await this.d.files.startUpgrader();
      } catch (err) {
        await this.d.files.removeRequest();
        if (err instanceof UpgraderNotStarted) throw new Conflict(`the upgrader could not be started: ${err.message}`, 'upgrade_unavailable');
        throw err;
      }
    }
    this.publish(request.id, 'running', this.d.version, null);
    return this.view();
  }

  /**
   * Announces a finished run not announced yet (at start-up, and on a timer: a run that failed
   * before switching never restarts the daemon). Concurrent calls share one check.
   */
  announceFinished(): Promise<void> {
    this.announcing ??= this.checkFinished().finally(() => (this.announcing = null));
    return this.announcing;
  }

  /** Reads the release feed when the cached answer is older than an hour (at start-up, and by a GET that finds it so). */
  refreshLatest(): Promise<void> {
    if (this.d.feed.url === null || this.latestFresh()) return Promise.resolve();
    this.feedRead ??= this.readFeed().finally(() => (this.feedRead = null));
    return this.feedRead;
  }

  private async checkFinished(): Promise<void> {
    const found = await this.run(false);
    if (!found || upgradeInProgress(found.run.state)) return;
    const { run } = found;
    if ((await this.d.settings.get(ANNOUNCED_SETTING)) === run.id) return;
    await this.d.settings.set(ANNOUNCED_SETTING, run.id, this.d.clock.now());
    this.publish(run.id, run.state, run.fromVersion, run.toVersion);
  }

  private publish(runId: string, state: UpgradeState, fromVersion: string | null, toVersion: string | null): void {
    this.d.events.publish({ type: 'settings', allProjects: true, data: { area: 'upgrade' } });
    this.d.events.publish({ type: 'upgrade', allProjects: true, data: { runId, state, fromVersion, toVersion } });
  }

  private async view(): Promise<ServerUpgrade> {
    await this.refreshLatest();
    const found = await this.run();
    let run = found?.run ?? null;
    if (run && found && upgradeInProgress(run.state) && (await this.stale(found.changedAt))) {
      run = { ...run, state: 'failed', message: `the upgrader stopped reporting (nothing changed since ${found.changedAt}, and no upgrader process runs); see its log`, finishedAt: null };
    }
    return {
      currentVersion: this.d.version,
      available: this.d.mode !== null,
      unavailableReason: this.d.mode === null ? UNAVAILABLE_REASON : null,
      latest: this.latest?.release ?? null,
      releaseFeed: this.d.feed.url !== null,
      sources: [...this.d.sources],
      run,
    };
  }

  /** The last run, from the files and the recorded request; `changedAt` is when it last said something. */
  private async run(withLog = true): Promise<{ run: UpgradeRun; changedAt: string } | null> {
    const recorded = await this.recorded();
    // the recorded run's own lines; those of a run this daemon did not ask for, all of the tail
    const since = (id: string) => (recorded?.id === id ? recorded.logFrom : 0);
    const log = async (id: string) => (withLog ? this.log(since(id)) : []);
    const pending = await this.d.files.read('request', REQUEST_MAX_BYTES);
    if (pending) {
      // written, not taken yet
      const kv = parseKeyValues(pending.text);
      const id = valueOf(kv, 'ID') ?? recorded?.id ?? 'unknown';
      const requestedAt = timeOf(kv, 'REQUESTED_AT') ?? pending.modifiedAt;
      const from = valueOf(kv, 'FROM') ?? (recorded?.id === id ? recorded.from : null);
      return { run: this.waiting(id, from, requestedAt, 'waiting for the upgrader', await log(id)), changedAt: pending.modifiedAt };
    }
    const status = await this.d.files.read('status', STATUS_MAX_BYTES);
    const kv = status ? parseKeyValues(status.text) : null;
    const statusId = kv ? valueOf(kv, 'ID') : null;
    if (recorded && recorded.id !== statusId && (!status || Date.parse(status.modifiedAt) < Date.parse(recorded.requestedAt))) {
      // taken by the upgrader, which has not reported on it yet
      return { run: this.waiting(recorded.id, recorded.from, recorded.requestedAt, 'starting the upgrader', await log(recorded.id)), changedAt: recorded.requestedAt };
    }
    if (!status || !kv) return null;
    const id = statusId ?? 'unknown';
    const { state, message } = stateOf(kv);
    const run: UpgradeRun = {
      id,
      state,
      fromVersion: versionOf(kv, 'FROM_VERSION'),
      toVersion: versionOf(kv, 'TO_VERSION'),
      from: recorded?.id === id ? recorded.from : null,
      step: valueOf(kv, 'STEP'),
      message,
      startedAt: timeOf(kv, 'STARTED_AT'),
      finishedAt: upgradeInProgress(state) ? null : timeOf(kv, 'FINISHED_AT'),
      log: await log(id),
    };
    return { run, changedAt: status.modifiedAt };
  }

  private waiting(id: string, from: string | null, requestedAt: string, step: string, log: string[]): UpgradeRun {
    return { id, state: 'running', fromVersion: this.d.version, toVersion: null, from, step, message: null, startedAt: requestedAt, finishedAt: null, log };
  }

  private async log(since: number): Promise<string[]> {
    const file = await this.d.files.read('log', LOG_MAX_BYTES, { since });
    return file ? logLines(file.text, file.truncated, LOG_MAX_LINES) : [];
  }

  private async recorded(): Promise<RecordedRequest | null> {
    const raw = await this.d.settings.get(REQUEST_SETTING);
    if (!raw) return null;
    try {
      const r = JSON.parse(raw) as Partial<RecordedRequest>;
      if (typeof r.id !== 'string' || typeof r.from !== 'string' || typeof r.requestedAt !== 'string') return null;
      return { id: r.id, from: r.from, requestedAt: r.requestedAt, logFrom: typeof r.logFrom === 'number' && r.logFrom >= 0 ? r.logFrom : 0 };
    } catch {
      return null;
    }
  }

  /** A run that has said nothing for 30 minutes while no upgrader process runs. */
  private async stale(changedAt: string): Promise<boolean> {
    const quietMs = Date.parse(this.d.clock.now()) - Date.parse(changedAt);
    return !(quietMs < STALE_MS) && !(await this.d.files.upgraderRunning());
  }

  private latestFresh(): boolean {
    return this.latest !== null && Date.parse(this.d.clock.now()) - this.latest.at < FEED_EVERY_MS;
  }

  private async readFeed(): Promise<void> {
    const at = Date.parse(this.d.clock.now());
    try {
      const body = await this.d.feed.fetch();
      this.latest = { at, release: this.newer(body) };
    } catch (err) {
      this.latest = { at, release: null };
      this.d.log(`release feed ${this.d.feed.url}: ${err instanceof Error ? err.message : String(err)} (no newer release is shown; asked again in an hour)`);
    }
  }

  /** The feed's release when it is newer than this daemon; throws when the answer is not `{version, url}`. */
  private newer(body: unknown): LatestRelease | null {
    const b = (body ?? {}) as { version?: unknown; url?: unknown };
    if (typeof b.version !== 'string' || !isVersion(b.version)) throw new Error('the answer has no semantic "version" (expected {"version": "1.2.3", "url": "https://..."})');
    if (typeof b.url !== 'string') throw new Error('the answer has no "url"');
    const url = checkUpgradeSource(b.url, 'its url');
    const order = compareVersions(b.version, this.d.version);
    return order !== null && order > 0 ? { version: oneLine(b.version, 80), url } : null;
  }
}

function stateOf(kv: Map<string, string>): { state: UpgradeState; message: string | null } {
  const raw = valueOf(kv, 'STATE');
  const message = valueOf(kv, 'MESSAGE');
  if (raw !== null && (UPGRADE_STATES as string[]).includes(raw)) return { state: raw as UpgradeState, message: raw === 'running' ? null : message };
  const why = raw === null ? 'the upgrader reported no state' : `the upgrader reported an unknown state "${raw.slice(0, 40)}"`;
  return { state: 'failed', message: message ? `${why}: ${message}` : why };
}

function versionOf(kv: Map<string, string>, key: string): string | null {
  const v = valueOf(kv, key);
  return v === null ? null : v.slice(0, 80);
}
