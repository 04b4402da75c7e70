// Outcomes of actions, announced in a polite live region and shown briefly as toasts (the newest
// three; errors stay longer). Each can be dismissed at once, so none sits over a button in the way.
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';

interface Toast {
  id: number;
  kind: 'ok' | 'error';
  text: string;
}

interface Notify {
  ok(text: string): void;
  error(text: string): void;
}

const NotifyContext = createContext<Notify>({ ok: () => undefined, error: () => undefined });

let nextId = 1;

export function NotifyProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const dismiss = useCallback((id: number) => setToasts((ts) => ts.filter((t) => t.id !== id)), []);
  const push = useCallback(
    (kind: Toast['kind'], text: string) => {
      const id = nextId++;
      setToasts((ts) => [...ts.slice(-2), { id, kind, text }]);
      setTimeout(() => dismiss(id), kind === 'error' ? 8000 : 4000);
    },
    [dismiss],
  );
  const api = useMemo(() => ({ ok: (t: string) => push('ok', t), error: (t: string) => push('error', t) }), [push]);
  return (
    <NotifyContext.Provider value={api}>
      {children}
      <div className="toasts" role="status" aria-live="polite">
        {toasts.map((t) => (
          <div key={t.id} className={`toast toast-${t.kind}`}>
            <span>{t.text}</span>
            <button type="button" className="toast-close" aria-label="Dismiss" title="Dismiss" onClick={() => dismiss(t.id)}>
              ×
            </button>
          </div>
        ))}
      </div>
    </NotifyContext.Provider>
  );
}

export function useNotify(): Notify {
  return useContext(NotifyContext);
}
