// The health check a Swarm task runs inside its container, so that a rolling update (start-first)
// stops an old task only once the new one ANSWERS, not merely once its process started: without
// one, Swarm counts a task ready at once, and an app that needs seconds to boot leaves no task
// answering (Caddy's pool goes empty) while the update moves on. The check needs a program in the
// image that can open a connection; which one is found by asking the image once (a one-off
// container on the manager, cached by image id). An image with a HEALTHCHECK of its own keeps it;
// an image with no shell or no such program gets none, and the log says what that means.
import type Docker from 'dockerode';
import type { Labels } from './labels.js';
import { runOneOff } from './one-off.js';

interface TaskHealthCheck {
  /** Docker's HealthConfig.Test (`CMD-SHELL`, the command). */
  test: string[];
  /** Which program checks, for the deploy log. */
  tool: string;
}

export type TaskHealth = { kind: 'own' } | { kind: 'check'; check: TaskHealthCheck } | { kind: 'none'; reason: string };

/** Programs that can check a port, best first: an HTTP answer of any status for a web service, an accepted connection otherwise. */
const TOOLS = ['curl', 'wget', 'nc', 'bash', 'node', 'python3'] as const;
type Tool = (typeof TOOLS)[number];
/** curl and wget speak HTTP; a port that is not HTTP is checked by a connection only. */
const TCP_TOOLS: readonly Tool[] = ['nc', 'bash', 'node', 'python3'];

function command(tool: Tool, port: number): string {
  const url = `http://127.0.0.1:${port}/`;
  switch (tool) {
    case 'curl':
      // exit 0 on any HTTP status (no -f); 7 when nothing listens
      return `curl -s -o /dev/null --max-time 2 ${url}`;
    case 'wget':
      // busybox and GNU wget print the status line of any answer with -S; a refused connection has none (no -T: Debian's static busybox crashes on it; Docker's Timeout ends a hung check)
      return `wget -S -O /dev/null ${url} 2>&1 | grep -q 'HTTP/'`;
    case 'nc':
      return `nc -w 2 127.0.0.1 ${port} </dev/null`;
    case 'bash':
      return `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port}'`;
    case 'node':
      return `node -e "require('net').connect(${port},'127.0.0.1').on('connect',()=>process.exit(0)).on('error',()=>process.exit(1))"`;
    case 'python3':
      return `python3 -c "import socket;socket.create_connection(('127.0.0.1',${port}),2)"`;
  }
}

/** What the image offers, by image id: the discovery runs once per image. */
const found = new Map<string, Tool[] | null>();
const FOUND_LIMIT = 200;

/** The programs of TOOLS the image has; null when it has no shell to ask with. */
async function toolsOf(docker: Docker, image: string, imageId: string, labels: Labels): Promise<Tool[] | null> {
  const known = found.get(imageId);
  if (known !== undefined) return known;
  const out: string[] = [];
  let tools: Tool[] | null;
  try {
    const r = await runOneOff(
      docker,
      {
        name: `berth-probe-tools-${imageId.replace(/^sha256:/, '').slice(0, 12)}-${Date.now().toString(36)}`,
        image,
        entrypoint: ['/bin/sh'],
        cmd: ['-c', `for t in ${TOOLS.join(' ')}; do command -v "$t" >/dev/null 2>&1 && echo "$t"; done; true`],
        env: {},
        labels,
        network: 'none',
        limits: { memoryMb: 64, cpus: 0.5, pids: 32 },
      },
      (line) => out.push(line.trim()),
      { timeoutMs: 15_000 },
    );
    tools = r.exitCode === 0 ? TOOLS.filter((t) => out.includes(t)) : null;
  } catch {
    // no /bin/sh in the image (the container could not start)
    tools = null;
  }
  if (found.size >= FOUND_LIMIT) found.delete(found.keys().next().value!);
  found.set(imageId, tools);
  return tools;
}

/** The health check a task of `image` gets, listening on `port` (null: no port, nothing to check). */
export async function taskHealth(docker: Docker, image: string, port: number | null, kind: 'http' | 'tcp', labels: Labels): Promise<TaskHealth> {
  if (port === null) return { kind: 'none', reason: 'the service has no port to check' };
  const info = (await docker.getImage(image).inspect()) as { Id: string; Config?: { Healthcheck?: { Test?: string[] } } };
  const own = info.Config?.Healthcheck?.Test;
  if (own && own.length > 0 && own[0] !== 'NONE') return { kind: 'own' };
  const tools = await toolsOf(docker, image, info.Id, labels);
  if (tools === null) return { kind: 'none', reason: 'the image has no /bin/sh to run a check with' };
  const usable = kind === 'http' ? TOOLS : TCP_TOOLS;
  const tool = tools.find((t) => usable.includes(t));
  if (!tool) return { kind: 'none', reason: `the image has none of ${usable.join(', ')} to check its port with` };
  return { kind: 'check', check: { test: ['CMD-SHELL', command(tool, port)], tool } };
}
