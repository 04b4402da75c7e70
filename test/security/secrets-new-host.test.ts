// A stored AI key or SMTP password is not sent to a new host without being typed again: an
// update that points an AI provider at another base URL (scheme, host or port), or an e-mail
// channel at another SMTP server, while keeping the stored secret, is refused with 400
// `secret_required` and changes nothing; the old host keeps getting the key. Whoever can change
// the settings (a leaked all-projects key, a mistake) cannot walk away with the secret that way.
import { expect } from 'chai';
import type { BerthClient } from '../../shared/client.js';
import { startAnthropicFake, type FakeProvider } from '../helpers/ai-fakes.js';
import { allowLoopbackNotifyTargets } from '../helpers/notify-targets.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniq } from '../helpers/fixtures.js';
import { waitForDeployment } from '../helpers/wait.js';

describe('stored secrets: a new host needs the secret typed again', function () {
  this.timeout(60_000);
  let t: TestDaemon;
  let tenant: BerthClient;
  let failedId: string;
  let home: FakeProvider;
  let elsewhere: FakeProvider;

  before(async () => {
    [home, elsewhere] = [await startAnthropicFake(), await startAnthropicFake()];
    // deployments fail at their first step, locally: nothing listens on port 9
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: 'http://127.0.0.1:9' });
    await allowLoopbackNotifyTargets(t.admin);
    const projectId = (await t.admin.createProject({ name: uniq('new-host') })).project.id;
    tenant = await t.clientWith('write', [projectId]);
    const { service } = await tenant.createService(projectId, { name: 'web', repoFullName: 'acme/web', internalPort: 3000 });
    const { deployment } = await tenant.deploy(service.id);
    failedId = (await waitForDeployment(tenant, service.id, deployment.id, ['failed'], 20_000)).id;
  });
  after(async () => {
    await home?.stop();
    await elsewhere?.stop();
    await t?.stop();
  });

  it('an AI provider moved to another base URL without its key: 400, and the old host keeps getting the key', async () => {
    await t.admin.putAiProvider('claude', { kind: 'anthropic', baseUrl: home.baseUrl, apiKey: home.apiKey });
    const moved = await t.admin.request('PUT', '/api/system/ai-providers/claude', { kind: 'anthropic', baseUrl: elsewhere.baseUrl });
    expect(moved.status, JSON.stringify(moved.body)).to.equal(400);
    expect(JSON.stringify(moved.body)).to.match(/secret_required.*re-enter the apiKey to send it to a new host/);
    await tenant.explainFailure(failedId, { providerId: 'claude', model: 'claude-x' });
    expect(home.requests.at(-1)!.headers['x-api-key']).to.equal(home.apiKey);
    expect(elsewhere.requests).to.have.length(0);
    // the same host (a name or model change) keeps the key; a new key may go anywhere
    expect((await t.admin.request('PUT', '/api/system/ai-providers/claude', { kind: 'anthropic', baseUrl: home.baseUrl, name: 'Claude' })).status).to.equal(200);
    await t.admin.putAiProvider('claude', { kind: 'anthropic', baseUrl: elsewhere.baseUrl, apiKey: elsewhere.apiKey });
    await tenant.explainFailure(failedId, { providerId: 'claude', model: 'claude-x' });
    expect(elsewhere.requests.at(-1)!.headers['x-api-key']).to.equal(elsewhere.apiKey);
  });

  it('an e-mail channel moved to another SMTP server without its password: 400, unchanged', async () => {
    const made = await t.admin.request<{ channel: { id: string } }>('POST', '/api/system/notifications', {
      type: 'email',
      name: 'mail',
      host: '127.0.0.1',
      port: 2525,
      username: 'ops',
      password: 'smtp-secret-0123456789',
      from: 'berth@example.test',
      to: ['ops@example.test'],
      events: ['deployment_failed'],
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(200);
    const id = made.body.channel.id;
    for (const patch of [{ host: 'smtp.evil.example' }, { port: 25 }]) {
      const moved = await t.admin.request('PATCH', `/api/system/notifications/${id}`, patch);
      expect(moved.status, JSON.stringify(moved.body)).to.equal(400);
      expect(JSON.stringify(moved.body)).to.match(/re-enter the password to send it to a new host/);
    }
    const list = await t.admin.request<{ channels: { id: string; target: string }[] }>('GET', '/api/system/notifications');
    expect(JSON.stringify(list.body.channels.find((c) => c.id === id))).to.include('127.0.0.1:2525');
    // with the password typed again, it moves
    expect((await t.admin.request('PATCH', `/api/system/notifications/${id}`, { host: 'smtp.example.test', password: 'smtp-secret-0123456789' })).status).to.equal(200);
  });
});
