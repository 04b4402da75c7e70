// How a node's Docker words read in the console: a tone per state and availability, and the
// labels as `key=value` text (the form the CLI and the placement settings use too).
import type { NodeAvailability, NodeState } from '../../../../../shared/types/swarm.js';

type Tone = 'ok' | 'warn' | 'bad' | 'muted' | 'info';

export const STATE_TONE: Record<NodeState, Tone> = { ready: 'ok', down: 'bad', disconnected: 'bad', unknown: 'muted' };
export const AVAILABILITY_TONE: Record<NodeAvailability, Tone> = { active: 'ok', pause: 'warn', drain: 'warn' };

/** A task's or container's state: running is good, failed/rejected bad, the rest on the way. */
export function instanceTone(state: string): Tone {
  if (state === 'running') return 'ok';
  if (['failed', 'rejected', 'orphaned', 'dead', 'exited'].includes(state)) return 'bad';
  if (['shutdown', 'complete', 'remove'].includes(state)) return 'muted';
  return 'info';
}

export function labelsText(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
}

/** `a=1 b=2` (spaces or commas between pairs) as labels; the first pair without a name is the error. */
export function parseLabels(text: string): { labels: Record<string, string> } | { error: string } {
  const labels: Record<string, string> = {};
  for (const pair of text.split(/[\s,]+/).filter(Boolean)) {
    const at = pair.indexOf('=');
    if (at <= 0) return { error: `${pair} is not key=value` };
    labels[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return { labels };
}

export function Badge({ tone, children }: { tone: Tone; children: string }) {
  return (
    <span className={`badge tone-${tone}`}>
      <span className="dot" aria-hidden="true" />
      {children}
    </span>
  );
}
