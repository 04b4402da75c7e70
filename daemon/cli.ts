#!/usr/bin/env node
// `berth`: the client commands (daemon/cli/program.ts) talk to a server over its API; `berth keys`
// manages keys on the server itself, from the data dir (daemon/cli/keys.ts).
import { runProgram } from './cli/program.js';

const argv = process.argv.slice(2);
if (argv[0] === 'keys') {
  const { runKeys } = await import('./cli/keys.js');
  await runKeys(argv);
} else {
  const code = await runProgram(argv);
  // exit now: keep-alive sockets and stream readers must not hold a finished command open
  process.exit(code);
}
