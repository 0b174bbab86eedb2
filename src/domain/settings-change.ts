// Changing the settings (settings.ts), apart from reading them so that the daemon, which only
// reads, holds none of the account rules: who may change them is actingAdmin's (accounts.ts).
import { bumpAccessGeneration } from '../db/access-generation.js';
import { writeTransaction } from '../db/write-transaction.js';
import { actingAdmin } from './accounts.js';
import { record, type Acting } from './audit.js';
import type { Ctx } from './context.js';
import { readSettingsView, type SettingsView } from './settings.js';
import { TOKEN_MAX_DAYS, type SettingName } from './setting-names.js';

export async function setSetting(ctx: Ctx, name: SettingName, on: boolean, by: Acting): Promise<SettingsView> {
  return writeSetting(ctx, name, on ? 'on' : 'off', by, true);
}

/** `days` is checked by the caller (null: off). No request is judged by it: no access bump. */
export async function setTokenMaxDays(ctx: Ctx, days: number | null, by: Acting): Promise<SettingsView> {
  return writeSetting(ctx, TOKEN_MAX_DAYS, days === null ? 'off' : String(days), by, false);
}

/** Stores `key=value` and audits it; `bump`: the change decides access, so daemons re-read settings. */
async function writeSetting(ctx: Ctx, key: string, value: string, by: Acting, bump: boolean): Promise<SettingsView> {
  await writeTransaction(ctx.db, async (trx) => {
    const actor = await actingAdmin(trx, by, 'change settings');
    // One statement: with update-then-insert, two processes setting the same absent key both found
    // nothing to update, and the second insert failed on the key (seen on PostgreSQL).
    await trx('settings').insert({ key, value }).onConflict('key').merge(['value']);
    if (bump) await bumpAccessGeneration(trx);
    await record(trx, ctx.clock.now(), actor?.username ?? by.otherwise, 'settings.set', `${key}=${value}`);
  });
  return readSettingsView(ctx);
}
