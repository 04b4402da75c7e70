// Local stand-ins for the AI providers' HTTP APIs: the real paths, methods and auth headers, and
// answers in each API's real response format (success and error). Each records what it was sent,
// and can be told to answer with something that is not an explanation.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Explanation } from '../../shared/types.js';

interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body as sent, for "this text never reached the provider" checks. */
  raw: string;
  body: Record<string, unknown>;
}

/** What the fake answers as the model's text: the explanation as JSON, fenced JSON, or prose. */
type FakeAnswer = 'json' | 'fenced' | 'prose';

export interface FakeProvider {
  kind: 'openai' | 'anthropic' | 'gemini';
  /** The base URL Berth is configured with (OpenAI's includes /v1, as the real one does). */
  baseUrl: string;
  /** The only key the fake accepts. */
  apiKey: string;
  requests: SeenRequest[];
  answer: FakeAnswer;
  explanation: Explanation;
  /** The model named in the last request (body or path). */
  modelOf(req: SeenRequest): string;
  /** System and user prompt of a request, in its API's own format. */
  promptOf(req: SeenRequest): { system: string; user: string };
  stop(): Promise<void>;
}

export const FAKE_EXPLANATION: Explanation = {
  summary: 'The clone failed.',
  likelyCause: 'Clone failure: nothing listens at the git host.',
  suggestedFix: 'Point the service at a reachable repository.',
  commands: ['git ls-remote <url>'],
};

interface Api {
  kind: FakeProvider['kind'];
  apiKey: string;
  basePath: string;
  /** Whether this method and path are the API's explain call. */
  route(method: string, path: string): boolean;
  authorized(headers: IncomingHttpHeaders, key: string): boolean;
  /** The real error body and status for a bad key. */
  authError(): { status: number; body: unknown };
  success(text: string, req: SeenRequest): unknown;
  modelOf(req: SeenRequest): string;
  promptOf(req: SeenRequest): { system: string; user: string };
}

const OPENAI: Api = {
  kind: 'openai',
  apiKey: 'sk-fake-openai-0123456789abcdef',
  basePath: '/v1',
  route: (m, p) => m === 'POST' && p === '/v1/chat/completions',
  authorized: (h, key) => h.authorization === `Bearer ${key}`,
  authError: () => ({
    status: 401,
    body: {
      error: {
        message: 'Incorrect API key provided: sk-wrong***. You can find your API key at https://platform.openai.com/account/api-keys.',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_api_key',
      },
    },
  }),
  success: (text, req) => ({
    id: 'chatcmpl-fake1',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: req.body.model,
    choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: 900, completion_tokens: 80, total_tokens: 980 },
  }),
  modelOf: (req) => String(req.body.model),
  promptOf: (req) => {
    const messages = req.body.messages as { role: string; content: string }[];
    return { system: messages.find((m) => m.role === 'system')?.content ?? '', user: messages.find((m) => m.role === 'user')?.content ?? '' };
  },
};

const ANTHROPIC: Api = {
  kind: 'anthropic',
  apiKey: 'sk-ant-fake-0123456789abcdef',
  basePath: '',
  route: (m, p) => m === 'POST' && p === '/v1/messages',
  authorized: (h, key) => h['x-api-key'] === key && typeof h['anthropic-version'] === 'string',
  authError: () => ({ status: 401, body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } }),
  success: (text, req) => ({
    id: 'msg_fake1',
    type: 'message',
    role: 'assistant',
    model: req.body.model,
    content: [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 900, output_tokens: 80 },
  }),
  modelOf: (req) => String(req.body.model),
  promptOf: (req) => {
    const messages = req.body.messages as { role: string; content: string }[];
    return { system: String(req.body.system), user: messages.find((m) => m.role === 'user')?.content ?? '' };
  },
};

const GEMINI_PATH = /^\/v1beta\/models\/([^/:]+):generateContent$/;
const GEMINI: Api = {
  kind: 'gemini',
  apiKey: 'AIzaFakeGeminiKey0123456789abcdefghij',
  basePath: '',
  route: (m, p) => m === 'POST' && GEMINI_PATH.test(p),
  authorized: (h, key) => h['x-goog-api-key'] === key,
  authError: () => ({ status: 400, body: { error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT' } } }),
  success: (text, req) => ({
    candidates: [{ content: { parts: [{ text }], role: 'model' }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 900, candidatesTokenCount: 80, totalTokenCount: 980 },
    modelVersion: GEMINI.modelOf(req),
  }),
  modelOf: (req) => decodeURIComponent(GEMINI_PATH.exec(req.path)?.[1] ?? ''),
  promptOf: (req) => {
    const system = req.body.systemInstruction as { parts: { text: string }[] };
    const contents = req.body.contents as { role: string; parts: { text: string }[] }[];
    return {
      system: system.parts.map((p) => p.text).join(''),
      user:
        contents
          .find((c) => c.role === 'user')
          ?.parts.map((p) => p.text)
          .join('') ?? '',
    };
  },
};

function modelText(fake: FakeProvider): string {
  const json = JSON.stringify(fake.explanation);
  if (fake.answer === 'fenced') return '```json\n' + json + '\n```';
  if (fake.answer === 'prose') return 'Sure! The deployment most likely failed because the git server was unreachable.';
  return json;
}

async function start(api: Api): Promise<FakeProvider> {
  const requests: SeenRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const path = new URL(req.url ?? '/', 'http://fake').pathname;
      if (!api.route(req.method ?? 'GET', path)) return send(404, { error: { message: `no route ${req.method} ${path}` } });
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return send(400, { error: { message: 'invalid JSON body' } });
      }
      const seen: SeenRequest = { method: req.method ?? '', path, headers: req.headers, raw, body };
      requests.push(seen);
      if (!api.authorized(req.headers, api.apiKey)) {
        const { status, body: error } = api.authError();
        return send(status, error);
      }
      send(200, api.success(modelText(fake), seen));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const fake: FakeProvider = {
    kind: api.kind,
    baseUrl: `http://127.0.0.1:${port}${api.basePath}`,
    apiKey: api.apiKey,
    requests,
    answer: 'json',
    explanation: FAKE_EXPLANATION,
    modelOf: api.modelOf,
    promptOf: api.promptOf,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return fake;
}

export function startOpenAiFake(): Promise<FakeProvider> {
  return start(OPENAI);
}
export function startAnthropicFake(): Promise<FakeProvider> {
  return start(ANTHROPIC);
}
export function startGeminiFake(): Promise<FakeProvider> {
  return start(GEMINI);
}
