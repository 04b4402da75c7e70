// The meaning of each status (shared/statuses.ts, read by the daemon, the console, the desktop app
// and the CLI) agrees with the daemon's state table (core/deployment-states.ts), which stays the
// authority on which status may follow which.
import { expect } from 'chai';
import {
  DEPLOYMENT_STATUS_MEANING,
  DEPLOYMENT_STATUSES,
  deploymentFinal,
  deploymentInProgress,
  deploymentOver,
  deploymentSucceeded,
  IN_PROGRESS_DEPLOYMENT_STATUSES,
  jobInProgress,
  LIVE_DEPLOYMENT_STATUS,
  OVER_DEPLOYMENT_STATUSES,
  statusTone,
  worstServiceStatus,
} from '../../shared/statuses.js';
import { INITIAL_STATUS, predecessorsOf, TRANSITIONS } from '../../daemon/core/deployment-states.js';
import type { DeploymentStatus } from '../../shared/types.js';

/** Every status reachable from `from` by the table's moves (itself included). */
function reachable(from: DeploymentStatus): Set<DeploymentStatus> {
  const seen = new Set<DeploymentStatus>([from]);
  const todo = [from];
  while (todo.length > 0) {
    for (const next of TRANSITIONS[todo.pop()!]) {
      if (seen.has(next)) continue;
      seen.add(next);
      todo.push(next);
    }
  }
  return seen;
}

describe('status meanings agree with the deployment state table', () => {
  it('names the same statuses as the table', () => {
    expect([...DEPLOYMENT_STATUSES].sort()).to.deep.equal(Object.keys(TRANSITIONS).sort());
  });

  it('a status is final exactly when the table allows no move out of it', () => {
    for (const s of DEPLOYMENT_STATUSES) expect(deploymentFinal(s), s).to.equal(TRANSITIONS[s].length === 0);
  });

  it('in progress is exactly what may still be aborted, and the initial status is in progress', () => {
    expect([...IN_PROGRESS_DEPLOYMENT_STATUSES].sort()).to.deep.equal(predecessorsOf('aborted').sort());
    expect(deploymentInProgress(INITIAL_STATUS)).to.equal(true);
  });

  it('the live status is the one that can go live only from building and be superseded', () => {
    expect(LIVE_DEPLOYMENT_STATUS).to.equal('running');
    expect(DEPLOYMENT_STATUS_MEANING[LIVE_DEPLOYMENT_STATUS].live).to.equal(true);
    expect(DEPLOYMENT_STATUSES.filter((s) => DEPLOYMENT_STATUS_MEANING[s].live)).to.deep.equal([LIVE_DEPLOYMENT_STATUS]);
    expect(predecessorsOf(LIVE_DEPLOYMENT_STATUS)).to.deep.equal(['building']);
  });

  it('a deployment succeeded when it is live or was replaced by a newer one: both are what follows the live status without failing', () => {
    const fromLive = TRANSITIONS[LIVE_DEPLOYMENT_STATUS].filter((s) => s !== 'failed');
    expect(DEPLOYMENT_STATUSES.filter(deploymentSucceeded).sort()).to.deep.equal([LIVE_DEPLOYMENT_STATUS, ...fromLive].sort());
    expect(DEPLOYMENT_STATUSES.filter(deploymentSucceeded)).to.not.include.members(['failed', 'aborted']);
  });

  it('over is live or final, and every in-progress status can still reach an over one', () => {
    for (const s of DEPLOYMENT_STATUSES) expect(deploymentOver(s), s).to.equal(deploymentFinal(s) || s === LIVE_DEPLOYMENT_STATUS);
    expect([...OVER_DEPLOYMENT_STATUSES].sort()).to.deep.equal(['aborted', 'failed', 'running', 'superseded']);
    for (const s of IN_PROGRESS_DEPLOYMENT_STATUSES) expect([...reachable(s)].some(deploymentOver), s).to.equal(true);
  });
});

describe('service and job status meanings', () => {
  it('a failed service speaks for its group before a building one, and that before an active one', () => {
    expect(worstServiceStatus(['active', 'building', 'idle'])).to.equal('building');
    expect(worstServiceStatus(['building', 'failed', 'active'])).to.equal('failed');
    expect(worstServiceStatus(['idle', 'active'])).to.equal('active');
    expect(worstServiceStatus([])).to.equal(null);
    expect(worstServiceStatus(['no-such-status'])).to.equal(null);
  });

  it('a backup or an import is in progress only while running', () => {
    expect(jobInProgress('running')).to.equal(true);
    expect(jobInProgress('succeeded')).to.equal(false);
    expect(jobInProgress('failed')).to.equal(false);
  });

  it('gives every status the badge tone the console showed before', () => {
    const before: Record<string, string> = { active: 'ok', running: 'ok', succeeded: 'ok', idle: 'muted', queued: 'info', building: 'info', superseded: 'muted', aborted: 'warn', failed: 'bad' };
    for (const [status, tone] of Object.entries(before)) expect(statusTone(status), status).to.equal(tone);
    expect(statusTone('something-new')).to.equal('muted');
    expect(statusTone('toString')).to.equal('muted');
  });
});
