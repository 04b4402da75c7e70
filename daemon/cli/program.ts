// The `berth` command line: commander builds the command tree (subcommands, --help on every one,
// usage errors), each group registers itself from its own file, and every failure ends here as
// one message on stderr and an exit code from exit-codes.ts.
import { Command, CommanderError } from 'commander';
import { registerAuditCommands } from './commands-audit.js';
import { registerAuthCommands } from './commands-auth.js';
import { registerComposeCommands } from './commands-compose.js';
import { registerDatabaseCommands } from './commands-db.js';
import { registerDeployCommand } from './commands-deploy.js';
import { registerDomainCommands } from './commands-domains.js';
import { registerEnvCommands } from './commands-env.js';
import { registerJobCommands } from './commands-jobs.js';
import { registerCheckCommands } from './commands-checks.js';
import { registerExecCommands } from './commands-exec.js';
import { registerLogCommands } from './commands-logs.js';
import { registerMetricsCommands } from './commands-metrics.js';
import { registerNotifyCommands } from './commands-notify.js';
import { registerProjectCommands } from './commands-projects.js';
import { registerQuotaCommands } from './commands-quotas.js';
import { registerStatusPageCommands } from './commands-status-page.js';
import { registerReplicaCommands } from './commands-replicas.js';
import { registerServerCommands } from './commands-server.js';
import { registerSwarmCommands } from './commands-swarm.js';
import { registerVolumeCommands } from './commands-volumes.js';
import { CommandExit, describeError, EXIT } from './exit-codes.js';
import { Output } from './output.js';
import { globalsOf, resolveTarget } from './session.js';

const EXIT_HELP = `
Exit codes: 0 ok, 1 the operation failed (a deployment failed, not found, refused input),
2 usage, 3 authentication or authorisation (also a certificate that is not the pinned one),
4 server unreachable. Data goes to stdout, messages to stderr; --json prints one JSON object
per line. Environment: BERTH_SERVER, BERTH_TOKEN, BERTH_CERT_SHA256, NO_COLOR,
XDG_CONFIG_HOME (the saved contexts live in $XDG_CONFIG_HOME/berth/config.json).`;

/**
 * What the entry point (daemon/cli.ts) hands the client: its version, and the server-side `berth
 * keys` tool (daemon/server-tools/keys.ts), so this API client imports nothing but shared/.
 */
export interface ProgramEnv {
  version: string;
  keys(argv: string[]): Promise<void>;
}

function buildProgram(env: ProgramEnv): Command {
  const program = new Command('berth');
  // settings first: subcommands inherit them when they are created
  program
    .exitOverride()
    // usage errors read like every other error: `berth: <message>` on stderr
    .configureOutput({ outputError: (text, write) => write(`berth: ${text.replace(/^error: /, '')}`) })
    .showHelpAfterError('(add --help for usage)')
    .description('Berth from the terminal: log in to a server, deploy and watch, logs, env, domains, databases, backups, nodes and replicas, the server and its address.')
    .version(env.version, '-V, --version')
    .option('--server <url>', 'the server (default: BERTH_SERVER, else the current context)')
    .option('--token <key>', 'the API key (default: BERTH_TOKEN, else the saved one; prefer the variable: argv is visible to other users)')
    .option('--context <name>', 'use this saved context instead of the current one')
    .option('-p, --project <project>', 'project id, slug or name that service names refer to (default: the linked one)')
    .option('--json', 'JSON output, one object per line')
    .option('-y, --yes', 'confirm destructive operations')
    .option('-q, --quiet', 'no progress or messages on stderr, only data and errors')
    .addHelpText('after', EXIT_HELP);

  registerAuthCommands(program);
  registerProjectCommands(program);
  registerDeployCommand(program);
  registerLogCommands(program);
  registerEnvCommands(program);
  registerDomainCommands(program);
  registerDatabaseCommands(program);
  registerJobCommands(program);
  registerCheckCommands(program);
  registerNotifyCommands(program);
  registerQuotaCommands(program);
  registerStatusPageCommands(program);
  registerServerCommands(program);
  registerVolumeCommands(program);
  registerComposeCommands(program);
  registerExecCommands(program);
  registerSwarmCommands(program);
  registerReplicaCommands(program);
  registerAuditCommands(program);
  registerMetricsCommands(program);
  program
    .command('keys')
    .description('create|list|revoke API keys on the server itself, from its data dir (berth keys --help)')
    .helpOption(false)
    .allowUnknownOption()
    .allowExcessArguments()
    // reached only when global options come first (`berth -q keys list`); cli.ts sends `berth keys ...` straight there
    .action(async (_o, cmd: Command) => {
      await env.keys(['keys', ...cmd.args]);
    });
  return program;
}

/** Runs the client commands; resolves to the exit code. */
export async function runProgram(argv: string[], env: ProgramEnv): Promise<number> {
  const program = buildProgram(env);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (err) {
    // a remote command's exit code (berth exec, run, shell) becomes berth's
    if (err instanceof CommandExit) return err.code;
    if (err instanceof CommanderError) {
      // commander printed the help or the usage error already
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return EXIT.ok;
      return EXIT.usage;
    }
    // the global options all live on the program, so its parsed options are the ones in force
    const g = globalsOf(program);
    let server: string | undefined;
    try {
      server = resolveTarget(g).server;
    } catch {
      server = g.server; // the error is about the configuration itself
    }
    const json = Boolean(g.json);
    const { message, exitCode } = describeError(err, server);
    const out = new Output({ json, quiet: false });
    out.error(message);
    return exitCode;
  }
}
