// A form's state that follows the server's values (a live event re-read them: another client, or the
// echo of this form's own save) without ever throwing away what the user is typing. The form
// takes the new server values only while it still shows the previous ones; once edited, the
// user's values stay until saved or reset.
import { useEffect, useRef, useState } from 'react';

/**
 * `fromServer` builds the form's values from the server's; `serverKey` changes exactly when those
 * values change (a JSON of them does).
 */
export function useSyncedForm<T>(fromServer: () => T, serverKey: string): [T, (next: T) => void] {
  const [form, setForm] = useState(fromServer);
  const shown = useRef({ key: serverKey, values: form });
  useEffect(() => {
    if (shown.current.key === serverKey) return;
    const next = fromServer();
    const previous = shown.current.values;
    shown.current = { key: serverKey, values: next };
    setForm((current) => (sameValues(current, previous) ? next : current));
  }, [serverKey]); // eslint-disable-line react-hooks/exhaustive-deps
  return [form, setForm];
}

function sameValues(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
