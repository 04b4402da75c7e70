// Stored credentials never follow a redirect: an AI provider's or a DNS provider's server that
// answers 307 to another host (its own hijacked endpoint, a lapsed domain, a tenant's app) would
// otherwise receive the request again, with the API key in its headers, at the host it names.
// The daemon fetches with `redirect: 'manual'` and refuses a redirect answer with a message
// naming only the target's host. A selected-projects key asks for the explanation of its own
// failed deployment; the redirect target is a local server that records what reaches it.
import { expect } from 'chai';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BerthClient } from '../../shared/client.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniq } from '../helpers/fixtures.js';
import { waitForDeployment } from '../helpers/wait.js';
import { refusedWith } from './data-watch.js';

const API_KEY = 'sk-ant-redirect-test-0123456789abcdef';
const DNS_TOKEN = 'cf-token-redirect-test-0123456789abcdef';

async function listen(handler: Parameters<typeof createServer>[1]): Promise<[Server, number]> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return [server, (server.address() as AddressInfo).port];
}

describe('stored credentials: AI and DNS provider requests do not follow redirects', function () {
  this.timeout(60_000);
  let t: TestDaemon;
  let tenant: BerthClient;
  let failedId: string;
  let serviceId: string;
  let redirector: Server;
  let collector: Server;
  let collectorPort: number;
  let redirectorPort: number;
  const reached: { url: string; headers: IncomingHttpHeaders }[] = [];

  before(async () => {
    [collector, collectorPort] = await listen((req, res) => {
      reached.push({ url: req.url ?? '', headers: req.headers });
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    [redirector, redirectorPort] = await listen((req, res) => {
      req.resume();
      res.writeHead(307, { location: `http://localhost:${collectorPort}${req.url ?? '/'}` }).end();
    });
    // deployments fail at their first step, locally: nothing listens on port 9
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: 'http://127.0.0.1:9' });
    const projectId = (await t.admin.createProject({ name: uniq('redirects') })).project.id;
    tenant = await t.clientWith('write', [projectId]);
    const { service } = await tenant.createService(projectId, { name: 'web', repoFullName: 'acme/web', internalPort: 3000 });
    serviceId = service.id;
    const { deployment } = await tenant.deploy(service.id);
    failedId = (await waitForDeployment(tenant, service.id, deployment.id, ['failed'], 20_000)).id;
  });
  after(async () => {
    await t?.stop();
    await new Promise((r) => redirector?.close(r));
    await new Promise((r) => collector?.close(r));
  });

  it('an AI provider answering 307 to another host: the explanation fails naming the redirect, the key reaches nobody else', async () => {
    await t.admin.putAiProvider('redirecting', { kind: 'anthropic', baseUrl: `http://127.0.0.1:${redirectorPort}`, apiKey: API_KEY });
    const err = await refusedWith(tenant.explainFailure(failedId, { providerId: 'redirecting', model: 'claude-x' }));
    expect(err.status).to.be.within(400, 599);
    expect(err.message).to.match(/redirect \(HTTP 307\) to localhost:\d+; Berth does not follow redirects with credentials/);
    expect(err.message).not.to.include(API_KEY);
    expect(reached, 'requests that reached the redirect target').to.deep.equal([]);
  });

  it('a DNS provider answering 307 to another host: the record is not made, the token reaches nobody else', async () => {
    await t.admin.connectDnsProvider('cloudflare', { apiToken: DNS_TOKEN, baseUrl: `http://127.0.0.1:${redirectorPort}/client/v4` });
    const { domain } = await tenant.addDomain(serviceId, `${uniq('shop')}.example.com`);
    // the operator's key: a project key may only write its own generated names (dns-scope), refused before any request
    const err = await refusedWith(t.admin.createDnsRecord(serviceId, domain.id, 'cloudflare'));
    expect(err.message).to.match(/redirect \(HTTP 307\) to localhost:\d+/);
    expect(err.message).not.to.include(DNS_TOKEN);
    expect(reached, 'requests that reached the redirect target').to.deep.equal([]);
  });
});
