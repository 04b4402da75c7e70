// The uptime check's incident state machine (core/check-states.ts), pure, on a driven clock: a made-up
// sequence of results, one every interval, through nextCheckState with an incident store in memory.
// Proves: N consecutive failures open exactly one incident, more failures count on it, the first
// success resolves it; failures during a deploy never open one; a success in between resets the
// count; an incident open across a "restart" (state kept as the row keeps it) is resolved by the
// next success. Also the settings' bounds and what counts as a failure.
import { expect } from 'chai';
import { failureReason, nextCheckState, validateCheckSettings, type CheckRunState } from '../../daemon/core/check-states.js';
import type { CheckSettings } from '../../daemon/core/ports/checks.js';

interface Incident {
  startedAt: number;
  resolvedAt: number | null;
  failures: number;
}

/** Drives results at `intervalMs` from t=0; `deploying(i)` says whether a deploy is in progress at the i-th. */
function drive(results: boolean[], n: number, deploying: (i: number) => boolean = () => false, start: CheckRunState = { consecutiveFailures: 0, openIncidentId: null }) {
  let clock = 0;
  const intervalMs = 60_000;
  let state = start;
  const incidents = new Map<string, Incident>();
  const statuses: string[] = [];
  results.forEach((ok, i) => {
    clock += intervalMs;
    const next = nextCheckState(state, ok, deploying(i), n);
    let open = state.openIncidentId;
    if (next.action === 'open') {
      open = `inc-${incidents.size + 1}`;
      incidents.set(open, { startedAt: clock, resolvedAt: null, failures: next.consecutiveFailures });
    } else if (next.action === 'count' && open) {
      // an incident opened before a "restart" is not in this run's map
      const inc = incidents.get(open);
      if (inc) inc.failures = next.consecutiveFailures;
    } else if (next.action === 'resolve' && open) {
      const inc = incidents.get(open);
      if (inc) inc.resolvedAt = clock;
      open = null;
    }
    state = { consecutiveFailures: next.consecutiveFailures, openIncidentId: open };
    statuses.push(next.status);
  });
  return { state, incidents: [...incidents.values()], statuses };
}

describe('uptime check incident state machine', () => {
  it('N consecutive failures open exactly one incident; more count on it; the first success resolves it', () => {
    const r = drive([true, false, false, false, false, false, true, true], 3);
    expect(r.incidents).to.deep.equal([{ startedAt: 4 * 60_000, resolvedAt: 7 * 60_000, failures: 5 }]);
    expect(r.statuses).to.deep.equal(['up', 'down', 'down', 'down', 'down', 'down', 'up', 'up']);
    expect(r.state).to.deep.equal({ consecutiveFailures: 0, openIncidentId: null });
  });

  it('a success between failures resets the count: no incident', () => {
    expect(drive([false, false, true, false, false, true], 3).incidents).to.have.length(0);
  });

  it('failures while a deploy is in progress are recorded (down) but never open an incident', () => {
    const r = drive([true, false, false, false, false, true], 3, (i) => i >= 1 && i <= 4);
    expect(r.incidents).to.have.length(0);
    expect(r.statuses.slice(1, 5)).to.deep.equal(['down', 'down', 'down', 'down']);
  });

  it('failures that go on after the deploy count from there', () => {
    const r = drive([false, false, false, false, false], 3, (i) => i < 2);
    expect(r.incidents).to.have.length(1);
    expect(r.incidents[0]!.startedAt).to.equal(5 * 60_000);
  });

  it('an incident open across a restart (the state the row keeps) is resolved by the next success, not reopened', () => {
    const before = drive([false, false, false], 3);
    expect(before.state.openIncidentId).to.equal('inc-1');
    const after = drive([false, true], 3, () => false, before.state);
    // no new incident was opened by the failure after the restart; the success resolved the kept one
    expect(after.incidents).to.have.length(0);
    expect(after.statuses).to.deep.equal(['down', 'up']);
    expect(after.state).to.deep.equal({ consecutiveFailures: 0, openIncidentId: null });
  });

  it('failuresBeforeIncident 1 opens on the first failure', () => {
    expect(drive([false], 1).incidents).to.have.length(1);
  });

  it('what fails: an error, another status (or not 2xx/3xx when any is expected), a missing keyword', () => {
    const ok = { status: 200, responseMs: 5, error: null, keywordFound: null, certificateDaysLeft: null };
    expect(failureReason(ok, 200)).to.equal(null);
    expect(failureReason({ ...ok, status: 301 }, null)).to.equal(null);
    expect(failureReason({ ...ok, status: 404 }, null)).to.equal('status 404, expected any 2xx or 3xx');
    expect(failureReason({ ...ok, status: 500 }, 200)).to.equal('status 500, expected 200');
    expect(failureReason({ ...ok, keywordFound: false }, 200)).to.equal('keyword not found in the body');
    expect(failureReason({ ...ok, status: null, error: 'connection refused' }, 200)).to.equal('connection refused');
  });

  it('settings bounds name the field', () => {
    const s: CheckSettings = { name: 'x', target: { kind: 'port' }, path: '/', expectedStatus: 200, keyword: null, intervalSeconds: 60, timeoutSeconds: 10, failuresBeforeIncident: 3, enabled: true };
    expect(() => validateCheckSettings(s, 10)).to.not.throw();
    expect(() => validateCheckSettings({ ...s, intervalSeconds: 5 }, 10)).to.throw(/intervalSeconds/);
    expect(() => validateCheckSettings({ ...s, intervalSeconds: 5, timeoutSeconds: 1 }, 2)).to.not.throw();
    expect(() => validateCheckSettings({ ...s, timeoutSeconds: 60 }, 10)).to.throw(/timeoutSeconds: must be less than intervalSeconds/);
    expect(() => validateCheckSettings({ ...s, failuresBeforeIncident: 21 }, 10)).to.throw(/failuresBeforeIncident/);
    expect(() => validateCheckSettings({ ...s, path: 'no-slash' }, 10)).to.throw(/path/);
    expect(() => validateCheckSettings({ ...s, expectedStatus: 99 }, 10)).to.throw(/expectedStatus/);
  });
});
