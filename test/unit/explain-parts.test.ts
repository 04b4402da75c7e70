// The parts of failure explanations that need no daemon: redaction of log text, reading a model's
// answer, and the provider HTTP call's time limit and error reporting (against real local servers).
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProviderError } from '../../daemon/core/errors.js';
import { stripTerminalCodes } from '../../daemon/core/explain.js';
import { redactor } from '../../daemon/core/redact.js';
import { postJson } from '../../daemon/integrations/ai/http.js';
import { parseAnswer } from '../../daemon/integrations/ai/prompt.js';

describe('redaction of log text', () => {
  it('replaces every known secret value, longest first, wherever it appears', () => {
    const redact = redactor(['hunter2-pass', 'hunter2-pass-and-more', 'abc']);
    expect(redact('login with hunter2-pass-and-more, then hunter2-pass')).to.equal('login with [redacted], then [redacted]');
  });

  it('keeps values too short or too plain to be secrets (3 characters, ports, booleans)', () => {
    const redact = redactor(['abc', '8080', 'true']);
    expect(redact('abc listens on 8080: true')).to.equal('abc listens on 8080: true');
  });

  it('redacts each line of a multi-line secret (a PEM key logged line by line)', () => {
    const redact = redactor(['line-one-of-the-key\nline-two-of-the-key']);
    expect(redact('oops: line-two-of-the-key')).to.equal('oops: [redacted]');
  });

  for (const [label, text, expected] of [
    ['URL credentials', 'cloning https://bob:pa55word@git.example.com/x.git', 'cloning https://[redacted]@git.example.com/x.git'],
    ['a bearer token', 'Authorization: Bearer abcdefghijklmnop1234', 'Authorization: Bearer [redacted]'],
    ['a GitHub token', 'token ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'token [redacted]'],
    ['an OpenAI-style key', 'OPENAI=sk-proj-abcdefghijklmnop1234', 'OPENAI=[redacted]'],
    ['a Berth key', 'key berth_abcdefghijklmnopqrstuvwxyz012345', 'key [redacted]'],
    ['an AWS access key id', 'AKIAABCDEFGHIJKLMNOP in use', '[redacted] in use'],
    ['a secret-named assignment', 'DB_PASSWORD=correct-horse', 'DB_PASSWORD=[redacted]'],
    ['a password in a query string', 'GET /login?user=bob&password=correct-horse&x=1', 'GET /login?user=bob&password=[redacted]&x=1'],
    ['a token in JSON', '{"token": "abcdefgh12345"}', '{"token": "[redacted]"}'],
  ] as const) {
    it(`redacts ${label} whatever its origin`, () => {
      expect(redactor([])(text)).to.equal(expected);
    });
  }

  it('leaves ordinary build output alone', () => {
    for (const line of ['Step 4/5 : RUN npm install --offline; npm error code ENOTCACHED; returned a non-zero code: 1', 'tokenizer: loaded 3 models']) {
      expect(redactor(['unrelated-secret'])(line)).to.equal(line);
    }
  });

  it('strips terminal colour codes from build output', () => {
    expect(stripTerminalCodes('\u001b[91mnpm error Missing script: "start"\u001b[0m')).to.equal('npm error Missing script: "start"');
  });
});

describe("reading a model's answer", () => {
  const good = { summary: 's', likelyCause: 'c', suggestedFix: 'f', commands: ['ls'] };

  it('reads plain JSON and JSON in a ```json fence, keeping only the four fields', () => {
    expect(parseAnswer(JSON.stringify({ ...good, confidence: 0.9 }))).to.deep.equal(good);
    expect(parseAnswer('```json\n' + JSON.stringify(good) + '\n```')).to.deep.equal(good);
  });

  for (const [label, answer] of [
    ['prose', 'The build failed because of npm.'],
    ['an empty answer', ''],
    ['a JSON array', '[]'],
    ['a missing field', JSON.stringify({ summary: 's', likelyCause: 'c', commands: [] })],
    ['commands that are not strings', JSON.stringify({ ...good, commands: [1, 2] })],
    ['a summary that is not a string', JSON.stringify({ ...good, summary: { text: 's' } })],
    ['an empty likelyCause', JSON.stringify({ ...good, likelyCause: ' ' })],
  ] as const) {
    it(`refuses ${label} with a ProviderError quoting the answer`, () => {
      let err: unknown;
      try {
        parseAnswer(answer);
      } catch (e) {
        err = e;
      }
      expect(err).to.be.instanceOf(ProviderError);
      expect((err as ProviderError).status).to.equal(502);
      expect((err as ProviderError).message).to.match(/^the provider answered, but not with an explanation: /);
    });
  }
});

describe('the provider HTTP call', () => {
  let server: Server;
  let baseUrl: string;
  let handler: (body: string, respond: (status: number, text: string) => void) => void;

  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () =>
        handler(body, (status, text) => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(text);
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const endpoint = () => ({ label: 'Fake', baseUrl, apiKey: 'sk-live-key-abcdefghijklmnop', timeoutMs: 300 });

  async function failure(promise: Promise<unknown>): Promise<ProviderError> {
    try {
      await promise;
    } catch (err) {
      expect(err).to.be.instanceOf(ProviderError);
      return err as ProviderError;
    }
    throw new Error('expected a ProviderError');
  }

  it('gives up after its time limit with a ProviderError naming the provider', async () => {
    handler = () => undefined; // never answers
    const err = await failure(postJson(endpoint(), '/x', {}, {}));
    expect(err.message).to.equal(`Fake at ${baseUrl} did not answer within 0.3 s`);
  });

  it("reports a refusal with the provider's error.message, never echoing the key", async () => {
    handler = (_b, respond) => respond(401, JSON.stringify({ error: { message: 'bad key sk-live-key-abcdefghijklmnop', type: 'auth' } }));
    const err = await failure(postJson(endpoint(), '/x', {}, {}));
    expect(err.message).to.equal('Fake refused the request (HTTP 401): bad key [redacted]');
  });

  it('reports a 2xx answer that is not JSON', async () => {
    handler = (_b, respond) => respond(200, '<html>gateway</html>');
    const err = await failure(postJson(endpoint(), '/x', {}, {}));
    expect(err.message).to.equal('Fake answered HTTP 200, but not with JSON: <html>gateway</html>');
  });

  it('sends the body as JSON and returns the parsed answer', async () => {
    handler = (body, respond) => respond(200, JSON.stringify({ echo: JSON.parse(body) as unknown }));
    expect(await postJson(endpoint(), '/x', {}, { a: 1 })).to.deep.equal({ echo: { a: 1 } });
  });
});
