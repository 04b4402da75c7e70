// Where a service's instances run: one row per Swarm task (or per container on a single server),
// with its node, Docker's state and desired state, and the error Docker gave, verbatim. Live: the
// `instances` event (and `node`, as tasks move with nodes) refetches it.
import type { Service } from '../../../../../shared/types.js';
import type { ServiceInstance } from '../../../../../shared/types/swarm.js';
import { apiPath } from '../../../../../shared/api-routes.js';
import { useGet } from '../../api/context';
import { Empty, ErrorNote, Loading, timeAgo } from '../../ui/kit';
import { Badge, instanceTone } from '../nodes/node-words';
import '../nodes/nodes.css';

export default function InstancesTab({ service: s }: { service: Service }) {
  const q = useGet<{ instances: ServiceInstance[] }>(['instances', s.id], apiPath('services.instances', { serviceId: s.id }));
  return (
    <section className="stack" aria-label="Instances">
      <p className="muted">
        {s.replicas === 1 ? 'One instance' : `${s.replicas} instances`} wanted{Object.keys(s.placement.nodeLabels).length > 0 ? ', on nodes labelled ' : ''}
        {Object.entries(s.placement.nodeLabels)
          .map(([k, v]) => `${k}=${v}`)
          .join(' ')}
        .
      </p>
      <ErrorNote error={q.error} />
      {q.isPending ? <Loading what="instances" /> : null}
      {q.data && q.data.instances.length === 0 ? <Empty title="No instances">Nothing runs yet: deploy the service.</Empty> : null}
      {q.data && q.data.instances.length > 0 ? (
        <table className="table">
          <caption className="sr-only">Instances of {s.name}</caption>
          <thead>
            <tr>
              <th scope="col">Node</th>
              <th scope="col">State</th>
              <th scope="col">Desired</th>
              <th scope="col">Error</th>
              <th scope="col">Started</th>
            </tr>
          </thead>
          <tbody>
            {q.data.instances.map((i) => (
              <tr key={i.id} aria-label={`Instance ${i.id.slice(0, 12)}`}>
                <td className="mono" title={i.nodeId}>
                  {i.nodeHostname}
                </td>
                <td>
                  <Badge tone={instanceTone(i.state)}>{i.state}</Badge>
                </td>
                <td>{i.desiredState}</td>
                <td>{i.error ? <span className="instance-error mono small">{i.error}</span> : <span className="muted">-</span>}</td>
                <td title={i.startedAt ?? undefined}>{i.startedAt ? timeAgo(i.startedAt) : '-'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
