// Terminal keystroke echo through the daemon (issue 32: p99 < 20 ms on loopback): a terminal
// WebSocket (shared/terminal-socket.ts, as the CLI opens it) on a live busybox container's /bin/sh;
// one keystroke at a time, timed until its echo comes back on the socket. Beside it, in alternating
// blocks, the same shell two ways without Berth: a TTY exec through the Engine API (what the daemon
// itself opens, so the difference is Berth's hop), and `docker exec -it` (it needs a terminal on
// its side: it runs under `script`, whose pseudo-terminal adds a hop of its own). 1000 columns, so
// the line never wraps and each echo is the character alone. Part of `npm run bench:ops`; alone:
// `node dist/test/bench/terminal-bench.js`.
import Docker from 'dockerode';
import { spawn } from 'node:child_process';
import type { Duplex } from 'node:stream';
import { openTerminalSocket } from '../../shared/terminal-socket.js';
import { docker } from '../helpers/docker.js';
import { type OpsDaemon, percentiles, runAlone, verdict } from './ops-daemon.js';

const KEYSTROKES = 300;
const BLOCKS = 3;
const COLS = 1000;
const TARGET_P99_MS = 20;

interface Tty {
  write(b: string): void;
  onData(fn: (chunk: Buffer) => void): void;
  close(): Promise<void>;
}

/** Times `n` keystrokes, each until its echo arrived (after the shell's prompt has settled). */
async function echoTimes(tty: Tty, n: number): Promise<number[]> {
  let seen = '';
  let waiter: (() => void) | null = null;
  tty.onData((chunk) => {
    seen += chunk.toString('latin1');
    if (waiter && seen.includes('x')) waiter();
  });
  tty.write('\n');
  await new Promise((r) => setTimeout(r, 500));
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    seen = '';
    const echoed = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no echo within 5 s (got ${JSON.stringify(seen)})`)), 5_000);
      waiter = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    const t0 = performance.now();
    tty.write('x');
    await echoed;
    times.push(performance.now() - t0);
    waiter = null;
    // a new line every 100 keystrokes keeps the shell's line short of the width
    if (i % 100 === 99) {
      tty.write('\u0015');
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return times;
}

async function berthTty(d: OpsDaemon, serviceId: string): Promise<Tty> {
  const sock = await openTerminalSocket({ baseUrl: d.url, token: d.token, serviceId, cols: COLS, rows: 24 });
  return {
    write: (b) => sock.write(Buffer.from(b)),
    onData: (fn) => sock.onData(fn),
    close: async () => sock.close(),
  };
}

async function engineTty(containerId: string): Promise<Tty> {
  const exec = await new Docker().getContainer(containerId).exec({ Cmd: ['/bin/sh'], AttachStdin: true, AttachStdout: true, AttachStderr: true, Tty: true, Env: ['TERM=xterm-256color'] });
  const stream = (await exec.start({ hijack: true, stdin: true, Tty: true })) as Duplex;
  await exec.resize({ h: 24, w: COLS });
  return {
    write: (b) => stream.write(b),
    onData: (fn) => stream.on('data', fn),
    close: async () => {
      stream.write('exit\n');
      stream.end();
    },
  };
}

function cliTty(containerId: string): Tty {
  const child = spawn('script', ['-qfc', `stty cols ${COLS} rows 24; exec docker exec -it ${containerId} /bin/sh`, '/dev/null'], { stdio: ['pipe', 'pipe', 'ignore'] });
  return {
    write: (b) => child.stdin.write(b),
    onData: (fn) => child.stdout.on('data', fn),
    close: async () => {
      child.stdin.write('exit\n');
      await new Promise((r) => setTimeout(r, 200));
      child.kill();
    },
  };
}

export async function benchTerminalEcho(d: OpsDaemon): Promise<string> {
  const { services } = await d.liveServices('terminal-bench', 1);
  const serviceId = services[0]!.id;
  const containerId = docker('ps', '-q', '--filter', `label=dev.berth.service=${serviceId}`, '--filter', 'label=dev.berth.deployment', '--filter', 'status=running').split('\n')[0]!;
  const sides: { name: string; open: () => Promise<Tty>; times: number[] }[] = [
    { name: 'through Berth', open: () => berthTty(d, serviceId), times: [] },
    { name: 'Engine API exec', open: () => engineTty(containerId), times: [] },
    { name: 'docker exec -it (under script)', open: async () => cliTty(containerId), times: [] },
  ];
  for (let block = 0; block < BLOCKS; block++) {
    for (const side of block % 2 === 0 ? sides : [...sides].reverse()) {
      const tty = await side.open();
      try {
        side.times.push(...(await echoTimes(tty, KEYSTROKES / BLOCKS)));
      } finally {
        await tty.close();
      }
    }
  }
  const [berth, ...refs] = sides.map((s) => ({ name: s.name, ...percentiles(s.times) }));
  const others = refs.map((r) => `${r.name} p50 ${r.p50.toFixed(2)} ms p99 ${r.p99.toFixed(2)} ms`).join('; ');
  return `terminal echo (${KEYSTROKES} keystrokes): through Berth p50 ${berth!.p50.toFixed(2)} ms p99 ${berth!.p99.toFixed(2)} ms (max ${berth!.max.toFixed(1)}) ${verdict(berth!.p99 < TARGET_P99_MS)} (target p99 < ${TARGET_P99_MS} ms); ${others}`;
}

if (process.argv[1]?.endsWith('terminal-bench.js')) runAlone(benchTerminalEcho);
