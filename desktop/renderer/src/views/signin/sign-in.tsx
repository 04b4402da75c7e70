// Paste a key once; the daemon answers with an HttpOnly session cookie (the key is not kept here).
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTransport } from '../../api/context';
import { Button, ErrorNote, Field } from '../../ui/kit';

export function SignIn() {
  const t = useTransport();
  const qc = useQueryClient();
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!t.signIn) return;
    setBusy(true);
    setError(null);
    try {
      await t.signIn(key);
      setKey('');
      await qc.invalidateQueries({ queryKey: ['session'] });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main className="signin" id="main">
      <form className="card signin-card" onSubmit={(e) => void submit(e)}>
        <div className="brand big">
          <span className="brand-mark" aria-hidden="true" />
          Berth
        </div>
        <h1>Sign in to this server</h1>
        <p className="muted">Paste an API key. The installer printed the first one; `berth keys create` makes more.</p>
        <Field label="API key">
          {(id) => <input id={id} type="password" autoComplete="off" spellCheck={false} value={key} onChange={(e) => setKey(e.target.value)} placeholder="berth_…" required />}
        </Field>
        <ErrorNote error={error} />
        <Button type="submit" variant="primary" busy={busy} disabled={!key.trim()}>
          Sign in
        </Button>
        <p className="hint">The key is exchanged for a session cookie this page cannot read; it is not stored in the browser.</p>
      </form>
    </main>
  );
}
