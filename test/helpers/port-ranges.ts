// Host-port ranges (BERTH_PORT_RANGE) of the test daemons, all below the kernel's ephemeral range
// (32768-60999): a port there can be the local end of any outgoing connection of the moment, and
// then Caddy or the Docker Engine cannot listen on it. A CI run failed so, with "Caddy cannot
// listen on 127.0.0.1:42271: address already in use" for a host port allocated a few seconds
// earlier. Berth's own default, 20000-29999, is below it for the same reason.

/** In-process test daemons: one 2000-port slice of 10000-25999 each, in turn. */
export const SLICES = { from: 10000, size: 2000, count: 8 } as const;

/** Suites and benchmarks that run the daemon as a process: a range each. */
export const PORT_RANGES = {
  daemonProcess: '26000-26099',
  deployCrash: '26100-26199',
  backupCrash: '26200-26299',
  runtimeKeys: '26300-26399',
  runtimeReconcile: '26400-26499',
  dbCrash: '26500-26599',
  daemonDown: '26600-26699',
  jobCrash: '26700-26799',
  opsBench: '26800-26899',
  apiBench: '27000-28999',
  deployBench: '29000-29999',
  dataplaneBench: '30000-30099',
  dbBench: '30100-30199',
  backupBench: '30200-30299',
} as const;
// 30300-32767: the ports tests listen on themselves (caddy.ts freePort).
