// "Add a node": asks the daemon for a single-use join command and shows the one line to paste as
// root on the new server, with a copy button and when it expires.
import { useState } from 'react';
import type { NodeJoinCommand } from '../../../../../shared/types/swarm.js';
import { apiPath } from '../../../../../shared/api-routes.js';
import { useAction } from '../../api/context';
import { Button, ErrorNote, Field } from '../../ui/kit';

export function JoinCommand() {
  const [copied, setCopied] = useState(false);
  const create = useAction<Record<string, never>, NodeJoinCommand>('POST', apiPath('nodes.join'), { notifyErrors: false, onSuccess: () => setCopied(false) });
  const join = create.data;
  return (
    <section className="card stack" aria-label="Add a node">
      <h2 className="h3">Add a node</h2>
      <p className="muted">
        On a fresh Debian or Ubuntu server, run the command below as root. It checks the machine, installs Docker Engine from the distribution if needed, trusts this server's registry and joins the
        swarm as a worker. The command works once and expires.
      </p>
      {join ? (
        <>
          <Field label="Join command" hint={`Single use; expires ${new Date(join.expiresAt).toLocaleString()}.`}>
            {(id) => <input id={id} readOnly value={join.command} className="mono join-line" onFocus={(e) => e.currentTarget.select()} />}
          </Field>
          <div className="row">
            <Button
              onClick={() => {
                void navigator.clipboard?.writeText(join.command).then(() => setCopied(true));
              }}
            >
              Copy
            </Button>
            <span role="status" className="small muted">
              {copied ? 'Copied' : ''}
            </span>
            <Button variant="ghost" busy={create.isPending} onClick={() => create.mutate({})}>
              New command
            </Button>
          </div>
        </>
      ) : (
        <div>
          <Button variant="primary" busy={create.isPending} onClick={() => create.mutate({})}>
            Create join command
          </Button>
        </div>
      )}
      <ErrorNote error={create.error} />
    </section>
  );
}
