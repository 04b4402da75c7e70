// Core's ExecRunner on the Docker Engine API: `attach` execs in the live container, `run` starts a
// one-off container from the live image with what the service's containers get
// (serviceContainerBase), the terminal opens a TTY exec with the first shell that exists. The live
// container's labels are checked before anything runs in it. A Swarm-backed service's command runs
// in one of its running tasks, on whichever node, through that node's Engine.
import type Docker from 'dockerode';
import { randomBytes } from 'node:crypto';
import type { ExecRunner, ExecTarget, TtySession } from '../core/ports/exec-runner.js';
import { LABEL_INSTANCE, LABEL_SERVICE } from '../docker/labels.js';
import { execLines, openTtyExec, pathExists } from '../docker/exec-stream.js';
import { runOneOff } from '../docker/one-off.js';
import { inspectOwnedSwarmService } from '../docker/swarm-services.js';
import { listTasks } from '../docker/swarm-tasks.js';
import type { DeployDeps, NodeEngineSource } from './context.js';
import { serviceContainerBase } from './service-container.js';

const SHELLS = ['/bin/bash', '/bin/sh'] as const;

type RunnerDeps = Pick<DeployDeps, 'store' | 'docker' | 'own' | 'limits' | 'filesDir' | 'swarmTasks'> & {
  /** The Engine of the node a task runs on. */
  engines: NodeEngineSource;
};

/** Why a command has no exit code, or what its exit code means (126/127: the shell's words for it). */
function explain(exitCode: number | null, argv0: string): string | undefined {
  if (exitCode === 127) return `${argv0}: command not found in the container`;
  if (exitCode === 126) return `${argv0}: not executable in the container`;
  return undefined;
}

/**
 * Where a command of `target` runs: the live container; for a Swarm-backed service, one of its
 * running tasks (one on this node first, else the lowest replica), reached through the Engine of
 * the node it runs on (swarm/node-engines.ts). Its labels must prove it this daemon's container
 * of the service before anything runs in it.
 */
async function liveContainer(d: RunnerDeps, target: ExecTarget): Promise<{ docker: Docker; id: string; image: string }> {
  const id = target.live.containerId;
  if (!id) throw new Error('the live deployment has no container');
  // a database created on another node runs there
  if (target.service.nodeId !== null) return checked(await d.engines.engine(target.service.nodeId), id, d.own.instanceId, target);
  if (!(await d.swarmTasks.isSwarmDeployment(target.live))) return checked(d.docker, id, d.own.instanceId, target);
  const self = ((await d.docker.info()) as { Swarm?: { NodeID?: string } }).Swarm?.NodeID;
  const running = (await listTasks(d.docker, id)).filter((t) => t.state === 'running' && t.desiredState === 'running' && t.containerId !== '');
  const task = running.sort((a, b) => Number(b.nodeId === self) - Number(a.nodeId === self) || a.slot - b.slot)[0];
  if (!task) throw new Error("none of the service's instances is running");
  return checked(await d.engines.engine(task.nodeId), task.containerId, d.own.instanceId, target);
}

async function checked(docker: Docker, id: string, instanceId: string, target: ExecTarget): Promise<{ docker: Docker; id: string; image: string }> {
  const info = await docker.getContainer(id).inspect();
  const labels = info.Config.Labels ?? {};
  if (labels[LABEL_INSTANCE] !== instanceId || labels[LABEL_SERVICE] !== target.service.id) throw new Error('the live container is not one this daemon made for the service');
  if (!info.State.Running) throw new Error('the live container is not running');
  return { docker, id, image: info.Image };
}

/** The live image, on this server: a Swarm-backed service's is the one its Swarm service names (pushed from here). */
async function liveImage(d: RunnerDeps, target: ExecTarget): Promise<string> {
  const id = target.live.containerId;
  if (!id || !(await d.swarmTasks.isSwarmDeployment(target.live))) return (await liveContainer(d, target)).image;
  const swarmService = await inspectOwnedSwarmService(d.docker, d.own, id, { serviceId: target.service.id });
  if (!swarmService) throw new Error("the live deployment's Swarm service is gone");
  return swarmService.image;
}

function startError(err: unknown): string {
  const msg = (err as { json?: { message?: string } }).json?.message ?? (err as Error).message;
  return `the command could not start: ${msg.replace(/^\(HTTP code \d+\)[^:]*:\s*/, '')}`;
}

export function dockerExecRunner(d: RunnerDeps): ExecRunner {
  return {
    async attach(target, argv, onLine, opts) {
      const c = await liveContainer(d, target);
      try {
        const r = await execLines(c.docker, c.id, argv, onLine, opts);
        if (r.timedOut) return { exitCode: null, error: `timed out after ${Math.round(opts.timeoutMs / 1000)} s: the command was ended` };
        if (r.aborted) return { exitCode: null, error: 'the client went away: the command was ended' };
        const why = explain(r.exitCode, argv[0]!);
        return why ? { exitCode: r.exitCode, error: why } : { exitCode: r.exitCode };
      } catch (err) {
        return { exitCode: null, error: startError(err) };
      }
    },

    async run(target, argv, onLine, opts) {
      const image = await liveImage(d, target);
      const base = await serviceContainerBase(d, target.service);
      try {
        const r = await runOneOff(
          d.docker,
          {
            name: `berth-${target.service.slug}-run-${randomBytes(4).toString('hex')}`,
            image,
            // argv exactly, as in the live container: the image's entrypoint is not put in front
            entrypoint: argv.slice(0, 1),
            cmd: argv.slice(1),
            env: base.env,
            labels: d.own.labels({ projectId: target.service.projectId, serviceId: target.service.id }),
            network: base.network,
            overlay: base.overlay,
            volumes: base.volumes,
            binds: base.binds,
            limits: base.limits,
          },
          onLine,
          opts,
        );
        if (r.timedOut) return { exitCode: null, error: `timed out after ${Math.round(opts.timeoutMs / 1000)} s: the container was stopped and removed` };
        if (r.aborted) return { exitCode: null, error: 'the client went away: the container was stopped and removed' };
        const why = explain(r.exitCode, argv[0]!);
        return why ? { exitCode: r.exitCode, error: why } : { exitCode: r.exitCode };
      } catch (err) {
        return { exitCode: null, error: startError(err) };
      }
    },

    async openTty(target, size): Promise<TtySession> {
      const c = await liveContainer(d, target);
      let shell: string | null = null;
      for (const s of SHELLS) {
        if (await pathExists(c.docker, c.id, s)) {
          shell = s;
          break;
        }
      }
      if (shell === null) throw new Error('the container has no shell (neither /bin/bash nor /bin/sh)');
      const tty = await openTtyExec(c.docker, c.id, shell, size);
      const dataFns: ((chunk: Buffer) => void)[] = [];
      const endFns: ((code: number | null) => void)[] = [];
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        void tty.exitCode().then((code) => {
          for (const fn of endFns.splice(0)) fn(code);
        });
      };
      tty.stream.on('data', (chunk: Buffer) => {
        const out = tty.strip(chunk);
        if (out.length > 0) for (const fn of dataFns) fn(out);
      });
      tty.stream.once('end', end);
      tty.stream.once('close', end);
      tty.stream.once('error', end);
      const write = (input: Buffer) => {
        if (!tty.stream.destroyed && tty.stream.writable) tty.stream.write(input);
      };
      return {
        shell,
        onData: (fn) => void dataFns.push(fn),
        onEnd: (fn) => {
          if (ended && endFns.length === 0) void tty.exitCode().then(fn);
          else endFns.push(fn);
        },
        write,
        resize: (cols, rows) => tty.resize(cols, rows),
        pause: () => void tty.stream.pause(),
        resume: () => void tty.stream.resume(),
        async close() {
          if (ended) return;
          // Ctrl-C (a foreground program), then EOF at the prompt: the shell exits. A program that
          // ignores both gets a hang-up to the shell's process group, then KILL.
          write(Buffer.from('\x03\x04'));
          await new Promise((r) => setTimeout(r, 500));
          if (!ended) await tty.hangUp();
          tty.stream.end();
          setTimeout(() => tty.stream.destroy(), 2_000).unref();
        },
      };
    },
  };
}
