// One node of the swarm: its facts, and drain / activate / labels / remove. A refusal (409) shows
// under the row verbatim; a drain refused because databases live there offers `force`.
import { useState } from 'react';
import type { NodePatch, SwarmNode } from '../../../../../shared/types/swarm.js';
import { apiPath } from '../../../../../shared/api-routes.js';
import { useAction } from '../../api/context';
import { ApiError, errorMessage } from '../../transport/transport';
import { Button, ConfirmButton, ErrorNote, Field, Modal, bytes } from '../../ui/kit';
import { AVAILABILITY_TONE, Badge, STATE_TONE, labelsText, parseLabels } from './node-words';

const COLUMNS = 10;

export function NodeRow({ node: n, canWrite }: { node: SwarmNode; canWrite: boolean }) {
  const invalidate = [['nodes'], ['swarm']];
  const patch = useAction<NodePatch, { node: SwarmNode }>('PATCH', apiPath('nodes.patch', { nodeId: n.id }), { invalidate, notifyErrors: false });
  const remove = useAction<undefined, { ok: true }>('DELETE', apiPath('nodes.delete', { nodeId: n.id }), { invalidate, success: `${n.hostname} removed`, notifyErrors: false });
  const [labelsOpen, setLabelsOpen] = useState(false);
  const error = patch.error ?? remove.error;
  // the daemon refuses to drain the node its databases live on unless told `force`
  const forceOffer =
    patch.error instanceof ApiError && patch.error.status === 409 && patch.variables?.availability === 'drain' && !patch.variables.force && /database/i.test(errorMessage(patch.error));
  const busy = patch.isPending || remove.isPending;
  return (
    <>
      <tr aria-label={`Node ${n.hostname}`}>
        <th scope="row" className="mono">
          {n.hostname}
        </th>
        <td>{n.role}</td>
        <td>
          <Badge tone={STATE_TONE[n.state] ?? 'muted'}>{n.state}</Badge>
        </td>
        <td>
          <Badge tone={AVAILABILITY_TONE[n.availability] ?? 'muted'}>{n.availability}</Badge>
        </td>
        <td className="mono small">{n.address}</td>
        <td>{n.cpus}</td>
        <td>{bytes(n.memoryBytes)}</td>
        <td>{n.tasks}</td>
        <td>
          <span className="label-chips">
            {Object.entries(n.labels).map(([k, v]) => (
              <span key={k} className="chip mono">
                {k}={v}
              </span>
            ))}
          </span>
        </td>
        <td>
          {canWrite ? (
            <div className="node-actions">
              {n.availability === 'drain' || n.availability === 'pause' ? (
                <Button busy={patch.isPending} onClick={() => patch.mutate({ availability: 'active' })}>
                  Activate
                </Button>
              ) : (
                <ConfirmButton
                  variant="default"
                  label="Drain"
                  title={`Drain ${n.hostname}?`}
                  message="Its tasks move to other nodes first, each new one answering before an old one stops (up to a minute), then no new task is placed on it until you activate it again."
                  confirmLabel="Drain"
                  busy={patch.isPending}
                  onConfirm={() => patch.mutate({ availability: 'drain' })}
                />
              )}
              <Button disabled={busy} onClick={() => setLabelsOpen(true)}>
                Labels
              </Button>
              {n.role === 'worker' ? (
                <ConfirmButton
                  label="Remove"
                  title={`Remove ${n.hostname}?`}
                  message="Only a node that is down or drained can be removed. To join it again, run a new join command on it."
                  confirmLabel="Remove node"
                  busy={remove.isPending}
                  onConfirm={() => remove.mutate(undefined)}
                />
              ) : null}
            </div>
          ) : null}
          <Modal open={labelsOpen} title={`Labels of ${n.hostname}`} onClose={() => setLabelsOpen(false)}>
            <LabelsForm
              node={n}
              busy={patch.isPending}
              error={patch.variables?.labels ? patch.error : null}
              onSave={(labels) =>
                patch.mutate(
                  { labels },
                  {
                    onSuccess: () => setLabelsOpen(false),
                  },
                )
              }
            />
          </Modal>
        </td>
      </tr>
      {error ? (
        <tr>
          <td colSpan={COLUMNS}>
            <div className="note note-error row wrap" role="alert">
              <span>{errorMessage(error)}</span>
              {forceOffer ? (
                <Button variant="danger" busy={patch.isPending} onClick={() => patch.mutate({ availability: 'drain', force: true })}>
                  Drain anyway (force)
                </Button>
              ) : null}
            </div>
          </td>
        </tr>
      ) : null}
    </>
  );
}

function LabelsForm({ node, busy, error, onSave }: { node: SwarmNode; busy: boolean; error: unknown; onSave: (labels: Record<string, string>) => void }) {
  const [text, setText] = useState(labelsText(node.labels));
  const parsed = parseLabels(text);
  return (
    <form
      className="stack"
      onSubmit={(e) => {
        e.preventDefault();
        if ('labels' in parsed) onSave(parsed.labels);
      }}
    >
      <Field label="Labels" hint="key=value pairs separated by spaces; they replace the node's labels. Services place their instances by them (placement in a service's settings).">
        {(id) => <input id={id} className="mono" value={text} onChange={(e) => setText(e.target.value)} autoComplete="off" spellCheck={false} aria-invalid={'error' in parsed || undefined} />}
      </Field>
      {'error' in parsed ? <div className="hint tone-bad-text">{parsed.error}</div> : null}
      <ErrorNote error={error} />
      <div className="row end">
        <Button type="submit" variant="primary" busy={busy} disabled={'error' in parsed}>
          Save labels
        </Button>
      </div>
    </form>
  );
}
