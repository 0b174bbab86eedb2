// The audit log: who (an account, or the operating-system user `os:<name>`) did what to which
// target. Never a token value.
import type { Knex } from 'knex';
import { invalid } from '../errors.js';
import type { Ctx } from './context.js';
import { parseDate } from './dates.js';

/** The actor of settings changes made by earlier versions: a name no account may take. */
export const SYSTEM = 'system';

/** Who runs a command whose acting account is optional: the --as account (checked), else `os:<name>`. */
export interface Acting {
  account?: string | undefined;
  otherwise: string;
}

export interface AuditEntry {
  at: string;
  actor: string;
  action: string;
  target: string;
}

export async function record(trx: Knex, at: Date, actor: string, action: string, target: string): Promise<void> {
  await trx('audit_log').insert({ at: at.toISOString(), actor, action, target });
}

export async function listAudit(ctx: Ctx, since?: string): Promise<AuditEntry[]> {
  const query = ctx.db('audit_log').select('at', 'actor', 'action', 'target').orderBy('id');
  if (since !== undefined) {
    if (!parseDate(since)) throw invalid(`--since must be a date YYYY-MM-DD, got "${since}"`);
    query.where('at', '>=', `${since}T00:00:00.000Z`);
  }
  return (await query) as AuditEntry[];
}
