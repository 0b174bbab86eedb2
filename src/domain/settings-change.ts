// Changing the settings (settings.ts), apart from reading them so that the daemon, which only
// reads, holds none of the account rules: who may change them is actingAdmin's (accounts.ts).
import { writeTransaction } from '../db/write-transaction.js';
import { storeSetting } from './access-changes.js';
import { actingAdmin } from './accounts.js';
import { record, type Acting } from './audit.js';
import type { Ctx } from './context.js';
import { readSettingsView, type SettingsView } from './settings.js';
import { TOKEN_MAX_DAYS, type SettingName } from './setting-names.js';

export async function setSetting(ctx: Ctx, name: SettingName, on: boolean, by: Acting): Promise<SettingsView> {
  return writeSetting(ctx, name, on ? 'on' : 'off', by);
}

/** `days` is checked by the caller (null: off). */
export async function setTokenMaxDays(ctx: Ctx, days: number | null, by: Acting): Promise<SettingsView> {
  return writeSetting(ctx, TOKEN_MAX_DAYS, days === null ? 'off' : String(days), by);
}

/** Stores `key=value` (access-changes.ts tells daemons when it decides access) and audits it. */
async function writeSetting(ctx: Ctx, key: string, value: string, by: Acting): Promise<SettingsView> {
  await writeTransaction(ctx.db, async (trx) => {
    const actor = await actingAdmin(trx, by, 'change settings');
    await storeSetting(trx, key, value);
    await record(trx, ctx.clock.now(), actor?.username ?? by.otherwise, 'settings.set', `${key}=${value}`);
  });
  return readSettingsView(ctx);
}
