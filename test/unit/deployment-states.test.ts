import { expect } from 'chai';
import type { DeploymentStatus } from '../../shared/types.js';
import { DEPLOYMENT_STATUSES, INITIAL_STATUS, isFinal, isLive, predecessorsOf, serviceStatusAfterFailure, transition, TRANSITIONS } from '../../daemon/core/deployment-states.js';
import { Conflict, IllegalTransition } from '../../daemon/core/errors.js';
import type { DeploymentRecord } from '../../daemon/core/records.js';

// The moves the deployment code makes today, and DESIGN.md's "Status values", written out once
// more here on purpose: the table must say exactly this.
const ALLOWED: [DeploymentStatus, DeploymentStatus][] = [
  ['queued', 'building'],
  ['queued', 'superseded'],
  ['queued', 'aborted'],
  ['queued', 'failed'],
  ['building', 'running'],
  ['building', 'failed'],
  ['building', 'aborted'],
  ['running', 'superseded'],
  ['running', 'failed'],
];
const ALL: DeploymentStatus[] = ['queued', 'building', 'running', 'superseded', 'failed', 'aborted'];
const allowed = (from: DeploymentStatus, to: DeploymentStatus) => ALLOWED.some(([f, t]) => f === from && t === to);

function deployment(status: DeploymentStatus, containerId: string | null = 'c'): DeploymentRecord {
  return {
    id: `d-${status}`,
    serviceId: 's',
    commitSha: null,
    status,
    trigger: 'manual',
    imageTag: null,
    containerName: null,
    startedAt: null,
    finishedAt: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    branch: null,
    containerId,
    upstreamPort: null,
    buildMethod: null,
  };
}

describe('deployment state table', () => {
  it('knows every deployment status and starts at queued', () => {
    expect([...DEPLOYMENT_STATUSES].sort()).to.deep.equal([...ALL].sort());
    expect(INITIAL_STATUS).to.equal('queued');
  });

  it('accepts every allowed move', () => {
    for (const [from, to] of ALLOWED) expect(transition(from, to), `${from} -> ${to}`).to.equal(to);
  });

  it('refuses every other move with a typed IllegalTransition (a 409 illegal_transition)', () => {
    let refused = 0;
    for (const from of ALL) {
      for (const to of ALL) {
        if (allowed(from, to)) continue;
        let caught: unknown = null;
        try {
          transition(from, to, 'dep-1');
        } catch (err) {
          caught = err;
        }
        expect(caught, `${from} -> ${to}`).to.be.instanceOf(IllegalTransition).and.instanceOf(Conflict);
        const err = caught as IllegalTransition;
        expect([err.from, err.to, err.code, err.status]).to.deep.equal([from, to, 'illegal_transition', 409]);
        expect(err.message).to.equal(`deployment dep-1 is ${from}; it cannot become ${to}`);
        refused++;
      }
    }
    expect(refused).to.equal(ALL.length * ALL.length - ALLOWED.length);
  });

  it('keeps superseded, failed and aborted final; queued, building and running are not', () => {
    for (const s of ['superseded', 'failed', 'aborted'] as const) {
      expect(isFinal(s), s).to.equal(true);
      expect(TRANSITIONS[s]).to.deep.equal([]);
      for (const to of ALL) expect(() => transition(s, to), `${s} -> ${to}`).to.throw(IllegalTransition);
    }
    for (const s of ['queued', 'building', 'running'] as const) expect(isFinal(s), s).to.equal(false);
    // no status moves to itself, and nothing moves back to queued
    for (const s of ALL) expect(() => transition(s, s)).to.throw(IllegalTransition);
    expect(predecessorsOf('queued')).to.deep.equal([]);
  });

  it('names the predecessors a conditional write accepts', () => {
    expect(predecessorsOf('building')).to.deep.equal(['queued']);
    expect(predecessorsOf('running')).to.deep.equal(['building']);
    expect([...predecessorsOf('superseded')].sort()).to.deep.equal(['queued', 'running']);
    expect([...predecessorsOf('failed')].sort()).to.deep.equal(['building', 'queued', 'running']);
    expect([...predecessorsOf('aborted')].sort()).to.deep.equal(['building', 'queued']);
  });

  it('calls live only a running deployment with a container', () => {
    expect(isLive(deployment('running'))).to.equal(true);
    expect(isLive(deployment('running', null))).to.equal(false);
    for (const s of ALL.filter((x) => x !== 'running')) expect(isLive(deployment(s)), s).to.equal(false);
  });

  it('derives the service status after a failure: building, else active while one is live, else failed', () => {
    expect(serviceStatusAfterFailure([deployment('failed'), deployment('building')])).to.deep.equal({ status: 'building', live: false });
    expect(serviceStatusAfterFailure([deployment('building'), deployment('running')])).to.deep.equal({ status: 'building', live: true });
    expect(serviceStatusAfterFailure([deployment('failed'), deployment('running')])).to.deep.equal({ status: 'active', live: true });
    expect(serviceStatusAfterFailure([deployment('failed'), deployment('superseded'), deployment('aborted')])).to.deep.equal({ status: 'failed', live: false });
    expect(serviceStatusAfterFailure([])).to.deep.equal({ status: 'failed', live: false });
  });
});
