// How many instances a service runs and on which nodes (Swarm mode). Replicas above 1 and a
// placement need Swarm mode on: the daemon refuses them otherwise (409), and its message shows here, beside the form.
// A synced form: another client's change shows up live unless the user is editing.
import { useState } from 'react';
import type { Service } from '../../../../../shared/types.js';
import type { ServicePlacement } from '../../../../../shared/types/swarm.js';
import { apiPath } from '../../../../../shared/api-routes.js';
import { useAction } from '../../api/context';
import { Button, ErrorNote } from '../../ui/kit';
import { useSyncedForm } from '../../ui/synced-form';
import { labelsText, parseLabels } from '../nodes/node-words';

type Body = { replicas?: number; placement?: ServicePlacement };

export function ReplicasSettings({ service: s }: { service: Service }) {
  const [f, setF] = useSyncedForm(() => ({ replicas: String(s.replicas), labels: labelsText(s.placement.nodeLabels) }), JSON.stringify([s.replicas, s.placement]));
  const [saved, setSaved] = useState<string | null>(null);
  const save = useAction<Body, { service: Service }>('PATCH', apiPath('services.patch', { serviceId: s.id }), {
    invalidate: [
      ['service', s.id],
      ['instances', s.id],
    ],
    success: 'Replicas and placement saved; they apply at the next deployment',
    notifyErrors: false,
  });
  const parsed = parseLabels(f.labels);
  const replicas = Number(f.replicas);
  const replicasOk = Number.isInteger(replicas) && replicas >= 1;
  const id = `replicas-${s.id}`;
  return (
    <form
      className="card stack"
      aria-label="Replicas and placement"
      onSubmit={(e) => {
        e.preventDefault();
        if (!replicasOk || !('labels' in parsed)) return;
        const body: Body = {};
        if (replicas !== s.replicas) body.replicas = replicas;
        if (JSON.stringify(parsed.labels) !== JSON.stringify(s.placement.nodeLabels)) body.placement = { nodeLabels: parsed.labels };
        if (Object.keys(body).length === 0) return setSaved('Nothing changed.');
        save.mutate(body, { onSuccess: () => setSaved(`Saved${body.replicas !== undefined ? `: ${body.replicas} replica${body.replicas === 1 ? '' : 's'}` : ''}.`) });
      }}
    >
      <h2 className="h3">Replicas and placement</h2>
      <div className="field narrow">
        <label htmlFor={id}>Replicas</label>
        <input
          id={id}
          type="number"
          min={1}
          max={100}
          className="short"
          value={f.replicas}
          onChange={(e) => {
            setSaved(null);
            setF({ ...f, replicas: e.target.value });
          }}
          aria-describedby={`${id}-hint`}
          aria-invalid={!replicasOk || undefined}
        />
        <div className="hint" id={`${id}-hint`}>
          How many instances run, spread over the nodes. More than 1 needs Swarm mode on (the Nodes page); with it, the service keeps serving when a node is lost.
        </div>
      </div>
      <div className="field">
        <label htmlFor={`${id}-placement`}>Placement: node labels</label>
        <input
          id={`${id}-placement`}
          className="mono"
          value={f.labels}
          onChange={(e) => {
            setSaved(null);
            setF({ ...f, labels: e.target.value });
          }}
          placeholder="region=eu disk=ssd"
          aria-describedby={`${id}-placement-hint`}
          aria-invalid={'error' in parsed || undefined}
          autoComplete="off"
          spellCheck={false}
        />
        <div className="hint" id={`${id}-placement-hint`}>
          {'error' in parsed ? <span className="tone-bad-text">{parsed.error}</span> : 'Instances run only on nodes carrying every one of these key=value labels (Swarm mode too); empty: any node.'}
        </div>
      </div>
      <ErrorNote error={save.error} />
      {saved && !save.error ? (
        <div className="note note-ok" role="status">
          {saved}
        </div>
      ) : null}
      <div className="row end">
        <Button type="submit" variant="primary" busy={save.isPending} disabled={!replicasOk || 'error' in parsed}>
          Save replicas
        </Button>
      </div>
    </form>
  );
}
