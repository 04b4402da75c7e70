// GET /api/system/metrics (any key): the host's CPU, memory, disks and network, and CPU and memory
// of the service containers in the key's projects. Polling clients share one cached collection.
import { route } from '../route-table.js';

export const metricsRoutes = {
  ...route('system.metrics', { handler: ({ access }, { core }) => core.metrics.view(access) }),
};
