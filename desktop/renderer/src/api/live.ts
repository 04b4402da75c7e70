// ONE /api/events connection per tab: each event invalidates the queries that show what changed.
// A dropped stream resumes by itself (EventSource sends Last-Event-ID); when the daemon refuses it
// (session ended, key revoked) the session is checked again, which shows the sign-in page.
import { useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useTransport } from './context';
import type { StreamState } from '../transport/transport';

interface EventData {
  serviceId?: string;
  projectId?: string;
}

export function useLiveEvents(enabled: boolean): StreamState {
  const t = useTransport();
  const qc = useQueryClient();
  const [state, setState] = useState<StreamState>('reconnecting');
  useEffect(() => {
    if (!enabled) return;
    return t.subscribe('/api/events', {
      onEvent(e) {
        const d = (e.data ?? {}) as EventData;
        switch (e.event) {
          case 'deployment':
          case 'service':
            void qc.invalidateQueries({ queryKey: ['projects'] });
            void qc.invalidateQueries({ queryKey: ['project'] });
            if (d.serviceId) {
              void qc.invalidateQueries({ queryKey: ['service', d.serviceId] });
              void qc.invalidateQueries({ queryKey: ['plan', d.serviceId] });
            }
            break;
          case 'domain':
            if (d.serviceId) void qc.invalidateQueries({ queryKey: ['service', d.serviceId] });
            void qc.invalidateQueries({ queryKey: ['project'] });
            break;
          case 'backup':
            if (d.serviceId) void qc.invalidateQueries({ queryKey: ['backups', d.serviceId] });
            break;
          case 'reset':
            void qc.invalidateQueries();
            break;
        }
      },
      onState(s) {
        setState(s);
        if (s !== 'open') void qc.invalidateQueries({ queryKey: ['session'] });
      },
    });
  }, [enabled, t, qc]);
  return state;
}
