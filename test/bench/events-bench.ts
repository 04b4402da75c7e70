// The events fan-out (issue 32: p99 < 50 ms to 100 open streams): 100 `GET /api/events` streams
// held open on 5 keys (20 each, the per-key cap), then a project's name PATCHed EVENTS times, one at
// a time, 50 ms apart, after WARMUP uncounted ones; each `project` event's delivery on each stream is timed from the event's `at` (when the
// daemon published it) and, beside it, from the moment the PATCH was sent. The streams are plain
// node:http readers that only look for the new name in what arrives, so the figure is the daemon's
// (and the socket's), not a parser's. Part of `npm run bench:ops`; alone:
// `node dist/test/bench/events-bench.js`.
import { request, type ClientRequest } from 'node:http';
import { type OpsDaemon, percentiles, runAlone, verdict } from './ops-daemon.js';

const STREAMS = 100;
const PER_KEY = 20;
const EVENTS = 60;
/** Events sent first and not counted: the first few pay for JIT compilation on both sides. */
const WARMUP = 5;
const TARGET_P99_MS = 50;
const now = () => performance.timeOrigin + performance.now();

interface Stream {
  req: ClientRequest;
  /** Per awaited name: when its event's data line had arrived whole, and the event's own `at`. */
  seen: Map<string, { got: number; at: number }>;
}

function openStream(url: string, token: string): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const s: Stream = { req: request(`${url}/api/events`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } }), seen: new Map() };
    let partial = '';
    s.req.on('response', (res) => {
      if (res.statusCode !== 200) return reject(new Error(`GET /api/events answered ${res.statusCode}`));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const got = now();
        const lines = (partial + chunk).split('\n');
        partial = lines.pop()!;
        for (const line of lines) {
          const name = /^data: .*"name":"(bench-ev-\d+)"/.exec(line)?.[1];
          if (name) s.seen.set(name, { got, at: Date.parse((JSON.parse(line.slice(6)) as { at: string }).at) });
        }
      });
      resolve(s);
    });
    s.req.on('error', reject);
    s.req.end();
  });
}

export async function benchEventsFanout(d: OpsDaemon): Promise<string> {
  const { project } = await d.client.createProject({ name: `events-bench-${Date.now()}` });
  const streams: Stream[] = [];
  try {
    for (let k = 0; k < STREAMS / PER_KEY; k++) {
      const { token } = await d.client.createKey({ name: `events bench ${k}`, access: 'read', projects: 'all' });
      for (let i = 0; i < PER_KEY; i++) streams.push(await openStream(d.url, token));
    }
    await new Promise((r) => setTimeout(r, 500));
    const fromAt: number[] = [];
    const fromSend: number[] = [];
    for (let i = -WARMUP; i < EVENTS; i++) {
      const name = `bench-ev-${i + WARMUP}`;
      const sent = now();
      await d.client.patchProject(project.id, { name });
      const deadline = Date.now() + 5_000;
      while (streams.some((s) => !s.seen.has(name))) {
        if (Date.now() > deadline) throw new Error(`event ${i} reached ${streams.filter((s) => s.seen.has(name)).length} of ${STREAMS} streams in 5 s`);
        await new Promise((r) => setTimeout(r, 2));
      }
      if (i < 0) continue;
      for (const s of streams) {
        const { got, at } = s.seen.get(name)!;
        fromSend.push(got - sent);
        fromAt.push(got - at);
      }
      if (process.env.BENCH_EVENTS_DEBUG) {
        const mine = streams.map((x) => x.seen.get(name)!);
        console.log(
          `event ${i}: send->at ${(mine[0]!.at - sent).toFixed(1)} ms, at->first ${(Math.min(...mine.map((m) => m.got)) - mine[0]!.at).toFixed(1)}, at->last ${(Math.max(...mine.map((m) => m.got)) - mine[0]!.at).toFixed(1)}`,
        );
      }
      // a pause between events, as between user actions (the daemon's stream re-check after a write runs meanwhile)
      await new Promise((r) => setTimeout(r, 50));
    }
    const a = percentiles(fromAt);
    const s = percentiles(fromSend);
    return `events fan-out to ${STREAMS} streams: ${fromAt.length} deliveries, from the event's at p50 ${a.p50.toFixed(1)} ms p99 ${a.p99.toFixed(1)} ms (max ${a.max.toFixed(1)}) ${verdict(a.p99 < TARGET_P99_MS)} (target p99 < ${TARGET_P99_MS} ms); from the PATCH sent p50 ${s.p50.toFixed(1)} ms p99 ${s.p99.toFixed(1)} ms`;
  } finally {
    for (const s of streams) s.req.destroy();
    await d.client.deleteProject(project.id).catch(() => undefined);
  }
}

if (process.argv[1]?.endsWith('events-bench.js')) runAlone(benchEventsFanout);
