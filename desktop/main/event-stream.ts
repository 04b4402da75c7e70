// One `/api/events` stream to one server, held by the main process: reconnects with jittered
// exponential backoff and Last-Event-ID, drops a connection that stays silent past the heartbeat
// timeout (the daemon pings every 15 s), reconnects at once when asked (resume from sleep), and
// reports the server offline "since" the first failure, never connected while it is not.
import { readSse, SSE_SMALL_EVENT_CHARS } from '../../shared/sse.js';
import type { ReceivedEvent } from '../../shared/events.js';
import type { FetchLike } from '../../shared/pinned-tls.js';
import { connectionError } from './connection.js';

/** One message of a server's /api/events stream: `event` is a DaemonEventType or `reset` (shared/events.ts), `data` its parsed payload. */
export interface StreamEventMessage {
  event: ReceivedEvent['event'] | (string & {});
  data: unknown;
  id?: string;
}

export interface ConnectionState {
  status: 'connecting' | 'online' | 'offline';
  /** When the server went offline (ms since epoch); set while offline. */
  since?: number;
  error?: string;
}

export interface EventStreamOptions {
  url: string;
  key: () => string | undefined;
  fetch: FetchLike;
  onEvent(e: StreamEventMessage): void;
  onState(s: ConnectionState): void;
  heartbeatMs?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  random?: () => number;
  now?: () => number;
}

/** Full jitter: a random delay up to base·2^attempt, capped. */
function backoffDelay(attempt: number, baseMs: number, maxMs: number, random: () => number): number {
  return Math.round(random() * Math.min(maxMs, baseMs * 2 ** attempt)) + 100;
}

export class EventStream {
  state: ConnectionState = { status: 'connecting' };
  lastEventId: string | undefined;
  /** Connections opened so far (a resume shows as one more). */
  connects = 0;
  private attempt = 0;
  private controller: AbortController | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private stopped = true;
  private generation = 0;

  constructor(private readonly o: EventStreamOptions) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.run(++this.generation);
  }

  stop(): void {
    this.stopped = true;
    this.generation++;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.controller?.abort();
  }

  /** Drop whatever is under way and connect now (after sleep/resume, or a network change). */
  reconnectNow(): void {
    if (this.stopped) return;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.attempt = 0;
    this.controller?.abort();
    void this.run(++this.generation);
  }

  private setState(s: ConnectionState): void {
    this.state = s;
    this.o.onState(s);
  }

  private markOffline(error: string): void {
    const now = (this.o.now ?? Date.now)();
    const since = this.state.status === 'offline' ? this.state.since! : now;
    this.setState({ status: 'offline', since, error });
  }

  private async run(gen: number): Promise<void> {
    const controller = new AbortController();
    this.controller = controller;
    const heartbeatMs = this.o.heartbeatMs ?? 45_000;
    let heartbeat: NodeJS.Timeout | null = null;
    let timedOut = false;
    const beat = () => {
      if (heartbeat) clearTimeout(heartbeat);
      heartbeat = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, heartbeatMs);
    };
    let error = 'the connection closed';
    try {
      const key = this.o.key();
      if (!key) throw new Error('no key stored for this server');
      beat();
      this.connects++;
      const res = await this.o.fetch(`${this.o.url}/api/events`, {
        headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream', ...(this.lastEventId ? { 'last-event-id': this.lastEventId } : {}) },
        signal: controller.signal,
      });
      if (res.status === 401 || res.status === 403) throw new Error('the server refused the stored key');
      if (!res.ok || !res.body) throw new Error(`the server answered HTTP ${res.status}`);
      if (gen !== this.generation) return;
      this.attempt = 0;
      this.setState({ status: 'online' });
      // events here are small (ids, statuses): a larger one is a hostile or broken server
      for await (const e of readSse(res.body as ReadableStream<Uint8Array>, { maxEventChars: SSE_SMALL_EVENT_CHARS })) {
        beat();
        if (gen !== this.generation) return;
        if (e.id !== undefined) this.lastEventId = e.id;
        let data: unknown = e.data;
        try {
          data = JSON.parse(e.data);
        } catch {
          // not JSON: passed on as text
        }
        this.o.onEvent({ event: e.event, data, ...(e.id !== undefined ? { id: e.id } : {}) });
      }
    } catch (err) {
      error = timedOut ? `no heartbeat for ${heartbeatMs >= 1000 ? `${Math.round(heartbeatMs / 1000)} s` : `${heartbeatMs} ms`}` : connectionError(err);
    } finally {
      if (heartbeat) clearTimeout(heartbeat);
    }
    if (gen !== this.generation || this.stopped) return;
    this.markOffline(error);
    const delay = backoffDelay(this.attempt++, this.o.backoffBaseMs ?? 1000, this.o.backoffMaxMs ?? 30_000, this.o.random ?? Math.random);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (gen === this.generation && !this.stopped) void this.run(++this.generation);
    }, delay);
  }
}
