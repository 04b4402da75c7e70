// exec (a command in the live container), run (in a new container from the live image), shell (an
// interactive terminal over the daemon's WebSocket). exec and run print the command's output as it
// comes (stdout to stdout, stderr to stderr, control characters escaped) and end with its exit code.
import type { Command } from 'commander';
import type { ExecMode } from '../../shared/types.js';
import { openTerminalSocket } from '../../shared/terminal-socket.js';
import { CliError, CommandExit, EXIT } from './exit-codes.js';
import { globalsOf, openSession, resolveTarget, type Session } from './session.js';

async function runCommand(s: Session, ref: string, argv: string[], mode: ExecMode): Promise<never> {
  if (argv.length === 0) throw new CliError(`no command: berth ${mode === 'run' ? 'run' : 'exec'} <service> -- <command...>`, EXIT.usage);
  const service = await s.service(ref);
  const ac = new AbortController();
  // Ctrl-C ends the command on the server too (the daemon ends it when the stream closes)
  const onSigint = () => ac.abort();
  process.once('SIGINT', onSigint);
  try {
    const exit = await s.client.exec(
      service.id,
      { command: argv, mode },
      (o) => {
        if (s.out.json) s.out.event(o);
        else if (o.stream === 'stdout') s.out.line(o.line);
        else s.out.stderrLine(o.line);
      },
      ac.signal,
    );
    if (s.out.json) s.out.event(exit);
    if (exit.exitCode === null) throw new CliError(exit.error ?? 'the command ended without an exit code', EXIT.failed);
    if (exit.error && !s.out.json) s.out.info(`berth: ${exit.error}`);
    throw new CommandExit(exit.exitCode);
  } finally {
    process.off('SIGINT', onSigint);
  }
}

async function shell(cmd: Command, ref: string): Promise<never> {
  const s = openSession(cmd);
  const service = await s.service(ref);
  const { server, token, fingerprint } = resolveTarget(globalsOf(cmd));
  const stdin = process.stdin;
  const stdout = process.stdout;
  const raw = Boolean(stdin.isTTY);
  const sock = await openTerminalSocket({ baseUrl: server, token: token!, serviceId: service.id, fingerprint, cols: stdout.columns || 80, rows: stdout.rows || 24 });
  // the remote terminal's bytes as they are: a TTY is what the shell expects to draw on
  sock.onData((b) => stdout.write(b));
  const onResize = () => sock.resize(stdout.columns || 80, stdout.rows || 24);
  if (raw) {
    stdin.setRawMode(true);
    process.on('SIGWINCH', onResize);
  }
  stdin.on('data', (d: Buffer) => sock.write(d));
  // piped input: once it ends, EOF (Ctrl-D) ends the shell after what was sent
  if (!raw) stdin.once('end', () => sock.write('\x04'));
  stdin.resume();
  const closed = await new Promise<{ code: number; reason: string }>((resolve) => sock.onClose((code, reason) => resolve({ code, reason })));
  if (raw) {
    stdin.setRawMode(false);
    process.off('SIGWINCH', onResize);
  }
  stdin.pause();
  const exited = /exited with code (\d+)/.exec(closed.reason);
  if (closed.code === 1000 && exited) throw new CommandExit(Number(exited[1]));
  if (closed.code === 1000) throw new CommandExit(0);
  throw new CliError(`terminal closed: ${closed.reason || `code ${closed.code}`}`, EXIT.failed);
}

export function registerExecCommands(program: Command): void {
  program
    .command('exec')
    .description("run a command in a service's live container (with several replicas: in a running one, on any node); its output streams here and its exit code is berth's")
    .argument('<service>', 'service id, or name/slug in --project or the linked project')
    .argument('<command...>', 'the command and its arguments, after -- (argv: no shell unless you run one, e.g. -- sh -c "...")')
    .action(async (ref: string, argv: string[], _o, cmd: Command) => runCommand(openSession(cmd), ref, argv, 'attach'));

  program
    .command('run')
    .description("run a command in a new container from the service's live image (its env, network, volumes; removed afterwards)")
    .argument('<service>', 'service id, or name/slug in --project or the linked project')
    .argument('<command...>', 'the command and its arguments, after --')
    .action(async (ref: string, argv: string[], _o, cmd: Command) => runCommand(openSession(cmd), ref, argv, 'run'));

  program
    .command('shell')
    .description("an interactive shell in a service's live container (with several replicas: a running one, on any node; bash, else sh); Ctrl-D or exit ends it")
    .argument('<service>', 'service id, or name/slug in --project or the linked project')
    .action(async (ref: string, _o, cmd: Command) => shell(cmd, ref));
}
