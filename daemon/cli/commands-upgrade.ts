// `berth server version` (the version the server runs, and a newer release when its feed names one)
// and `berth server upgrade --from <bundle>`: says what will happen, asks unless --yes, hands the
// bundle to the server's upgrader (POST /api/system/upgrade), then follows the run every second,
// printing the upgrader's new log lines and each step, through the daemon's own restart (the API is
// away for a while: retried quietly for up to 3 minutes), to the outcome: `upgraded from X to Y`
// (exit 0), `rolled back to X: why` or `failed: why` (exit 1).
import type { Command } from 'commander';
import { ApiError } from '../../shared/client.js';
import { upgradeInProgress } from '../../shared/statuses.js';
import type { ServerUpgrade, UpgradeRun } from '../../shared/types.js';
import { confirm } from './confirm.js';
import { CliError, EXIT, isNetworkError } from './exit-codes.js';
import { openSession, type Session } from './session.js';

const POLL_MS = 1_000;
/** How long the API may stay away (the daemon restarting) before the CLI gives up following. */
const AWAY_MAX_MS = 3 * 60_000;
/** How long a run is followed at most. */
const FOLLOW_MAX_MS = 60 * 60_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The lines of `now` after those already seen in `before` (the log is a moving window of the last 200 lines). */
function newLogLines(before: readonly string[], now: readonly string[]): string[] {
  for (let start = Math.max(0, before.length - now.length); start < before.length; start++) {
    const overlap = before.length - start;
    let same = true;
    for (let i = 0; i < overlap && same; i++) same = before[start + i] === now[i];
    if (same) return now.slice(overlap);
  }
  return now.slice();
}

function versionLines(u: ServerUpgrade): string {
  const rows: [string, string][] = [['version', u.currentVersion]];
  if (u.latest) rows.push(['newer', `${u.latest.version} is available: berth server upgrade --from ${u.latest.url}`]);
  rows.push(['upgrades', u.available ? 'available (berth server upgrade --from <bundle URL or path>)' : `not available: ${u.unavailableReason ?? 'no upgrader'}`]);
  if (u.available) rows.push(['from', u.sources.length > 0 ? u.sources.join(' ') : 'nowhere yet: set BERTH_UPGRADE_SOURCES in /etc/berth/berth.env on the server (root)']);
  if (u.run)
    rows.push(['last run', `${u.run.state} ${u.run.fromVersion ?? '?'} -> ${u.run.toVersion ?? '?'}${u.run.finishedAt ? ` at ${u.run.finishedAt}` : ''}${u.run.message ? `: ${u.run.message}` : ''}`]);
  return rows.map(([k, v]) => `${k.padEnd(10)}${v}`).join('\n');
}

async function version(s: Session): Promise<void> {
  try {
    const { upgrade } = await s.client.serverUpgrade();
    s.out.result(upgrade, () => versionLines(upgrade));
  } catch (err) {
    // a key over some projects does not see upgrades: the version is public
    if (!(err instanceof ApiError && err.status === 403)) throw err;
    const { version: v } = await s.client.health();
    s.out.result({ currentVersion: v }, () => `version   ${v}`);
  }
}

/** GET, with the API allowed to be away for a while (the daemon restarts during an upgrade). */
async function poll(s: Session, awaySince: { at: number | null }): Promise<ServerUpgrade | null> {
  try {
    const { upgrade } = await s.client.serverUpgrade();
    awaySince.at = null;
    return upgrade;
  } catch (err) {
    if (!isNetworkError(err)) throw err;
    awaySince.at ??= Date.now();
    if (Date.now() - awaySince.at > AWAY_MAX_MS) throw err;
    s.out.progress('the server is not answering (its daemon restarts during an upgrade): retrying');
    return null;
  }
}

function outcome(run: UpgradeRun): { text: string; ok: boolean } {
  if (run.state === 'succeeded') return { text: `upgraded from ${run.fromVersion ?? '?'} to ${run.toVersion ?? '?'}`, ok: true };
  if (run.state === 'rolled_back') return { text: `rolled back to ${run.fromVersion ?? 'the previous release'}: ${run.message ?? 'no reason given'}`, ok: false };
  return { text: `failed: ${run.message ?? 'no reason given'}`, ok: false };
}

async function upgrade(s: Session, from: string): Promise<void> {
  const { upgrade: before } = await s.client.serverUpgrade();
  if (!before.available) throw new CliError(`upgrades are not available on ${s.server}: ${before.unavailableReason ?? 'no upgrader'}`);
  s.out.warn(
    `${s.server} runs Berth ${before.currentVersion}; upgrading from ${from}: Berth's state is backed up first, the new release is installed beside the current one and the daemon ` +
      `switches to it; if the new daemon is not healthy in time, it switches back to ${before.currentVersion} and restores the backup by itself. ` +
      'Apps keep serving throughout; the API is away for a moment while the daemon restarts.',
  );
  await confirm(s, `upgrade Berth on ${s.server}`, 'nothing was changed');
  const started = (await s.client.startServerUpgrade(from)).upgrade;
  const id = started.run?.id;
  if (!id) throw new CliError('the server accepted the upgrade but reports no run');
  if (s.out.json) s.out.event({ type: 'started', run: started.run });
  else s.out.info(`upgrade ${id} started: following it (Ctrl-C stops following, not the upgrade)`);
  // the run is new: every line of its log is shown, those written before the answer came too
  let seen: readonly string[] = [];
  let step = started.run?.step ?? null;
  const awaySince = { at: null as number | null };
  const until = Date.now() + FOLLOW_MAX_MS;
  for (;;) {
    await sleep(POLL_MS);
    if (Date.now() > until) throw new CliError(`the upgrade did not end within ${FOLLOW_MAX_MS / 60_000} minutes; berth server version shows how it stands`);
    const now = await poll(s, awaySince);
    const run = now?.run;
    if (!run || run.id !== id) continue;
    for (const line of newLogLines(seen, run.log)) {
      if (s.out.json) s.out.event({ type: 'log', line });
      else s.out.line(line);
    }
    seen = run.log;
    if (run.step !== step && run.step !== null) {
      step = run.step;
      if (s.out.json) s.out.event({ type: 'step', step });
      else s.out.info(`step: ${step}`);
    }
    if (upgradeInProgress(run.state)) continue;
    const end = outcome(run);
    // a bad end is the error line (stderr, exit 1); --json prints the result first either way
    if (end.ok || s.out.json) s.out.result({ type: 'result', run, currentVersion: now.currentVersion }, () => end.text);
    if (!end.ok) throw new CliError(end.text, EXIT.failed);
    return;
  }
}

export function registerServerUpgradeCommands(server: Command): void {
  server
    .command('version')
    .description('the version of Berth the server runs, and a newer release when its release feed names one')
    .action(async (_o, cmd: Command) => {
      await version(openSession(cmd));
    });
  server
    .command('upgrade')
    .description('upgrade Berth on the server (a write key over all projects): state backed up first, rolled back by itself if the new daemon is not healthy; asks unless --yes')
    .requiredOption('--from <bundle>', 'the release bundle: an https:// URL, or an absolute path on the server')
    .action(async (o: { from: string }, cmd: Command) => {
      await upgrade(openSession(cmd), o.from);
    });
}
