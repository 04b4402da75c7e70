// Deploy-on-push webhooks: the secret is sealed on the way in and opened on the way out; a
// delivery's keys (id, body hash, pushed commit) are unique per service, so a replay is refused by
// the database itself, even when two arrive at once.
import type { Knex } from 'knex';
import type { WebhookRecord, WebhookRepo } from '../core/ports/store.js';
import type { SecretBox } from '../crypto/secret-box.js';

interface WebhookRow {
  service_id: string;
  secret: string;
  created_at: string;
  last_delivery_at: string | null;
}

export function webhookRepo(knex: Knex, box: SecretBox): WebhookRepo {
  return {
    async get(serviceId) {
      const row = await knex<WebhookRow>('service_webhooks').where({ service_id: serviceId }).first();
      if (!row) return null;
      return { serviceId: row.service_id, secret: box.open(row.secret), createdAt: row.created_at, lastDeliveryAt: row.last_delivery_at } satisfies WebhookRecord;
    },
    async put(serviceId, secret, at) {
      const sealed = box.seal(secret);
      await knex<WebhookRow>('service_webhooks')
        .insert({ service_id: serviceId, secret: sealed, created_at: at, last_delivery_at: null })
        .onConflict('service_id')
        .merge({ secret: sealed, created_at: at });
    },
    async delete(serviceId) {
      return (await knex<WebhookRow>('service_webhooks').where({ service_id: serviceId }).delete()) > 0;
    },
    async touch(serviceId, at) {
      await knex<WebhookRow>('service_webhooks').where({ service_id: serviceId }).update({ last_delivery_at: at });
    },
    async firstDelivery(serviceId, keys, at, forgetBefore) {
      await knex('webhook_deliveries').where('received_at', '<', forgetBefore).delete();
      return knex.transaction(async (trx) => {
        const seen = new Set(
          (
            await trx('webhook_deliveries')
              .where({ service_id: serviceId })
              .whereIn('delivery_id', [...keys])
              .select<{ delivery_id: string }[]>('delivery_id')
          ).map((r) => r.delivery_id),
        );
        const first = keys.find((k) => seen.has(k));
        if (first !== undefined) return first;
        try {
          await trx('webhook_deliveries').insert([...new Set(keys)].map((k) => ({ service_id: serviceId, delivery_id: k, received_at: at })));
          return null;
        } catch (err) {
          // two copies at once: the other one recorded the keys first
          if (err instanceof Error && /UNIQUE constraint failed/.test(err.message)) return keys[0] ?? '';
          throw err;
        }
      });
    },
  };
}
