// Swarm mode (core/swarm.ts), its nodes (core/nodes.ts) and joining them (core/node-joins.ts).
// Keys over all projects only (the route table says so; core checks again).
import { z } from 'zod';
import type { NodePatch, SwarmEnableInput } from '../../../shared/types/swarm.js';
import { route } from '../route-table.js';
import { rawBody } from '../body.js';
import { parse } from '../validate.js';

// Strict: a misspelt field (advertiseAddr) must not pass silently.
const swarmEnable = z.strictObject({ advertiseAddress: z.string().trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters').optional() }) satisfies z.ZodType<SwarmEnableInput>;

const nodePatch = z.strictObject({
  availability: z.enum(['active', 'pause', 'drain']).optional(),
  // names and values are checked by core (the same rules as a service's placement)
  labels: z.record(z.string(), z.string()).optional(),
  force: z.boolean().optional(),
}) satisfies z.ZodType<NodePatch>;

// what the join script sends: its hostname and /etc/machine-id (core checks their form)
const joinComplete = z.strictObject({ hostname: z.string().max(253), machineId: z.string().max(64) });
const JOIN_BODY_LIMIT = 4096;

export const swarmRoutes = {
  ...route('swarm.get', { handler: async ({ access }, { core }) => ({ swarm: await core.swarm.status(access) }) }),
  ...route('swarm.enable', { body: swarmEnable, handler: async ({ access, body }, { core }) => ({ swarm: await core.swarm.enable(access, body) }) }),
  ...route('swarm.disable', { handler: async ({ access }, { core }) => ({ swarm: await core.swarm.disable(access) }) }),
  ...route('nodes.list', { handler: ({ access }, { core }) => core.nodes.list(access) }),
  ...route('nodes.patch', { body: nodePatch, handler: ({ access, params, body }, { core }) => core.nodes.patch(access, params.nodeId, body) }),
  ...route('nodes.join', { handler: ({ access }, { core }) => core.nodeJoins.create(access) }),
  // The three open routes a joining server calls (the token is the credential). They read no JSON
  // through the shared parser, so the registrar puts them on the open router, before the key check.
  ...route('nodes.join-script', {
    rawBody: true,
    handler: async ({ ctx, params }, { core }) => {
      const script = await core.nodeJoins.script(params.token);
      ctx.set('Content-Type', 'text/x-shellscript; charset=utf-8');
      ctx.set('Cache-Control', 'no-store');
      return script;
    },
  }),
  ...route('nodes.join-ca', {
    rawBody: true,
    handler: async ({ ctx, params }, { core }) => {
      const pem = await core.nodeJoins.ca(params.token);
      ctx.set('Content-Type', 'application/x-pem-file');
      return pem;
    },
  }),
  ...route('nodes.join-complete', {
    rawBody: true,
    handler: async ({ ctx, params }, { core }) => {
      let json: unknown;
      try {
        json = JSON.parse((await rawBody(ctx, JOIN_BODY_LIMIT)).toString('utf8'));
      } catch {
        json = undefined;
      }
      return core.nodeJoins.complete(params.token, parse(joinComplete, json));
    },
  }),
  ...route('nodes.delete', {
    handler: async ({ access, params }, { core }) => {
      await core.nodes.remove(access, params.nodeId);
      return { ok: true as const };
    },
  }),
};
