// The server's address: detected on the first start or set by hand, and the fingerprint of the
// API certificate served for it. Changing it re-issues that certificate, so the change warns first
// that every pinned client (the CLI, the desktop app, scripts with BERTH_CERT_SHA256) must re-pin,
// and shows the new fingerprint with the line to re-pin once the server serves it. Another page's
// view follows through the `settings` event (area `address`).
import { useState } from 'react';
import { apiPath } from '../../../../../shared/api-routes.js';
import type { ServerAddress, ServerAddressChange } from '../../../../../shared/types.js';
import { useAction, useGet } from '../../api/context';
import { ConfirmButton, ErrorNote, Field, Loading } from '../../ui/kit';

/** The URL other clients log in at: where the API is served with the new certificate (this page's when it is a hostname behind it). */
function loginUrl(a: ServerAddress): string {
  const { protocol, origin, hostname } = window.location;
  if (protocol === 'https:' && hostname !== a.address && !/^[\d.]+$/.test(hostname)) return origin;
  return a.apiUrl ?? '<server URL>';
}

function Changed({ change, from }: { change: ServerAddressChange; from: string }) {
  const fp = change.address.fingerprint;
  if (!change.changed) return <div className="note note-ok">The address was already {change.address.address}: nothing changed.</div>;
  return (
    <div className={fp ? 'note note-ok stack' : 'note note-warn'} role="status">
      <p>
        The address is now {change.address.address} (was {from}).
      </p>
      {fp ? (
        <>
          <Field label="New certificate fingerprint">{(id) => <input id={id} readOnly value={fp} className="mono" onFocus={(e) => e.currentTarget.select()} />}</Field>
          <p>
            Re-pin every client: <code>{`berth login ${loginUrl(change.address)} --fingerprint ${fp}`}</code>; in the desktop app, edit the server and paste the new fingerprint.
          </p>
        </>
      ) : (
        <p>
          No fingerprint:{' '}
          {change.proxy.ok
            ? 'the API is not served over HTTPS with the internal CA here, or its certificate was not served in time.'
            : `the reverse proxy did not load the change: ${change.proxy.detail}`}
        </p>
      )}
    </div>
  );
}

export function AddressCard() {
  const q = useGet<{ address: ServerAddress }>(['server-address'], apiPath('system.address'));
  const [next, setNext] = useState('');
  const [done, setDone] = useState<{ change: ServerAddressChange; from: string } | null>(null);
  const current = q.data?.address;
  const change = useAction<{ address: string }, ServerAddressChange>('PUT', apiPath('system.address.set'), {
    invalidate: [['server-address'], ['settings']],
    // a refusal shows beside the form
    notifyErrors: false,
    success: (r) => (r.changed ? `Address changed to ${r.address.address}` : null),
    onSuccess: (r) => {
      setDone({ change: r, from: current?.address ?? '' });
      setNext('');
    },
  });
  return (
    <section className="card stack" aria-labelledby="address-title">
      <h2 className="h3" id="address-title">
        Address
      </h2>
      <ErrorNote error={q.error} />
      {q.isPending ? <Loading what="the address" /> : null}
      {current ? (
        <dl className="facts-grid">
          <div>
            <dt>Address</dt>
            <dd>
              {current.address} <span className="muted">({current.detected ? 'detected on the first start' : `set by hand; detected: ${current.detectedAddress}`})</span>
            </dd>
          </div>
          <div>
            <dt>API certificate (SHA-256)</dt>
            <dd className="mono">{current.fingerprint ?? 'not served over HTTPS with the internal CA here'}</dd>
          </div>
        </dl>
      ) : null}
      <Field label="New address" hint="The IPv4 address clients reach this server at. It changes only when you change it here, with berth server set-address, or install.sh --address.">
        {(id) => <input id={id} value={next} onChange={(e) => setNext(e.target.value)} placeholder="203.0.113.10" inputMode="decimal" />}
      </Field>
      <ErrorNote error={change.error} />
      {done ? <Changed change={done.change} from={done.from} /> : null}
      <div className="row end">
        <ConfirmButton
          label="Change address…"
          title="Change the server's address"
          variant="primary"
          busy={change.isPending}
          confirmLabel={`Change to ${next.trim() || '…'}`}
          message={
            <div className="stack">
              <p>
                The API certificate is re-issued for {next.trim() || 'the new address'}. Every client pinned to the current certificate (the berth CLI, the desktop app, scripts with BERTH_CERT_SHA256)
                is refused until it re-pins with the new fingerprint, shown here after the change.
              </p>
              <p>Generated URLs and DNS records will name the new address.</p>
            </div>
          }
          onConfirm={() => {
            setDone(null);
            change.mutate({ address: next.trim() });
          }}
        />
      </div>
    </section>
  );
}
