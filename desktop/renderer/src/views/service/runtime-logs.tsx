// The running container's output, live while this tab is open.
import type { Service } from '../../../../../shared/types.js';
import { LogView } from './log-view';
import { useLogStream } from './use-log-stream';
import { apiPath } from '../../../../../shared/api-routes.js';

export function RuntimeLogs({ service }: { service: Service }) {
  const log = useLogStream(apiPath('services.runtime-logs', { serviceId: service.id }));
  return (
    <div className="stack">
      <div className="muted small" role="status">
        {log.sourceOpen === true ? 'Live: new output appears as the service writes it.' : log.sourceOpen === false ? 'The service is not running: showing its last output.' : 'Connecting…'}
      </div>
      <LogView lines={log.lines} label="Runtime log" emptyText="No output yet. Deploy the service to see what it prints." height={520} />
    </div>
  );
}
