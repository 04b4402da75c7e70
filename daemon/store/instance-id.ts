// This daemon's instance id: made once, kept in the settings. Every Docker object Berth creates
// carries it (docker/labels.ts), so two daemons on one Engine never touch each other's objects.
import { systemClock } from '../core/clock.js';
import { newId } from '../core/ids.js';
import type { Store } from '../core/ports/store.js';

export async function instanceId(store: Store): Promise<string> {
  const existing = await store.settings.get('instanceId');
  if (existing) return existing;
  const id = newId();
  await store.settings.set('instanceId', id, systemClock.now());
  return id;
}
