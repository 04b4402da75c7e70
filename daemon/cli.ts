#!/usr/bin/env node
// `berth`: the client commands (daemon/cli/program.ts) talk to a server over its API and import
// only shared/; `berth keys` is a server-side tool (daemon/server-tools/keys.ts): it manages keys
// on the server itself, from the data dir, and loads only for `berth keys`; so do `berth server
// backup|restore-archive|redeploy-restored` (Berth's own backup, daemon/server-tools/server-backup.ts).
import { runProgram } from './cli/program.js';
import { VERSION } from './version.js';

const runKeys = async (args: string[]): Promise<void> => (await import('./server-tools/keys.js')).runKeys(args);

const argv = process.argv.slice(2);
// Berth's own backup and restore on the server itself (daemon/server-tools/server-backup.ts)
const SERVER_TOOLS = ['backup', 'restore-archive', 'redeploy-restored'];
if (argv[0] === 'keys') {
  await runKeys(argv);
} else if (argv[0] === 'server' && SERVER_TOOLS.includes(argv[1] ?? '')) {
  await (await import('./server-tools/server-backup.js')).runServerBackupTool(argv);
} else {
  const code = await runProgram(argv, { version: VERSION, keys: runKeys });
  // exit now: keep-alive sockets and stream readers must not hold a finished command open
  process.exit(code);
}
