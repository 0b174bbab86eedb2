// public_api and public_access (SPEC §4.2): stored in the database, both off by default.
import { bumpAccessGeneration } from '../db/access-generation.js';
import { record } from './audit.js';
import type { Ctx } from './context.js';
import { writeTransaction } from '../db/write-transaction.js';
import { SETTING_NAMES, type SettingName } from './setting-names.js';

export type Settings = Record<SettingName, boolean>;

export async function readSettings(ctx: Pick<Ctx, 'db'>): Promise<Settings> {
  const rows = (await ctx.db('settings').whereIn('key', SETTING_NAMES)) as { key: string; value: string }[];
  const out: Settings = { public_api: false, public_access: false };
  for (const row of rows) out[row.key as SettingName] = row.value === 'on';
  return out;
}

export async function setSetting(ctx: Ctx, name: SettingName, on: boolean, actor: string): Promise<Settings> {
  await writeTransaction(ctx.db, async (trx) => {
    const value = on ? 'on' : 'off';
    // One statement: an update-then-insert let two processes setting the same absent key both
    // find nothing to update, and the second insert failed on the key (seen on PostgreSQL).
    await trx('settings').insert({ key: name, value }).onConflict('key').merge(['value']);
    await bumpAccessGeneration(trx);
    await record(trx, ctx.clock.now(), actor, 'settings.set', `${name}=${value}`);
  });
  return readSettings(ctx);
}
