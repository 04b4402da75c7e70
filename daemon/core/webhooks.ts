// Deploy on push: a per-service webhook secret, and the deliveries git hosts send to
// POST /api/hooks/:serviceId, authenticated by their signature (no API key): GitHub's
// X-Hub-Signature-256 (HMAC-SHA256 of the body), Gitea's and Forgejo's X-Gitea-Signature /
// X-Forgejo-Signature (the same HMAC, bare hex) and GitLab's X-Gitlab-Token (the secret itself).
// Every comparison is constant-time. A push to the service's branch queues a deployment of the
// pushed commit (trigger `webhook`).
// Replays: the delivery id is outside the signature (anyone holding one captured delivery can send
// it again under fresh ids), so a delivery is also known by its body's hash and by its `(ref,
// commit)`; any of the three seen before, or a commit this branch has already deployed (queued,
// built or ran), is answered 202 `{ignored}` and deploys nothing. Git history is not at hand here,
// so "older" means "deployed before on this branch": a force-push back to an earlier commit is
// deployed by hand (POST /api/services/:id/deploy), never by a delivery.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { deploymentInProgress, deploymentSucceeded } from '../../shared/statuses.js';
import type { Deployment, DeploymentStatus } from '../../shared/types.js';
import { visibleService, type Access } from './access.js';
import type { Clock } from './clock.js';
import type { Deployments } from './deployments.js';
import { InvalidInput, Unauthorized } from './errors.js';
import type { ServiceRecord } from './records.js';
import type { Store } from './ports/store.js';

type HookProvider = 'github' | 'gitea' | 'gitlab';

/** A delivery as received: lower-case header names, the raw body bytes. */
export interface HookDelivery {
  headers: Record<string, string | undefined>;
  body: Buffer;
  /** `application/x-www-form-urlencoded` bodies carry the JSON in a `payload` field (GitHub's other format). */
  contentType: string;
}

export type HookOutcome = { deployment: Deployment } | { ignored: string };

/** Delivery ids are remembered this long (a replay after that would be a very old delivery). */
const DELIVERY_MEMORY_MS = 30 * 24 * 3600_000;
const COMMIT_SHA = /^[0-9a-f]{40}$/;
const ZERO_SHA = /^0{40}$/;
/** A deployment in progress or one that went live deployed (or is deploying) its commit: a push of it again is a replay. */
const deployedOrDeploying = (s: DeploymentStatus) => deploymentInProgress(s) || deploymentSucceeded(s);

interface DeliveryKey {
  key: string;
  /** Why a delivery whose key was recorded before is ignored. */
  why: string;
}

export class Webhooks {
  constructor(
    private store: Store,
    private clock: Clock,
    private deployments: Deployments,
  ) {}

  /** Creates or rotates the service's webhook; the secret is answered here only. */
  async create(access: Access, serviceId: string): Promise<{ serviceId: string; secret: string }> {
    access.requireWrite();
    const service = await visibleService(this.store, access, serviceId);
    if (service.kind !== 'git') throw new InvalidInput(`a ${service.kind} service has no git branch to deploy on push; webhooks are for git services`, 'not_git');
    const secret = randomBytes(32).toString('hex');
    await this.store.webhooks.put(service.id, secret, this.clock.now());
    return { serviceId: service.id, secret };
  }

  async get(access: Access, serviceId: string): Promise<{ serviceId: string; hasSecret: boolean; lastDeliveryAt: string | null }> {
    const service = await visibleService(this.store, access, serviceId);
    const hook = await this.store.webhooks.get(service.id);
    return { serviceId: service.id, hasSecret: hook !== null, lastDeliveryAt: hook?.lastDeliveryAt ?? null };
  }

  async delete(access: Access, serviceId: string): Promise<void> {
    access.requireWrite();
    const service = await visibleService(this.store, access, serviceId);
    await this.store.webhooks.delete(service.id);
  }

  /** A delivery from a git host. Throws Unauthorized (and does nothing) unless the signature is right. */
  async receive(serviceId: string, delivery: HookDelivery): Promise<HookOutcome> {
    const h = delivery.headers;
    const hook = await this.store.webhooks.get(serviceId);
    const service = hook ? await this.store.services.get(serviceId) : null;
    // An unknown service and one without a webhook answer like a wrong signature: nothing is revealed.
    const provider = providerOf(h);
    if (provider === null) throw new Unauthorized('a signed delivery is required (X-Hub-Signature-256, X-Gitea-Signature or X-Gitlab-Token)');
    if (!hook || !service || !verified(provider, h, delivery.body, hook.secret)) {
      throw new Unauthorized("the delivery signature does not match this service's webhook secret");
    }
    const now = this.clock.now();
    await this.store.webhooks.touch(service.id, now);

    const event = eventOf(provider, h);
    if (!isPush(provider, event)) return { ignored: `event ${event || '(none)'} is not a push` };
    if (service.kind !== 'git') return { ignored: `a ${service.kind} service does not deploy on push` };
    const payload = parsePayload(delivery);
    const ref = typeof payload.ref === 'string' ? payload.ref : '';
    const branch = service.branch;
    if (ref !== `refs/heads/${branch}`) return { ignored: `a push to ${ref || '(no ref)'}, not to the service's branch ${branch}` };
    const after = typeof payload.after === 'string' ? payload.after : '';
    if (payload.deleted === true || ZERO_SHA.test(after)) return { ignored: `branch ${branch} was deleted` };
    const commitSha = (typeof payload.checkout_sha === 'string' && provider === 'gitlab' ? payload.checkout_sha : after).toLowerCase();
    if (!COMMIT_SHA.test(commitSha)) throw new InvalidInput('the push names no 40-character commit sha in `after`', 'invalid_payload');

    // Over the project's queue cap: refused (429) before the delivery is remembered, so a redelivery can still deploy.
    await this.deployments.requireQueueRoom(service as ServiceRecord);
    // Every key is recorded in one transaction: a delivery whose id, body or (ref, commit) was seen before is a replay.
    const deliveryId = deliveryIdOf(provider, h);
    const keys: DeliveryKey[] = [
      ...(deliveryId ? [{ key: deliveryId.slice(0, 200), why: `delivery ${deliveryId.slice(0, 200)} was received before` }] : []),
      { key: `sha256:${createHash('sha256').update(delivery.body).digest('hex')}`, why: 'a delivery with this exact body was received before' },
      { key: `push:${commitSha}:${ref.slice(0, 120)}`, why: `a push of commit ${commitSha.slice(0, 12)} to ${branch} was received before` },
    ];
    const forgetBefore = new Date(Date.parse(now) - DELIVERY_MEMORY_MS).toISOString();
    const seen = await this.store.webhooks.firstDelivery(
      service.id,
      keys.map((k) => k.key),
      now,
      forgetBefore,
    );
    if (seen !== null) return { ignored: `${keys.find((k) => k.key === seen)?.why ?? 'received before'}; not deployed again` };
    const deployedBefore = (await this.store.deployments.listByService(service.id)).find(
      (d) => d.commitSha === commitSha && (d.branch === null || d.branch === branch) && deployedOrDeploying(d.status),
    );
    if (deployedBefore) {
      return { ignored: `commit ${commitSha.slice(0, 12)} was already deployed on branch ${branch} (deployment ${deployedBefore.id}); a push of it is not deployed again` };
    }
    return { deployment: await this.deployments.fromWebhook(service as ServiceRecord, commitSha) };
  }
}

function providerOf(h: HookDelivery['headers']): HookProvider | null {
  // Gitea and Forgejo also send GitHub's headers: their own, more specific, come first
  if (h['x-gitea-signature'] !== undefined || h['x-forgejo-signature'] !== undefined) return 'gitea';
  if (h['x-hub-signature-256'] !== undefined) return 'github';
  if (h['x-gitlab-token'] !== undefined) return 'gitlab';
  return null;
}

function verified(provider: HookProvider, h: HookDelivery['headers'], body: Buffer, secret: string): boolean {
  if (provider === 'gitlab') {
    // equal-length digests, so the comparison takes the same time whatever the token's length
    const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
    return timingSafeEqual(digest(h['x-gitlab-token'] ?? ''), digest(secret));
  }
  const expected = createHmac('sha256', secret).update(body).digest();
  const given =
    provider === 'github'
      ? /^sha256=([0-9a-fA-F]{64})$/.exec((h['x-hub-signature-256'] ?? '').trim())?.[1]
      : /^([0-9a-fA-F]{64})$/.exec((h['x-gitea-signature'] ?? h['x-forgejo-signature'] ?? '').trim())?.[1];
  if (!given) return false;
  return timingSafeEqual(Buffer.from(given, 'hex'), expected);
}

function eventOf(provider: HookProvider, h: HookDelivery['headers']): string {
  if (provider === 'github') return h['x-github-event'] ?? '';
  if (provider === 'gitea') return h['x-gitea-event'] ?? h['x-forgejo-event'] ?? '';
  return h['x-gitlab-event'] ?? '';
}

function isPush(provider: HookProvider, event: string): boolean {
  return provider === 'gitlab' ? event === 'Push Hook' : event === 'push';
}

function deliveryIdOf(provider: HookProvider, h: HookDelivery['headers']): string | null {
  const id = provider === 'github' ? h['x-github-delivery'] : provider === 'gitea' ? (h['x-gitea-delivery'] ?? h['x-forgejo-delivery']) : (h['x-gitlab-event-uuid'] ?? h['idempotency-key']);
  return id && id.trim() !== '' ? `${provider}:${id.trim()}` : null;
}

function parsePayload(delivery: HookDelivery): Record<string, unknown> {
  let text = delivery.body.toString('utf8');
  if (/^application\/x-www-form-urlencoded/i.test(delivery.contentType)) text = new URLSearchParams(text).get('payload') ?? '';
  try {
    const value = JSON.parse(text) as unknown;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw new InvalidInput('the delivery body is not a JSON object', 'invalid_payload');
}
