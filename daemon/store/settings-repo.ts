import type { Knex } from 'knex';
import type { SettingsRepo } from '../core/store.js';

export function settingsRepo(knex: Knex): SettingsRepo {
  return {
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
  };
}
