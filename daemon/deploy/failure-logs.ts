// The log tails a failure explanation reads: the deployment's build log, and the lines its own
// container wrote (runtime lines carry their deployment).
import type { FailureLogs } from '../core/ports/explain-provider.js';
import type { LogBook } from './log-book.js';

export function failureLogs(buildLogs: LogBook, runtimeLogs: LogBook): FailureLogs {
  return {
    async buildTail(deploymentId, n) {
      return (await buildLogs.tail(deploymentId, n)).map((l) => l.line);
    },
    async runtimeTail(serviceId, deploymentId, n) {
      return (await runtimeLogs.tailOfDeployment(serviceId, deploymentId, n)).map((l) => l.line);
    },
  };
}
