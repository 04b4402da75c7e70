import type { Knex } from 'knex';
import type { SettingsRepo } from '../core/ports/store.js';
import type { SecretBox } from '../crypto/secret-box.js';

export function settingsRepo(knex: Knex, box: SecretBox): SettingsRepo {
  const repo: SettingsRepo = {
    async get(key) {
      const row = (await knex('settings').where({ key }).first()) as { value: string } | undefined;
      return row ? row.value : null;
    },
    async set(key, value, at) {
      await knex('settings').insert({ key, value, updated_at: at }).onConflict('key').merge({ value, updated_at: at });
    },
    async delete(key) {
      await knex('settings').where({ key }).delete();
    },
    // Secret settings (remote backup credentials) share the table; only the value is sealed.
    async getSealed(key) {
      const sealed = await repo.get(key);
      return sealed === null ? null : box.open(sealed);
    },
    async setSealed(key, plain, at) {
      await repo.set(key, box.seal(plain), at);
    },
  };
  return repo;
}
