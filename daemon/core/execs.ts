// One-off commands and terminal sessions in a service's containers: who may (write keys, the
// service's projects), what (argv checks), how many at once (per key and per service), how long
// and how much output, and the record of each (store `execs`, bounded per service; `exec` events).
// The runner (ports/exec-runner.ts) runs; nothing here knows Docker.
import type { ExecInput, ExecMode, ExecRecord } from '../../shared/types.js';
import { Access, visibleService } from './access.js';
import type { Clock } from './clock.js';
import { liveDeployment } from './deployment-states.js';
import { Conflict, InvalidInput, TooMany } from './errors.js';
import type { EventSink } from './events.js';
import { newId } from './ids.js';
import type { ExecEntry } from './ports/exec-repo.js';
import type { ExecOutcome, ExecRunner, ExecTarget, OnExecLine, TtySession } from './ports/exec-runner.js';
import type { Store } from './ports/store.js';

export const EXEC_LIMITS = {
  /** argv: items, characters per item, characters in all. */
  maxArgs: 256,
  maxArgChars: 8192,
  maxCommandChars: 65_536,
  /** Commands running at once per key and per service (terminals are counted apart). */
  perKey: 4,
  perService: 4,
  terminalsPerKey: 4,
  /** Output bytes streamed per command; past it one marker line, the rest dropped. */
  maxOutputBytes: 8 * 1024 * 1024,
  /** Records kept per service. */
  keepRecords: 200,
} as const;

export interface ExecsDeps {
  store: Store;
  clock: Clock;
  runner: ExecRunner;
  events: EventSink;
  /** How long one command may run (BERTH_EXEC_TIMEOUT_SECONDS). */
  timeoutMs: number;
}

/** A command admitted (checked, counted against its caps) and not yet started. */
export interface PreparedExec {
  readonly execId: string;
  /** Records the start, runs the command to its end, records the end; `signal` aborts it. */
  run(onLine: OnExecLine, signal: AbortSignal): Promise<ExecOutcome>;
  /** Gives the slot back when the command is not run after all. */
  cancel(): void;
}

/** An open terminal: its session, already recorded; the record ends when the session does. */
export interface OpenTerminal {
  readonly execId: string;
  readonly session: TtySession;
}

/** The argv rules, shared by the HTTP edge (zod) and core. */
export function argvProblem(argv: unknown): string | null {
  if (!Array.isArray(argv) || argv.length === 0) return 'command must be a non-empty array of strings (argv; for a shell: ["sh", "-c", "..."])';
  if (argv.length > EXEC_LIMITS.maxArgs) return `command has at most ${EXEC_LIMITS.maxArgs} items`;
  let total = 0;
  for (const a of argv) {
    if (typeof a !== 'string') return 'command items must be strings';
    if (a.includes('\0')) return 'command items may not contain a NUL character';
    if (a.length > EXEC_LIMITS.maxArgChars) return `command items have at most ${EXEC_LIMITS.maxArgChars} characters`;
    total += a.length;
  }
  if ((argv[0] as string).trim() === '') return 'command[0] (the program) must not be empty';
  if (total > EXEC_LIMITS.maxCommandChars) return `command has at most ${EXEC_LIMITS.maxCommandChars} characters in all`;
  return null;
}

function view(e: ExecEntry): ExecRecord {
  return { id: e.id, keyId: e.keyId, keyName: e.keyName, command: e.command, mode: e.mode, exitCode: e.exitCode, startedAt: e.startedAt, finishedAt: e.finishedAt };
}

class Counter {
  private counts = new Map<string, number>();
  get(k: string): number {
    return this.counts.get(k) ?? 0;
  }
  add(k: string, n: number): void {
    const v = this.get(k) + n;
    if (v <= 0) this.counts.delete(k);
    else this.counts.set(k, v);
  }
}

export class Execs {
  private byKey = new Counter();
  private byService = new Counter();
  private terminals = new Counter();

  constructor(private d: ExecsDeps) {}

  async list(access: Access, serviceId: string): Promise<ExecRecord[]> {
    const service = await visibleService(this.d.store, access, serviceId);
    return (await this.d.store.execs.listByService(service.id, EXEC_LIMITS.keepRecords)).map(view);
  }

  /** Checks the key, the command, the live deployment and the caps; the command is then run by `run`. */
  async prepare(access: Access, serviceId: string, input: ExecInput): Promise<PreparedExec> {
    access.requireWrite();
    const target = await this.target(access, serviceId);
    const problem = argvProblem(input.command);
    if (problem) throw new InvalidInput(problem);
    const mode: ExecMode = input.mode ?? 'attach';
    const keyId = access.key.id;
    const serviceKey = target.service.id;
    if (this.byKey.get(keyId) >= EXEC_LIMITS.perKey) throw new TooMany(`this key runs ${EXEC_LIMITS.perKey} commands already (the cap per key); wait for one to end`, 'too_many_execs');
    if (this.byService.get(serviceKey) >= EXEC_LIMITS.perService)
      throw new TooMany(`this service runs ${EXEC_LIMITS.perService} commands already (the cap per service); wait for one to end`, 'too_many_execs');
    this.byKey.add(keyId, 1);
    this.byService.add(serviceKey, 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.byKey.add(keyId, -1);
      this.byService.add(serviceKey, -1);
    };
    const execId = newId();
    return {
      execId,
      cancel: release,
      run: async (onLine, signal) => {
        try {
          await this.record(access, target, execId, input.command, mode);
          let outcome: ExecOutcome;
          try {
            const capped = capOutput(onLine, EXEC_LIMITS.maxOutputBytes);
            const opts = { timeoutMs: this.d.timeoutMs, signal };
            outcome = mode === 'run' ? await this.d.runner.run(target, input.command, capped, opts) : await this.d.runner.attach(target, input.command, capped, opts);
          } catch (err) {
            outcome = { exitCode: null, error: (err as Error).message };
          }
          await this.finish(target, execId, mode, outcome.exitCode);
          return outcome;
        } finally {
          release();
        }
      },
    };
  }

  /** Opens a TTY in the live container (a write key, the service's projects, the cap per key); recorded until it ends. */
  async terminal(access: Access, serviceId: string, size: { cols: number; rows: number }): Promise<OpenTerminal> {
    access.requireWrite();
    const target = await this.target(access, serviceId);
    const keyId = access.key.id;
    if (this.terminals.get(keyId) >= EXEC_LIMITS.terminalsPerKey) {
      throw new TooMany(`this key has ${EXEC_LIMITS.terminalsPerKey} terminals open already (the cap per key); close one first`, 'too_many_terminals');
    }
    this.terminals.add(keyId, 1);
    let session: TtySession;
    try {
      session = await this.d.runner.openTty(target, size);
    } catch (err) {
      this.terminals.add(keyId, -1);
      throw new Conflict(`no terminal: ${(err as Error).message}`, 'terminal_unavailable');
    }
    const execId = newId();
    try {
      await this.record(access, target, execId, [session.shell], 'terminal');
    } catch (err) {
      this.terminals.add(keyId, -1);
      await session.close();
      throw err;
    }
    session.onEnd((exitCode) => {
      this.terminals.add(keyId, -1);
      void this.finish(target, execId, 'terminal', exitCode).catch(() => undefined);
    });
    return { execId, session };
  }

  /** Whether the key still exists and may still see the service (an open stream or terminal ends when not). */
  async stillAllowed(access: Access, serviceId: string): Promise<boolean> {
    const key = await this.d.store.keys.get(access.key.id);
    if (!key) return false;
    return visibleService(this.d.store, new Access(key), serviceId).then(
      () => true,
      () => false,
    );
  }

  /** The checks of a terminal without opening one (a plain GET of the terminal's path: 426 when they pass). */
  async checkTerminal(access: Access, serviceId: string): Promise<void> {
    access.requireWrite();
    await visibleService(this.d.store, access, serviceId);
  }

  /** Start-up: records a stopped daemon left running end without an exit code. */
  async recover(): Promise<number> {
    const ended = await this.d.store.execs.endRunning(this.d.clock.now());
    for (const e of ended) {
      this.d.events.publish({ type: 'exec', projectId: e.projectId, data: { execId: e.id, serviceId: e.serviceId, projectId: e.projectId, mode: e.mode, status: 'ended', exitCode: null } });
    }
    return ended.length;
  }

  private async target(access: Access, serviceId: string): Promise<ExecTarget> {
    const service = await visibleService(this.d.store, access, serviceId);
    const live = await liveDeployment(this.d.store, service.id);
    if (!live || !live.containerId)
      throw new Conflict('this service has no live deployment: deploy it first (commands and terminals run in its live container or from its live image)', 'no_live_deployment');
    return { service, live };
  }

  private async record(access: Access, target: ExecTarget, id: string, command: string[], mode: ExecMode | 'terminal'): Promise<void> {
    const { service } = target;
    await this.d.store.execs.insert(
      { id, serviceId: service.id, projectId: service.projectId, keyId: access.key.id, keyName: access.key.name, command, mode, exitCode: null, startedAt: this.d.clock.now(), finishedAt: null },
      EXEC_LIMITS.keepRecords,
    );
    this.d.events.publish({ type: 'exec', projectId: service.projectId, data: { execId: id, serviceId: service.id, projectId: service.projectId, mode, status: 'running', exitCode: null } });
  }

  private async finish(target: ExecTarget, id: string, mode: ExecMode | 'terminal', exitCode: number | null): Promise<void> {
    const { service } = target;
    await this.d.store.execs.finish(id, exitCode, this.d.clock.now());
    this.d.events.publish({ type: 'exec', projectId: service.projectId, data: { execId: id, serviceId: service.id, projectId: service.projectId, mode, status: 'ended', exitCode } });
  }
}

/** Passes lines on until `maxBytes` were passed, then one marker line; the rest is dropped. */
function capOutput(onLine: OnExecLine, maxBytes: number): OnExecLine {
  let sent = 0;
  let capped = false;
  return (line, stream) => {
    if (capped) return;
    sent += Buffer.byteLength(line) + 1;
    if (sent > maxBytes) {
      capped = true;
      onLine(`[berth: the output passed ${maxBytes} bytes; the rest is not shown (the command keeps running)]`, 'stderr');
      return;
    }
    onLine(line, stream);
  };
}
