// Desktop only: adding, testing, renaming, colouring, muting and removing servers. The main
// process answers these calls itself (server id `app`, /desktop/ routes) and keeps the keys: a key
// typed here goes to the main process once and never comes back.
import { useId, useState, type FormEvent } from 'react';
import type { BerthBridge } from '../../transport/bridge';
import type { ServerSummary } from './server-switcher';

interface KeyStatus {
  mode: 'keychain' | 'plain-file' | 'ask-each-launch' | 'refused';
  where: string;
  corruptBackup: string | null;
}

export interface ServersAnswer {
  servers: ServerSummary[];
  keys: KeyStatus;
  choices: { id: string; label: string }[];
}

interface ApiFailure {
  error?: { message?: string };
}

async function call<T>(bridge: BerthBridge, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const res = await bridge.request('app', method, path, body);
  if (res.status < 200 || res.status >= 300) throw new Error((res.body as ApiFailure)?.error?.message ?? `failed (${res.status})`);
  return res.body as T;
}

function AddServerForm({ bridge, onDone }: { bridge: BerthBridge; onDone(): void }) {
  const id = useId();
  const [form, setForm] = useState({ name: '', url: '', key: '', fingerprint: '' });
  const [message, setMessage] = useState<{ kind: 'ok' | 'bad'; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setMessage(null);
    try {
      const r = await call<{ server: ServerSummary; test: { ok: boolean; error?: string; version?: string; key?: { name: string; access: string } } }>(bridge, 'POST', '/desktop/servers', form);
      setForm({ name: '', url: '', key: '', fingerprint: '' });
      setMessage(
        r.test.ok
          ? { kind: 'ok', text: `Added ${r.server.name}: Berth ${r.test.version}, key "${r.test.key?.name}" (${r.test.key?.access}).` }
          : { kind: 'bad', text: `Added ${r.server.name}, but the test failed: ${r.test.error}` },
      );
      onDone();
    } catch (err) {
      setMessage({ kind: 'bad', text: err instanceof Error ? err.message : String(err) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="stack manage-form" onSubmit={(e) => void submit(e)} aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Add a server</h2>
      <label htmlFor={`${id}-url`}>Server URL</label>
      <input id={`${id}-url`} value={form.url} onChange={set('url')} placeholder="https://berth.example.com" required />
      <label htmlFor={`${id}-key`}>API key</label>
      <input id={`${id}-key`} type="password" autoComplete="off" value={form.key} onChange={set('key')} required />
      <label htmlFor={`${id}-name`}>Name (optional)</label>
      <input id={`${id}-name`} value={form.name} onChange={set('name')} />
      <label htmlFor={`${id}-fp`}>Certificate fingerprint (optional, BERTH_CERT_SHA256 from the installer)</label>
      <input id={`${id}-fp`} value={form.fingerprint} onChange={set('fingerprint')} />
      <div>
        <button type="submit" className="btn btn-primary" disabled={busy}>
          Add server
        </button>
      </div>
      {message ? (
        <p role={message.kind === 'bad' ? 'alert' : 'status'} className={message.kind === 'bad' ? 'manage-bad' : 'manage-ok'}>
          {message.text}
        </p>
      ) : null}
    </form>
  );
}

function ServerRow({ bridge, s, onDone }: { bridge: BerthBridge; s: ServerSummary & { muted?: boolean; hasKey?: boolean }; onDone(): void }) {
  const id = useId();
  const [name, setName] = useState(s.name);
  const [key, setKey] = useState('');
  const [fingerprint, setFingerprint] = useState('');
  const [note, setNote] = useState<string | null>(null);
  const act = (p: Promise<unknown>, ok?: string) =>
    void p.then(
      () => {
        if (ok) setNote(ok);
        onDone();
      },
      (err: unknown) => setNote(err instanceof Error ? err.message : String(err)),
    );
  return (
    <li className="manage-row">
      <span className="server-colour" aria-hidden="true" style={{ background: s.colour }} />
      <label htmlFor={`${id}-name`} className="sr-only">
        Name of {s.name}
      </label>
      <input id={`${id}-name`} value={name} onChange={(e) => setName(e.target.value)} />
      <button type="button" className="btn" onClick={() => act(call(bridge, 'PATCH', `/desktop/servers/${s.id}`, { name }), 'Renamed.')}>
        Rename
      </button>
      <label htmlFor={`${id}-colour`} className="sr-only">
        Colour of {s.name}
      </label>
      <input id={`${id}-colour`} type="color" value={s.colour} onChange={(e) => act(call(bridge, 'PATCH', `/desktop/servers/${s.id}`, { colour: e.target.value }))} />
      <label className="manage-mute">
        <input type="checkbox" checked={Boolean(s.muted)} onChange={(e) => act(call(bridge, 'PATCH', `/desktop/servers/${s.id}`, { muted: e.target.checked }))} /> Mute notifications
      </label>
      <button
        type="button"
        className="btn"
        onClick={() =>
          act(
            call<{ test: { ok: boolean; error?: string; version?: string } }>(bridge, 'POST', `/desktop/servers/${s.id}/test`).then((r) =>
              setNote(r.test.ok ? `Connected: Berth ${r.test.version}.` : `Test failed: ${r.test.error}`),
            ),
          )
        }
      >
        Test {s.name}
      </button>
      <button type="button" className="btn btn-danger" onClick={() => act(call(bridge, 'DELETE', `/desktop/servers/${s.id}`))}>
        Remove {s.name}
      </button>
      {s.url.startsWith('https:') ? (
        <>
          {/* after the server's address changed: the new fingerprint `berth server set-address` (or the console) printed */}
          <label htmlFor={`${id}-fp`}>New certificate fingerprint for {s.name}</label>
          <input id={`${id}-fp`} value={fingerprint} onChange={(e) => setFingerprint(e.target.value)} placeholder="64 hex digits" />
          <button
            type="button"
            className="btn"
            disabled={!fingerprint.trim()}
            onClick={() =>
              act(
                call(bridge, 'PATCH', `/desktop/servers/${s.id}`, { fingerprint }).then(() => setFingerprint('')),
                'Certificate re-pinned.',
              )
            }
          >
            Re-pin {s.name}
          </button>
        </>
      ) : null}
      {s.hasKey === false ? (
        <>
          <label htmlFor={`${id}-key`}>Key for {s.name}</label>
          <input id={`${id}-key`} type="password" autoComplete="off" value={key} onChange={(e) => setKey(e.target.value)} />
          <button
            type="button"
            className="btn btn-primary"
            onClick={() =>
              act(
                call<{ test: { ok: boolean; error?: string } }>(bridge, 'POST', `/desktop/servers/${s.id}/key`, { key }).then((r) => {
                  setKey('');
                  setNote(r.test.ok ? 'Key accepted.' : `Test failed: ${r.test.error}`);
                }),
              )
            }
          >
            Use key
          </button>
        </>
      ) : null}
      {note ? <span role="status">{note}</span> : null}
    </li>
  );
}

export function ManageServers({ bridge, answer, onChange }: { bridge: BerthBridge; answer: ServersAnswer; onChange(): void }) {
  const [err, setErr] = useState<string | null>(null);
  return (
    <section className="servers-overview stack" aria-labelledby="manage-servers-title">
      <h1 id="manage-servers-title">Manage servers</h1>
      <p>Where keys are kept: {answer.keys.where}.</p>
      {answer.keys.corruptBackup ? <p role="alert">The stored keys could not be read; the file was kept as {answer.keys.corruptBackup}. Add the keys again.</p> : null}
      {answer.keys.mode === 'refused' ? (
        <div role="alert" className="stack">
          <p>This desktop has no keychain Berth can use, so keys would sit in plain text. Install and unlock a secret service (GNOME Keyring, KWallet), or choose:</p>
          {answer.choices.map((c) => (
            <button key={c.id} type="button" className="btn" onClick={() => void call(bridge, 'POST', '/desktop/keychain', { choice: c.id }).then(onChange, (e: Error) => setErr(e.message))}>
              {c.label}
            </button>
          ))}
          {err ? <p>{err}</p> : null}
        </div>
      ) : null}
      <ul className="manage-list">
        {answer.servers.map((s) => (
          <ServerRow key={s.id} bridge={bridge} s={s} onDone={onChange} />
        ))}
      </ul>
      <AddServerForm bridge={bridge} onDone={onChange} />
    </section>
  );
}
