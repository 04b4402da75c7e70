// The client's calls for one-off commands (an SSE answer) and their record; the terminal's
// WebSocket is opened by the programs that hold a TTY (shared/terminal-socket.ts in Node: the CLI
// and the desktop main process; the console's own WebSocket in the browser).
import { routePath } from '../api-routes.js';
import type { ExecInput, ExecRecord, ExecStreamPayloads } from '../types.js';
import { JobsClient } from './jobs.js';

/** One event of an exec stream (pings are left out). */
export type ExecStreamEvent = { type: 'output'; data: ExecStreamPayloads['output'] } | { type: 'exit'; data: ExecStreamPayloads['exit'] };

export class ExecClient extends JobsClient {
  /** The service's commands and terminal sessions, newest first. */
  listExecs(serviceId: string): Promise<{ execs: ExecRecord[] }> {
    return this.api('exec.list', { serviceId });
  }

  /** Runs a command and yields its output lines, then its `exit` (refusals before the stream throw ApiError). */
  async *execStream(serviceId: string, input: ExecInput, signal?: AbortSignal): AsyncGenerator<ExecStreamEvent> {
    for await (const e of this.stream(routePath('exec.start', { serviceId }), { method: 'POST', body: input, signal })) {
      if (e.event === 'output') yield { type: 'output', data: JSON.parse(e.data) as ExecStreamPayloads['output'] };
      else if (e.event === 'exit') {
        yield { type: 'exit', data: JSON.parse(e.data) as ExecStreamPayloads['exit'] };
        return;
      }
    }
  }

  /**
   * Runs a command, handing each output line to `onOutput`; resolves with its `exit` event. A stream
   * that ends without one (the connection broke) resolves with exitCode null and an error.
   */
  async exec(serviceId: string, input: ExecInput, onOutput?: (o: ExecStreamPayloads['output']) => void, signal?: AbortSignal): Promise<ExecStreamPayloads['exit']> {
    for await (const e of this.execStream(serviceId, input, signal)) {
      if (e.type === 'output') onOutput?.(e.data);
      else return e.data;
    }
    return { exitCode: null, error: 'the stream ended without an exit event (the connection to the daemon broke)' };
  }
}
