// The few calls of the registry's HTTP API (distribution's /v2/) that garbage collection needs:
// the repositories, a repository's tags, the digest a tag points at, and deleting a manifest by
// digest. Over TLS verified against Berth's CA, with the credentials only Berth holds. Answers are
// size-capped and every call is bounded in time: the registry is Berth's, but its volume is not
// trusted to be small.
import { request } from 'node:https';
import type { RegistryAuth } from '../core/ports/swarm.js';

const TIMEOUT_MS = 15_000;
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
/** Every manifest type `docker push` writes: a tag's digest is the one of what it was pushed as. */
const MANIFEST_TYPES = [
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.oci.image.index.v1+json',
].join(', ');
const PAGE = 1000;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export class RegistryApi {
  constructor(
    private readonly address: string,
    private readonly auth: RegistryAuth,
    private readonly caPem: string,
  ) {}

  /** Every repository the registry holds (`berth/<serviceId>`, ...), page by page. */
  async repositories(): Promise<string[]> {
    const out: string[] = [];
    let last = '';
    for (;;) {
      const a = await this.call('GET', `/v2/_catalog?n=${PAGE}${last ? `&last=${encodeURIComponent(last)}` : ''}`);
      expectStatus(a, [200], 'listing its repositories');
      const page = (JSON.parse(a.body) as { repositories?: string[] | null }).repositories ?? [];
      out.push(...page);
      if (page.length < PAGE || !a.headers.link) return out;
      last = page[page.length - 1]!;
    }
  }

  /** A repository's tags; none when the repository is gone or holds none. */
  async tags(repo: string): Promise<string[]> {
    const a = await this.call('GET', `/v2/${repo}/tags/list`);
    if (a.status === 404) return [];
    expectStatus(a, [200], `listing the tags of ${repo}`);
    return (JSON.parse(a.body) as { tags?: string[] | null }).tags ?? [];
  }

  /** The digest `repo:tag` points at, or null when the tag is gone. */
  async digest(repo: string, tag: string): Promise<string | null> {
    const a = await this.call('HEAD', `/v2/${repo}/manifests/${encodeURIComponent(tag)}`);
    if (a.status === 404) return null;
    expectStatus(a, [200], `reading ${repo}:${tag}`);
    const digest = a.headers['docker-content-digest'];
    if (typeof digest !== 'string' || !/^sha256:[0-9a-f]{64}$/.test(digest)) throw new Error(`Berth's registry gave no digest for ${repo}:${tag}`);
    return digest;
  }

  /** Deletes the manifest `digest` in `repo` (every tag on it goes with it); the blobs stay until a garbage collection. */
  async deleteManifest(repo: string, digest: string): Promise<void> {
    const a = await this.call('DELETE', `/v2/${repo}/manifests/${digest}`);
    if (a.status === 404) return;
    expectStatus(a, [202, 200], `deleting ${repo}@${digest}`);
  }

  private call(method: string, path: string): Promise<Answer> {
    const colon = this.address.lastIndexOf(':');
    const host = this.address.slice(0, colon).replace(/^\[|\]$/g, '');
    const port = Number(this.address.slice(colon + 1));
    const authorization = `Basic ${Buffer.from(`${this.auth.username}:${this.auth.password}`).toString('base64')}`;
    return new Promise((resolve, reject) => {
      const req = request({ host, port, path, method, ca: this.caPem, headers: { authorization, accept: MANIFEST_TYPES }, timeout: TIMEOUT_MS }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_ANSWER_BYTES) return req.destroy(new Error(`Berth's registry answered ${method} ${path} with more than ${MAX_ANSWER_BYTES} bytes`));
          chunks.push(c);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`Berth's registry did not answer ${method} ${path} within ${TIMEOUT_MS / 1000} s`)));
      req.on('error', reject);
      req.end();
    });
  }
}

function expectStatus(a: Answer, ok: number[], what: string): void {
  if (!ok.includes(a.status)) throw new Error(`Berth's registry answered ${a.status} ${what}: ${a.body.slice(0, 300)}`);
}
