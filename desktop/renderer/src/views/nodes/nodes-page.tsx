// The Nodes view (keys over all projects): Swarm mode on or off, the nodes of the swarm with their
// state, capacity and tasks, and adding a node. Live: the `swarm` and `node` events refetch it.
import type { SwarmNode, SwarmStatus } from '../../../../../shared/types/swarm.js';
import { apiPath } from '../../../../../shared/api-routes.js';
import { useGet } from '../../api/context';
import { Empty, ErrorNote, Loading } from '../../ui/kit';
import { JoinCommand } from './join-command';
import { NodeRow } from './node-row';
import { SwarmCard } from './swarm-card';
import './nodes.css';

export default function NodesPage({ canWrite }: { canWrite: boolean }) {
  const swarm = useGet<{ swarm: SwarmStatus }>(['swarm'], apiPath('swarm.get'));
  const on = swarm.data?.swarm.enabled === true;
  const nodes = useGet<{ nodes: SwarmNode[] }>(['nodes'], on ? apiPath('nodes.list') : null);
  return (
    <div className="page">
      <div className="page-head">
        <div>
          <h1>Nodes</h1>
          <p className="muted">The servers this one runs services on, through Docker Swarm mode.</p>
        </div>
      </div>
      <ErrorNote error={swarm.error} />
      {swarm.isPending ? <Loading what="Swarm mode" /> : null}
      {swarm.data ? <SwarmCard swarm={swarm.data.swarm} canWrite={canWrite} /> : null}
      {on ? (
        <>
          <section className="card stack" aria-label="Nodes of the swarm">
            <h2 className="h3">Nodes in the swarm</h2>
            <ErrorNote error={nodes.error} />
            {nodes.isPending ? <Loading what="nodes" /> : null}
            {nodes.data && nodes.data.nodes.length === 0 ? <Empty title="No nodes" /> : null}
            {nodes.data && nodes.data.nodes.length > 0 ? (
              <div className="table-scroll">
                <table className="table nodes-table">
                  <caption className="sr-only">Nodes of the swarm</caption>
                  <thead>
                    <tr>
                      <th scope="col">Hostname</th>
                      <th scope="col">Role</th>
                      <th scope="col">State</th>
                      <th scope="col">Availability</th>
                      <th scope="col">Address</th>
                      <th scope="col">CPUs</th>
                      <th scope="col">Memory</th>
                      <th scope="col">Tasks</th>
                      <th scope="col">Labels</th>
                      <th scope="col">
                        <span className="sr-only">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {nodes.data.nodes.map((n) => (
                      <NodeRow key={n.id} node={n} canWrite={canWrite} />
                    ))}
                  </tbody>
                </table>
              </div>
            ) : null}
          </section>
          {canWrite ? <JoinCommand /> : null}
        </>
      ) : null}
    </div>
  );
}
