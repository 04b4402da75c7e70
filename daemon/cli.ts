#!/usr/bin/env node
// `berth`: the client commands (daemon/cli/program.ts) talk to a server over its API and import
// only shared/; `berth keys` is a server-side tool (daemon/server-tools/keys.ts): it manages keys
// on the server itself, from the data dir, and loads only for `berth keys`.
import { runProgram } from './cli/program.js';
import { VERSION } from './version.js';

const runKeys = async (args: string[]): Promise<void> => (await import('./server-tools/keys.js')).runKeys(args);

const argv = process.argv.slice(2);
if (argv[0] === 'keys') {
  await runKeys(argv);
} else {
  const code = await runProgram(argv, { version: VERSION, keys: runKeys });
  // exit now: keep-alive sockets and stream readers must not hold a finished command open
  process.exit(code);
}
