// A service's custom domains: add, change, remove.
import { route } from '../route-table.js';
import { hostnameBody } from '../validate.js';

export const domainRoutes = {
  ...route('domains.add', {
    body: hostnameBody,
    handler: async ({ access, params, body }, { core }) => {
      const { domain, proxy } = await core.domains.add(access, params.serviceId, body.hostname);
      // Clients in the field read the created domain from `domain`, beside the spec's ok and proxy.
      return { ok: true, proxy, domain };
    },
  }),
  ...route('domains.patch', {
    body: hostnameBody,
    handler: async ({ access, params, body }, { core }) => ({ ok: true, proxy: await core.domains.update(access, params.serviceId, params.domainId, body.hostname) }),
  }),
  ...route('domains.delete', {
    handler: async ({ access, params }, { core }) => ({ ok: true, proxy: await core.domains.remove(access, params.serviceId, params.domainId) }),
  }),
};
