// The uptime checks' scheduler as the daemon runs it: probes of the services' own endpoints through
// this host's Caddy (targets.ts), results recorded by core's rules (core/check-recorder.ts).
import type { Config } from '../config.js';
import { CheckRecorder } from '../core/check-recorder.js';
import type { Clock } from '../core/clock.js';
import type { EventSink } from '../core/events.js';
import type { Store } from '../core/ports/store.js';
import { CheckScheduler } from './scheduler.js';
import { checkProbe } from './targets.js';

export function checkScheduler(d: {
  store: Store;
  clock: Clock;
  events: EventSink;
  config: Pick<Config, 'proxyHttpAddr' | 'proxyHttpsAddr' | 'checkMinIntervalSeconds'>;
  log: (message: string, err?: unknown) => void;
}): CheckScheduler {
  return new CheckScheduler({
    store: d.store,
    recorder: new CheckRecorder({ store: d.store, clock: d.clock, events: d.events }),
    probe: checkProbe({ store: d.store, proxyHttpAddr: d.config.proxyHttpAddr, proxyHttpsAddr: d.config.proxyHttpsAddr }),
    minIntervalSeconds: d.config.checkMinIntervalSeconds,
    log: d.log,
  });
}
