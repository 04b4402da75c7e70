// The client's calls for one-off commands (an SSE answer) and their record; the terminal's
// WebSocket is opened by the programs that hold a TTY (the CLI, the console, the desktop app).
import { JobsClient } from './jobs.js';

export class ExecClient extends JobsClient {}
