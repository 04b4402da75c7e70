// Swarm mode on this server: off, what turning it on does (and the address to advertise); on, the
// manager's address, the node count and turning it off (refused with the daemon's 409 while
// workers or replicated services remain, shown here verbatim).
import { useState } from 'react';
import type { SwarmEnableInput, SwarmStatus } from '../../../../../shared/types/swarm.js';
import { apiPath } from '../../../../../shared/api-routes.js';
import { useAction } from '../../api/context';
import { Button, ConfirmButton, ErrorNote, Field } from '../../ui/kit';
import { Badge } from './node-words';

export function SwarmCard({ swarm, canWrite }: { swarm: SwarmStatus; canWrite: boolean }) {
  const [address, setAddress] = useState('');
  const enable = useAction<SwarmEnableInput, { swarm: SwarmStatus }>('POST', apiPath('swarm.enable'), {
    invalidate: [['swarm'], ['nodes']],
    success: 'Swarm mode is on',
    notifyErrors: false,
  });
  const disable = useAction<undefined, { swarm: SwarmStatus }>('DELETE', apiPath('swarm.disable'), {
    invalidate: [['swarm'], ['nodes']],
    success: 'Swarm mode is off',
    notifyErrors: false,
  });
  if (!swarm.enabled) {
    return (
      <section className="card stack" aria-label="Swarm mode">
        <h2 className="h3 row">
          Swarm mode <Badge tone="muted">off</Badge>
        </h2>
        <p className="muted">
          Swarm mode makes this server the manager of Docker Swarm: more servers join it as nodes with one command, and a web service can run several replicas spread over them behind the same domain,
          still serving when a node is lost. Caddy stays on this server; images Berth builds are pushed to a registry here so that every node can run them. Nothing changes for existing services until
          you scale one.
        </p>
        {canWrite ? (
          <form
            className="row wrap align-end"
            onSubmit={(e) => {
              e.preventDefault();
              enable.mutate(address.trim() ? { advertiseAddress: address.trim() } : {});
            }}
          >
            <Field label="Advertise address (optional)" hint="The address other servers reach this one at; empty: the server's public IP setting.">
              {(id) => <input id={id} value={address} onChange={(e) => setAddress(e.target.value)} placeholder="203.0.113.10" className="mono" autoComplete="off" spellCheck={false} />}
            </Field>
            <Button type="submit" variant="primary" busy={enable.isPending}>
              Turn on Swarm mode
            </Button>
          </form>
        ) : (
          <p className="hint">A write key over all projects turns it on.</p>
        )}
        <ErrorNote error={enable.error} />
      </section>
    );
  }
  return (
    <section className="card stack" aria-label="Swarm mode">
      <h2 className="h3 row">
        Swarm mode <Badge tone="ok">on</Badge>
      </h2>
      <dl className="facts-list">
        <dt>Manager address</dt>
        <dd className="mono">{swarm.managerAddress ?? '-'}</dd>
        <dt>Nodes</dt>
        <dd>{swarm.nodeCount}</dd>
      </dl>
      {canWrite ? (
        <div>
          <ConfirmButton
            label="Turn off Swarm mode"
            title="Turn off Swarm mode?"
            message="This server leaves the swarm. It is refused while worker nodes or services with more than one replica remain: remove them first."
            confirmLabel="Turn off"
            busy={disable.isPending}
            onConfirm={() => disable.mutate(undefined)}
          />
        </div>
      ) : null}
      <ErrorNote error={disable.error} />
    </section>
  );
}
