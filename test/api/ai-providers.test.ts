// Failure explanations through AI providers, without Docker: a deployment that fails at its clone
// (nothing listens at the git base URL) is explained through local fakes of the OpenAI, Anthropic
// and Gemini APIs. The fakes see what Berth sends (model, key, prompt: never a secret) and answer
// in each API's real format, also with a malformed answer and an auth error. Provider settings:
// keys sealed at rest and never returned, admin-only, bad input refused without a change.
import { expect } from 'chai';
import knexFactory from 'knex';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DB_FILE } from '../../daemon/store/open.js';
import type { BerthClient } from '../../shared/client.js';
import type { AiProvider, AiProviderInput } from '../../shared/types.js';
import { FAKE_EXPLANATION, startAnthropicFake, startGeminiFake, startOpenAiFake, type FakeProvider } from '../helpers/ai-fakes.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { uniq } from '../helpers/fixtures.js';
import { snapshotStore } from '../helpers/snapshot.js';
import { waitForDeployment } from '../helpers/wait.js';

const SECRET = 's3cr3t-value-123';
const OTHER_SECRET = 'other-service-secret-456';
const MODELS = { openai: 'gpt-4o-mini', anthropic: 'claude-sonnet-4-5', gemini: 'gemini-2.0-flash' } as const;

type ErrorBody = { error: { code: string; message: string } };

async function withKnex<T>(dataDir: string, fn: (knex: ReturnType<typeof knexFactory>) => Promise<T>): Promise<T> {
  const knex = knexFactory({ client: 'sqlite3', connection: { filename: join(dataDir, DB_FILE) }, useNullAsDefault: true });
  try {
    return await fn(knex);
  } finally {
    await knex.destroy();
  }
}

/** A loopback port nothing listens on (fetch refuses port 9 outright, so that one proves nothing). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('failure explanations through AI providers', function () {
  this.timeout(60_000);
  let t: TestDaemon;
  let fakes: FakeProvider[];
  let projectId: string;
  let serviceId: string;
  let failedId: string;

  before(async () => {
    t = await startTestDaemon({ BERTH_GIT_BASE_URL: 'http://127.0.0.1:9' });
    fakes = [await startOpenAiFake(), await startAnthropicFake(), await startGeminiFake()];
    projectId = (await t.admin.createProject({ name: uniq('explain') })).project.id;
    // Another service's secret, and this service's own: both end up in the clone line of the log.
    await t.admin.createService(projectId, { name: 'other', repoFullName: 'acme/other', env: [{ key: 'OTHER_TOKEN', value: OTHER_SECRET }] });
    const { service } = await t.admin.createService(projectId, {
      name: 'web',
      repoUrl: `http://127.0.0.1:9/${OTHER_SECRET}/${SECRET}.git`,
      internalPort: 3000,
      env: [{ key: 'API_SECRET', value: SECRET }],
    });
    serviceId = service.id;
    const { deployment } = await t.admin.deploy(service.id);
    failedId = (await waitForDeployment(t.admin, service.id, deployment.id, ['failed'], 20_000)).id;
  });
  after(async () => {
    for (const f of fakes ?? []) await f.stop();
    await t?.stop();
  });

  async function configure(fake: FakeProvider, extra: Partial<AiProviderInput> = {}): Promise<{ id: string; provider: AiProvider }> {
    const id = uniq(fake.kind);
    const { provider } = await t.admin.putAiProvider(id, { kind: fake.kind, baseUrl: fake.baseUrl, apiKey: fake.apiKey, ...extra });
    return { id, provider };
  }

  it('the failed deployment really has the secrets in its log (the premise of the redaction checks)', async () => {
    const { logs } = await t.admin.deploymentLogs(failedId);
    const text = logs.map((l) => l.line).join('\n');
    expect(text).to.include(SECRET);
    expect(text).to.include(OTHER_SECRET);
  });

  // One contract, every provider API.
  for (const kind of ['openai', 'anthropic', 'gemini'] as const) {
    describe(`${kind} API`, () => {
      const fake = () => fakes.find((f) => f.kind === kind)!;

      it('is sent the model, the key in its auth header, the build method and the log tail with every secret redacted; its answer is returned', async () => {
        const f = fake();
        const { id } = await configure(f);
        const before = f.requests.length;
        const { explanation } = await t.admin.explainFailure(failedId, { providerId: id, model: MODELS[kind] });
        expect(explanation).to.deep.equal(FAKE_EXPLANATION);

        expect(f.requests).to.have.length(before + 1);
        const req = f.requests.at(-1)!;
        expect(f.modelOf(req)).to.equal(MODELS[kind]);
        if (kind === 'openai') {
          expect(req.path).to.equal('/v1/chat/completions');
          expect(req.headers.authorization).to.equal(`Bearer ${f.apiKey}`);
          expect(req.body).to.deep.include({ temperature: 0, response_format: { type: 'json_object' } });
        } else if (kind === 'anthropic') {
          expect(req.path).to.equal('/v1/messages');
          expect(req.headers['x-api-key']).to.equal(f.apiKey);
          expect(req.headers['anthropic-version']).to.equal('2023-06-01');
          expect(req.body.max_tokens).to.equal(1024);
        } else {
          expect(req.path).to.equal(`/v1beta/models/${MODELS.gemini}:generateContent`);
          expect(req.headers['x-goog-api-key']).to.equal(f.apiKey);
          expect(req.body.generationConfig).to.deep.equal({ responseMimeType: 'application/json', temperature: 0 });
        }
        expect(req.headers['content-type']).to.match(/^application\/json/);

        const { system, user } = f.promptOf(req);
        for (const field of ['summary', 'likelyCause', 'suggestedFix', 'commands']) expect(system).to.include(field);
        expect(user).to.match(/Build method: not decided/);
        expect(user).to.include('(configured: auto)');
        expect(user).to.include('Detected framework: unknown');
        expect(user).to.include('API_SECRET'); // the name of a variable may go; its value may not
        expect(user).to.include('Cloning http://127.0.0.1:9/[redacted]/[redacted].git');
        expect(user).to.include('Deployment failed: git clone failed');
        expect(req.raw).not.to.include(SECRET);
        expect(req.raw).not.to.include(OTHER_SECRET);
      });

      it("uses the provider's default model when the request names none", async () => {
        const f = fake();
        const { id } = await configure(f, { defaultModel: `${MODELS[kind]}-default` });
        await t.admin.explainFailure(failedId, { providerId: id });
        expect(f.modelOf(f.requests.at(-1)!)).to.equal(`${MODELS[kind]}-default`);
      });

      it('reads an answer wrapped in a ```json fence', async () => {
        const f = fake();
        const { id } = await configure(f);
        f.answer = 'fenced';
        try {
          expect((await t.admin.explainFailure(failedId, { providerId: id, model: MODELS[kind] })).explanation).to.deep.equal(FAKE_EXPLANATION);
        } finally {
          f.answer = 'json';
        }
      });

      it('reports an answer that is not an explanation as a 502, quoting it, instead of inventing one', async () => {
        const f = fake();
        const { id } = await configure(f);
        f.answer = 'prose';
        try {
          const res = await t.admin.request<ErrorBody>('POST', `/api/deployments/${failedId}/explain-failure`, { providerId: id, model: MODELS[kind] });
          expect(res.status).to.equal(502);
          expect(res.body.error.code).to.equal('provider_error');
          expect(res.body.error.message).to.match(/^the provider answered, but not with an explanation: Sure! The deployment most likely failed/);
        } finally {
          f.answer = 'json';
        }
      });

      it('reports an answer with a field of the wrong type as a 502', async () => {
        const f = fake();
        const { id } = await configure(f);
        f.explanation = { ...FAKE_EXPLANATION, commands: 'git ls-remote' as unknown as string[] };
        try {
          const res = await t.admin.request<ErrorBody>('POST', `/api/deployments/${failedId}/explain-failure`, { providerId: id, model: MODELS[kind] });
          expect(res.status).to.equal(502);
          expect(res.body.error.message).to.match(/not with an explanation/);
        } finally {
          f.explanation = FAKE_EXPLANATION;
        }
      });

      it("reports the provider's own error message when it refuses the key, without the key", async () => {
        const f = fake();
        const wrongKey = `${f.apiKey}-wrong`;
        const { id } = await configure(f, { apiKey: wrongKey });
        const res = await t.admin.request<ErrorBody>('POST', `/api/deployments/${failedId}/explain-failure`, { providerId: id, model: MODELS[kind] });
        expect(res.status).to.equal(502);
        expect(res.body.error.code).to.equal('provider_error');
        const expected = { openai: /HTTP 401\): Incorrect API key provided/, anthropic: /HTTP 401\): invalid x-api-key/, gemini: /HTTP 400\): API key not valid/ }[kind];
        expect(res.body.error.message).to.match(expected);
        expect(res.body.error.message).not.to.include(wrongKey);
      });
    });
  }

  it('a provider that cannot be reached is a 502 naming its base URL', async () => {
    const port = await closedPort();
    const id = uniq('down');
    await t.admin.putAiProvider(id, { kind: 'openai', baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: 'sk-unused-key-000000000000' });
    const res = await t.admin.request<ErrorBody>('POST', `/api/deployments/${failedId}/explain-failure`, { providerId: id, model: 'm' });
    expect(res.status).to.equal(502);
    expect(res.body.error.message).to.equal(`could not reach the OpenAI-compatible API (provider "${id}") at http://127.0.0.1:${port}/v1: ECONNREFUSED`);
  });

  it('the built-in local provider explains the clone failure with no network and no model', async () => {
    const seen = fakes.map((f) => f.requests.length);
    const { explanation } = await t.admin.explainFailure(failedId, { providerId: 'local' });
    expect(explanation.likelyCause).to.match(/^Clone failure: /);
    expect(explanation.summary).to.be.a('string').and.not.equal('');
    expect(explanation.commands).to.be.an('array');
    expect(JSON.stringify(explanation)).not.to.include(SECRET);
    expect(fakes.map((f) => f.requests.length)).to.deep.equal(seen);
  });

  it('explaining a deployment that did not fail is a 409 not_failed', async () => {
    const now = new Date().toISOString();
    const ids = { running: `dep-running-${uniq('x')}`, queued: `dep-queued-${uniq('x')}` };
    await withKnex(t.dataDir, async (knex) => {
      for (const [status, id] of Object.entries(ids)) await knex('deployments').insert({ id, service_id: serviceId, status, trigger: 'manual', created_at: now });
    });
    for (const id of Object.values(ids)) {
      const res = await t.admin.request<ErrorBody>('POST', `/api/deployments/${id}/explain-failure`, { providerId: 'local' });
      expect(res.status).to.equal(409);
      expect(res.body.error.code).to.equal('not_failed');
    }
  });

  it('an unknown provider is a 400 unknown_provider; a provider without a default model needs one', async () => {
    const unknown = await t.admin.request<ErrorBody>('POST', `/api/deployments/${failedId}/explain-failure`, { providerId: 'nope', model: 'm' });
    expect(unknown.status).to.equal(400);
    expect(unknown.body.error.code).to.equal('unknown_provider');
    const { id } = await configure(fakes[0]!);
    const noModel = await t.admin.request<ErrorBody>('POST', `/api/deployments/${failedId}/explain-failure`, { providerId: id });
    expect(noModel.status).to.equal(400);
    expect(noModel.body.error.message).to.match(/model/);
  });

  it('explain-failure needs a write key that can see the project (403 read, 404 outside, 401 none)', async () => {
    const read = await t.clientWith('read', 'all');
    expect((await read.request('POST', `/api/deployments/${failedId}/explain-failure`, { providerId: 'local' })).status).to.equal(403);
    const { project: elsewhere } = await t.admin.createProject({ name: uniq('elsewhere') });
    const outside = await t.clientWith('write', [elsewhere.id]);
    expect((await outside.request('POST', `/api/deployments/${failedId}/explain-failure`, { providerId: 'local' })).status).to.equal(404);
    const inside = await t.clientWith('write', [projectId]);
    expect((await inside.request('POST', `/api/deployments/${failedId}/explain-failure`, { providerId: 'local' })).status).to.equal(200);
    expect((await t.anonymous.request('POST', `/api/deployments/${failedId}/explain-failure`, { providerId: 'local' })).status).to.equal(401);
  });

  describe('provider settings', () => {
    it('lists the built-in local provider first and configured ones without their key', async () => {
      const f = fakes[1]!;
      const { id, provider } = await configure(f, { name: 'Claude', defaultModel: 'claude-x' });
      expect(provider).to.deep.equal({ ...provider, id, kind: 'anthropic', name: 'Claude', baseUrl: f.baseUrl, defaultModel: 'claude-x', hasApiKey: true });
      expect(Object.keys(provider).sort()).to.deep.equal(['baseUrl', 'createdAt', 'defaultModel', 'hasApiKey', 'id', 'kind', 'name', 'updatedAt']);
      const { providers } = await t.admin.listAiProviders();
      expect(providers[0]).to.deep.include({ id: 'local', kind: 'local', hasApiKey: false, baseUrl: null });
      expect(providers.find((p) => p.id === id)).to.deep.equal(provider);
      const raw = JSON.stringify(await t.admin.request('GET', '/api/system/ai-providers'));
      for (const fake of fakes) expect(raw).not.to.include(fake.apiKey);
    });

    it('fills in the default base URL and name of a kind', async () => {
      const { provider } = await t.admin.putAiProvider(uniq('gem'), { kind: 'gemini', apiKey: 'AIzaSomethingSomethingSomething00000000' });
      expect(provider).to.include({ baseUrl: 'https://generativelanguage.googleapis.com', name: 'Google Gemini', defaultModel: null });
    });

    it('keeps the API key sealed at rest', async () => {
      const f = fakes[0]!;
      const { id } = await configure(f);
      const row = await withKnex(t.dataDir, async (knex) => (await knex('ai_providers').where({ id }).first()) as { api_key: string });
      expect(row.api_key).not.to.include(f.apiKey);
      expect(row.api_key).to.match(/^v1:/);
    });

    it('an update without apiKey keeps the stored key; changing the kind needs a new one', async () => {
      const f = fakes[0]!;
      const { id } = await configure(f);
      const { provider } = await t.admin.putAiProvider(id, { kind: 'openai', name: 'Renamed', baseUrl: f.baseUrl });
      expect(provider).to.include({ name: 'Renamed', hasApiKey: true });
      await t.admin.explainFailure(failedId, { providerId: id, model: 'gpt-x' });
      expect(f.requests.at(-1)!.headers.authorization).to.equal(`Bearer ${f.apiKey}`);
      const res = await t.admin.request<ErrorBody>('PUT', `/api/system/ai-providers/${id}`, { kind: 'anthropic' });
      expect(res.status).to.equal(400);
      expect(res.body.error.message).to.match(/apiKey/);
    });

    it('DELETE removes a provider; it is then unknown', async () => {
      const { id } = await configure(fakes[2]!);
      expect(await t.admin.deleteAiProvider(id)).to.deep.equal({ ok: true });
      expect((await t.admin.listAiProviders()).providers.map((p) => p.id)).not.to.include(id);
      const res = await t.admin.request<ErrorBody>('POST', `/api/deployments/${failedId}/explain-failure`, { providerId: id, model: 'm' });
      expect(res.body.error.code).to.equal('unknown_provider');
      expect((await t.admin.request('DELETE', `/api/system/ai-providers/${id}`)).status).to.equal(404);
    });

    it('needs a key over all projects: write to change, any to list; 401 without a key; nothing changes when refused', async () => {
      const { id } = await configure(fakes[0]!);
      const { project } = await t.admin.createProject({ name: uniq('scoped') });
      const callers: [string, BerthClient, { list: number; change: number }][] = [
        ['a read key over all projects', await t.clientWith('read', 'all'), { list: 200, change: 403 }],
        ['a write key over selected projects', await t.clientWith('write', [project.id]), { list: 403, change: 403 }],
        ['no key', t.anonymous, { list: 401, change: 401 }],
      ];
      const before = await snapshotStore(t.dataDir);
      for (const [who, client, expected] of callers) {
        expect((await client.request('GET', '/api/system/ai-providers')).status, `${who}: list`).to.equal(expected.list);
        const put = await client.request('PUT', `/api/system/ai-providers/${id}`, { kind: 'openai', apiKey: 'sk-stolen-000000000000000' });
        expect(put.status, `${who}: put`).to.equal(expected.change);
        expect((await client.request('PUT', `/api/system/ai-providers/${uniq('new')}`, { kind: 'openai', apiKey: 'sk-x-0000000000000000' })).status, `${who}: create`).to.equal(expected.change);
        expect((await client.request('DELETE', `/api/system/ai-providers/${id}`)).status, `${who}: delete`).to.equal(expected.change);
      }
      expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
    });

    const bad: [string, string, unknown][] = [
      ['the reserved id local', 'local', { kind: 'openai', apiKey: 'k-000000' }],
      ['an id with capitals and underscores', 'Bad_Id', { kind: 'openai', apiKey: 'k-000000' }],
      ['an id that is too long', 'a'.repeat(42), { kind: 'openai', apiKey: 'k-000000' }],
      ['an unknown kind', 'p1', { kind: 'cohere', apiKey: 'k-000000' }],
      ['no kind', 'p1', { apiKey: 'k-000000' }],
      ['no apiKey on creation', 'p1', { kind: 'openai' }],
      ['an empty apiKey', 'p1', { kind: 'openai', apiKey: '  ' }],
      ['an apiKey that is not a string', 'p1', { kind: 'openai', apiKey: 12345 }],
      ['a baseUrl that is not http(s)', 'p1', { kind: 'openai', apiKey: 'k-000000', baseUrl: 'file:///etc/passwd' }],
      ['a baseUrl that is not a URL', 'p1', { kind: 'openai', apiKey: 'k-000000', baseUrl: 'api.openai.com' }],
      ['a baseUrl with credentials', 'p1', { kind: 'openai', apiKey: 'k-000000', baseUrl: 'https://user:pw@example.com/v1' }],
      ['an unknown field', 'p1', { kind: 'openai', apiKey: 'k-000000', apikey: 'typo' }],
      ['a name that is too long', 'p1', { kind: 'openai', apiKey: 'k-000000', name: 'n'.repeat(101) }],
    ];
    for (const [label, id, body] of bad) {
      it(`refuses ${label} (400) and stores nothing`, async () => {
        const before = await snapshotStore(t.dataDir);
        const res = await t.admin.request<ErrorBody>('PUT', `/api/system/ai-providers/${encodeURIComponent(id)}`, body);
        expect(res.status).to.equal(400);
        expect(res.body.error.code).to.equal('invalid_input');
        expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
      });
    }

    it('refuses malformed explain-failure bodies (400) and deleting the built-in provider (400)', async () => {
      const before = await snapshotStore(t.dataDir);
      for (const body of [{}, { providerId: '' }, { providerId: 5 }, { providerId: 'local', model: 7 }]) {
        expect((await t.admin.request('POST', `/api/deployments/${failedId}/explain-failure`, body)).status, JSON.stringify(body)).to.equal(400);
      }
      expect((await t.admin.request('POST', `/api/deployments/${failedId}/explain-failure`, undefined, { rawBody: '{"providerId":' })).status).to.equal(400);
      expect((await t.admin.request('POST', '/api/deployments/nope/explain-failure', { providerId: 'local' })).status).to.equal(404);
      expect((await t.admin.request('DELETE', '/api/system/ai-providers/local')).status).to.equal(400);
      expect(await snapshotStore(t.dataDir)).to.deep.equal(before);
    });
  });
});
