// Lines of a log stream (a deployment's build log or a service's runtime log): the snapshot, then
// each new line, batched per animation frame. A dropped connection resumes where it left off
// (EventSource sends Last-Event-ID; lines already shown are skipped by id).
import { useEffect, useState } from 'react';
import { useTransport } from '../../api/context';
import type { StreamState } from '../../transport/transport';

export interface LogLine {
  id: number;
  line: string;
  stream: string;
  createdAt: string;
}

export interface LogStream {
  lines: LogLine[];
  state: StreamState;
  /** The deployment's final status once the build log stream ended. */
  ended: string | null;
  /** Runtime logs: whether the container's log source is open. */
  sourceOpen: boolean | null;
}

export function useLogStream(path: string | null): LogStream {
  const t = useTransport();
  const [lines, setLines] = useState<LogLine[]>([]);
  const [state, setState] = useState<StreamState>('reconnecting');
  const [ended, setEnded] = useState<string | null>(null);
  const [sourceOpen, setSourceOpen] = useState<boolean | null>(null);
  useEffect(() => {
    setLines([]);
    setEnded(null);
    setSourceOpen(null);
    if (!path) return;
    let pending: LogLine[] = [];
    let last = 0;
    let frame = 0;
    const flush = () => {
      frame = 0;
      const add = pending;
      pending = [];
      setLines((ls) => (ls.length === 0 ? add : ls.concat(add)));
    };
    const push = (items: LogLine[]) => {
      for (const l of items) {
        if (l.id <= last) continue;
        last = l.id;
        pending.push(l);
      }
      if (pending.length > 0 && !frame) frame = requestAnimationFrame(flush);
    };
    const stop = t.subscribe(path, {
      onEvent(e) {
        if (e.event === 'snapshot') push(e.data as LogLine[]);
        else if (e.event === 'log') push([e.data as LogLine]);
        else if (e.event === 'end') {
          setEnded((e.data as { status: string }).status);
          setState('closed');
        } else if (e.event === 'status') setSourceOpen((e.data as { ok: boolean }).ok);
      },
      onState: (s) => setState((prev) => (prev === 'closed' && s !== 'open' ? prev : s)),
    });
    return () => {
      stop();
      if (frame) cancelAnimationFrame(frame);
    };
  }, [path, t]);
  return { lines, state, ended, sourceOpen };
}
