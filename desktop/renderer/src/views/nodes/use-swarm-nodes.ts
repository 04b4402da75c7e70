// Swarm mode and its nodes for views outside the Nodes page (the new database form, a service's
// header). Same query keys as the Nodes page, so the `swarm` and `node` events keep them live. A
// key over some projects does not see the swarm: nothing is asked, and Swarm reads as off.
import { useQueryClient } from '@tanstack/react-query';
import type { ApiKey } from '../../../../../shared/types.js';
import type { SwarmNode, SwarmStatus } from '../../../../../shared/types/swarm.js';
import { apiPath } from '../../../../../shared/api-routes.js';
import { useGet } from '../../api/context';

export function useSwarmNodes(wanted = true): { on: boolean; nodes: SwarmNode[] } {
  const session = useQueryClient().getQueryData<{ key: ApiKey } | null>(['session']);
  const allowed = wanted && session?.key.projects === 'all';
  const swarm = useGet<{ swarm: SwarmStatus }>(['swarm'], allowed ? apiPath('swarm.get') : null);
  const on = allowed && swarm.data?.swarm.enabled === true;
  const nodes = useGet<{ nodes: SwarmNode[] }>(['nodes'], on ? apiPath('nodes.list') : null);
  return { on, nodes: on ? (nodes.data?.nodes ?? []) : [] };
}

/** The workers a new database can be placed on: ready and active. */
export function placeableWorkers(nodes: SwarmNode[]): SwarmNode[] {
  return nodes.filter((n) => n.role === 'worker' && n.state === 'ready' && n.availability === 'active');
}

/** A node's hostname from the list, else the first 12 characters of its id. */
export function nodeName(nodes: SwarmNode[], id: string): string {
  return nodes.find((n) => n.id === id)?.hostname ?? id.slice(0, 12);
}
