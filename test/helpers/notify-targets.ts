// Suites whose notification receivers listen on loopback turn on the system setting that lets
// channels send there (off by default: core/notify-targets.ts).
import { expect } from 'chai';
import type { BerthClient } from '../../shared/client.js';

export async function allowLoopbackNotifyTargets(admin: BerthClient): Promise<void> {
  const res = await admin.request('PATCH', '/api/system/settings', { allowPrivateNotifyTargets: true });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
}
