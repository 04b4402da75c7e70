// Push webhook deliveries as git hosts send them: GitHub's and Gitea's real payload shapes and
// headers (event, delivery id, HMAC-SHA256 signature of the exact body bytes), and GitLab's
// token header. Used with the git server's onPush to make `git push` call Berth.
import { createHmac, randomUUID } from 'node:crypto';
import { request } from 'node:http';
import type { PushInfo } from './git-server.js';

export interface Delivery {
  headers: Record<string, string>;
  body: Buffer;
}

const hmac = (secret: string, body: Buffer) => createHmac('sha256', secret).update(body).digest('hex');

function commitOf(push: PushInfo, webUrl: string) {
  const author = { name: 'Berth Test', email: 'test@berth.invalid', username: 'berth-test' };
  return {
    id: push.after,
    tree_id: 'f'.repeat(40),
    distinct: true,
    message: push.message,
    timestamp: new Date().toISOString(),
    url: `${webUrl}/commit/${push.after}`,
    author,
    committer: author,
    added: push.files,
    removed: [] as string[],
    modified: [] as string[],
  };
}

/** A GitHub `push` delivery (application/json), signed with X-Hub-Signature-256. */
export function githubPush(push: PushInfo, secret: string, deliveryId: string = randomUUID()): Delivery {
  const [owner, name] = push.repo.split('/') as [string, string];
  const webUrl = push.cloneUrl.replace(/\.git$/, '');
  const head = commitOf(push, webUrl);
  const payload = {
    ref: `refs/heads/${push.branch}`,
    before: push.before,
    after: push.after,
    repository: {
      id: 1296269,
      node_id: 'MDEwOlJlcG9zaXRvcnkxMjk2MjY5',
      name,
      full_name: push.repo,
      private: false,
      owner: { name: owner, login: owner, id: 1, type: 'User' },
      html_url: webUrl,
      clone_url: push.cloneUrl,
      default_branch: 'main',
      master_branch: 'main',
    },
    pusher: { name: 'berth-test', email: 'test@berth.invalid' },
    sender: { login: 'berth-test', id: 1, type: 'User' },
    created: /^0{40}$/.test(push.before),
    deleted: false,
    forced: false,
    base_ref: null,
    compare: `${webUrl}/compare/${push.before.slice(0, 12)}...${push.after.slice(0, 12)}`,
    commits: [head],
    head_commit: head,
  };
  const body = Buffer.from(JSON.stringify(payload));
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/7a1b2c3',
      'x-github-event': 'push',
      'x-github-delivery': deliveryId,
      'x-github-hook-id': '461111111',
      'x-github-hook-installation-target-type': 'repository',
      'x-hub-signature': `sha1=${createHmac('sha1', secret).update(body).digest('hex')}`,
      'x-hub-signature-256': `sha256=${hmac(secret, body)}`,
    },
  };
}

/** A Gitea (and Forgejo) `push` delivery, signed with X-Gitea-Signature (bare hex). */
export function giteaPush(push: PushInfo, secret: string, deliveryId: string = randomUUID()): Delivery {
  const [owner, name] = push.repo.split('/') as [string, string];
  const webUrl = push.cloneUrl.replace(/\.git$/, '');
  const head = { ...commitOf(push, webUrl), verification: null };
  const user = { id: 1, login: owner, full_name: '', email: 'test@berth.invalid', username: owner };
  const payload = {
    ref: `refs/heads/${push.branch}`,
    before: push.before,
    after: push.after,
    compare_url: `${webUrl}/compare/${push.before}...${push.after}`,
    commits: [head],
    total_commits: 1,
    head_commit: head,
    repository: { id: 7, owner: user, name, full_name: push.repo, private: false, html_url: webUrl, clone_url: push.cloneUrl, default_branch: 'main' },
    pusher: user,
    sender: user,
  };
  const body = Buffer.from(JSON.stringify(payload, null, 2));
  const signature = hmac(secret, body);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Go-http-client/1.1',
      'x-gitea-delivery': deliveryId,
      'x-gitea-event': 'push',
      'x-gitea-event-type': 'push',
      'x-gitea-signature': signature,
      'x-gogs-delivery': deliveryId,
      'x-gogs-event': 'push',
      'x-gogs-event-type': 'push',
      'x-gogs-signature': signature,
    },
  };
}

/** A GitLab `Push Hook` delivery: the secret travels as X-Gitlab-Token. */
export function gitlabPush(push: PushInfo, token: string, eventUuid: string = randomUUID()): Delivery {
  const payload = {
    object_kind: 'push',
    event_name: 'push',
    before: push.before,
    after: push.after,
    ref: `refs/heads/${push.branch}`,
    checkout_sha: push.after,
    total_commits_count: 1,
    project: { path_with_namespace: push.repo, git_http_url: push.cloneUrl },
  };
  return {
    body: Buffer.from(JSON.stringify(payload)),
    headers: { 'content-type': 'application/json', 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': token, 'x-gitlab-event-uuid': eventUuid, 'x-gitlab-instance': 'https://gitlab.example' },
  };
}

/** POSTs a delivery to 127.0.0.1:<port><path> with an optional Host header (Caddy's address and the dashboard hostname). */
export function send(port: number, path: string, delivery: Delivery, host?: string): Promise<{ status: number; json: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', agent: false, headers: { ...delivery.headers, ...(host ? { host } : {}), 'content-length': String(delivery.body.length) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: Record<string, unknown>;
          try {
            json = JSON.parse(text) as Record<string, unknown>;
          } catch {
            json = { text };
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
      },
    );
    req.on('error', reject);
    req.end(delivery.body);
  });
}
