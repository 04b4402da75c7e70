// Version and upgrades: the version this server runs, a newer release when the release feed names
// one (its bundle prefilled), and for a write key over all projects an upgrade handed to the
// installer's upgrader, which backs up Berth's state, switches, and switches back by itself when the
// new daemon is unhealthy. While a run is under way the card reads it every 2 s: the daemon
// restarts during the upgrade, so the event stream drops and requests fail for a while; the card
// says so and keeps reading. Other pages follow through the `settings` event (area `upgrade`).
import { useState } from 'react';
import { apiPath } from '../../../../../shared/api-routes.js';
import { upgradeInProgress } from '../../../../../shared/statuses.js';
import type { ServerUpgrade, UpgradeRun } from '../../../../../shared/types.js';
import { useAction, useGet } from '../../api/context';
import { ConfirmButton, ErrorNote, Field, Loading, Status } from '../../ui/kit';
import { LogView } from '../service/log-view';

type Answer = { upgrade: ServerUpgrade };

const POLL_MS = 2000;

function Outcome({ run }: { run: UpgradeRun }) {
  if (run.state === 'succeeded')
    return (
      <div className="note note-ok">
        Upgraded from {run.fromVersion ?? '?'} to {run.toVersion ?? '?'}.
      </div>
    );
  if (run.state === 'rolled_back')
    return (
      <div className="note note-warn">
        Rolled back to {run.fromVersion ?? 'the previous release'}: {run.message ?? 'no reason given'}. The previous release and its state are back and running.
      </div>
    );
  if (run.state === 'failed') return <div className="note note-error">Failed: {run.message ?? 'no reason given'}. Nothing was changed.</div>;
  return null;
}

function Progress({ run, away }: { run: UpgradeRun; away: boolean }) {
  const running = upgradeInProgress(run.state);
  return (
    <section className="stack-tight" aria-label="Upgrade progress">
      <div className="row">
        <Status value={run.state} label={run.state.replace('_', ' ')} />
        <span>
          {run.fromVersion ?? '?'} → {run.toVersion ?? '…'}
          {run.step ? (
            <span className="muted">
              {' '}
              · {running ? 'now: ' : 'last step: '}
              {run.step}
            </span>
          ) : null}
        </span>
      </div>
      {run.from ? <p className="small muted">Bundle: {run.from}</p> : null}
      {away && running ? (
        <div className="note note-info" role="status">
          The server is not answering: its daemon restarts during an upgrade. Reading again every {POLL_MS / 1000} s…
        </div>
      ) : null}
      <Outcome run={run} />
      <LogView
        lines={run.log.map((line, i) => ({ id: i, line, stream: 'stdout', createdAt: '' }))}
        label="Upgrade log"
        emptyText={running ? 'Waiting for the upgrader…' : 'The upgrader wrote nothing.'}
        height={260}
      />
    </section>
  );
}

export function UpgradeCard({ canWrite }: { canWrite: boolean }) {
  const q = useGet<Answer>(['server-upgrade'], apiPath('system.upgrade'), {
    // follows a run under way, through the daemon's restart (failed reads keep the last answer)
    refetchInterval: (query) => (query.state.data?.upgrade.run && upgradeInProgress(query.state.data.upgrade.run.state) ? POLL_MS : false),
    retry: false,
  });
  const [from, setFrom] = useState<string | null>(null);
  const u = q.data?.upgrade;
  const start = useAction<{ from: string }, Answer>('POST', apiPath('system.upgrade.start'), {
    invalidate: [['server-upgrade']],
    notifyErrors: false,
    success: 'Upgrade started',
    onSuccess: () => setFrom(null),
  });
  const source = (from ?? u?.latest?.url ?? '').trim();
  const running = u?.run ? upgradeInProgress(u.run.state) : false;
  return (
    <section className="card stack" aria-labelledby="upgrade-title">
      <h2 className="h3" id="upgrade-title">
        Version and upgrades
      </h2>
      {q.isPending ? <Loading what="the version" /> : null}
      {!u ? <ErrorNote error={q.error} /> : null}
      {u ? (
        <>
          <dl className="facts-grid">
            <div>
              <dt>Version</dt>
              <dd>Berth {u.currentVersion}</dd>
            </div>
            <div>
              <dt>Newest release</dt>
              <dd>
                {u.latest ? `A newer release ${u.latest.version} is available` : u.releaseFeed ? 'This is the newest release' : 'Not known here: no release feed is configured (BERTH_RELEASE_FEED)'}
              </dd>
            </div>
          </dl>
          {!u.available ? <div className="note note-info">Upgrades are not available here: {u.unavailableReason}.</div> : null}
          {u.available && canWrite ? (
            <>
              <Field
                label="Release bundle"
                hint={
                  u.sources.length > 0
                    ? `An https:// URL or an absolute path on the server to a release bundle (its checksum file beside it), from ${u.sources.join(' or ')}: this server takes upgrades from nowhere else (BERTH_UPGRADE_SOURCES on the server).`
                    : 'An https:// URL or an absolute path on the server to a release bundle (its checksum file beside it).'
                }
              >
                {(id) => <input id={id} value={from ?? u.latest?.url ?? ''} onChange={(e) => setFrom(e.target.value)} placeholder="https://…/berth-1.2.3.tar.gz" disabled={running} />}
              </Field>
              {u.sources.length === 0 ? (
                <div className="note note-warn">
                  This server takes no upgrade through the API yet: as root on the server, add BERTH_UPGRADE_SOURCES (the https:// address or folder your releases come from) to /etc/berth/berth.env
                  and restart berth. A key chooses when to upgrade, never what runs as root.
                </div>
              ) : null}
              <ErrorNote error={start.error} />
              <div className="row end">
                <ConfirmButton
                  label="Upgrade…"
                  title="Upgrade Berth"
                  variant="primary"
                  busy={start.isPending || running}
                  confirmLabel="Upgrade now"
                  message={
                    <div className="stack">
                      <p>
                        Berth {u.currentVersion} is upgraded from {source || 'the bundle'}. Its state (the store, its settings and secrets, Caddy's configuration) is backed up first; the new release
                        is installed beside the current one and the daemon switches to it.
                      </p>
                      <p>If the new daemon is not healthy in time, Berth switches back to {u.currentVersion} and restores the backup by itself.</p>
                      <p>Apps keep serving throughout. This page loses the server for a moment while the daemon restarts, then follows again.</p>
                    </div>
                  }
                  onConfirm={() => start.mutate({ from: source })}
                />
              </div>
            </>
          ) : null}
          {u.run ? <Progress run={u.run} away={q.isError} /> : null}
        </>
      ) : null}
    </section>
  );
}
