// `npm run bench:ops`: issue 32's hot-path lines that are not a backup, in one run against one
// child daemon with its own Caddy (ops-daemon.ts): the events fan-out to 100 open streams, terminal
// keystroke echo, and a scheduled job's start latency after its minute. Each line prints its figures
// and PASS/MISS; the process exits 1 when a line MISSes. Each file also runs alone.
import { benchEventsFanout } from './events-bench.js';
import { benchJobStart } from './job-start-bench.js';
import { type OpsDaemon, startOpsDaemon } from './ops-daemon.js';
import { benchTerminalEcho } from './terminal-bench.js';

const lines: string[] = [];
let d: OpsDaemon | null = null;
try {
  d = await startOpsDaemon();
  for (const bench of [benchEventsFanout, benchTerminalEcho, benchJobStart]) {
    const line = await bench(d);
    console.log(line);
    lines.push(line);
  }
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  await d?.stop().catch((err: unknown) => console.error(err));
}
if (lines.some((l) => /\bMISS\b/.test(l))) process.exitCode = 1;
