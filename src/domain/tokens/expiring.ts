// Tokens to renew before their scripts stop (README "Token lifetimes"): a daily warn line per token
// in use ending soon, by the daemon that first inserts the day's token_notices row, and counts for
// /metrics. Handoff tokens are left out: they end 12 hours after they are made, by design. Days
// are UTC days of the injected clock, so tests move the clock instead of waiting.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { utcDate } from '../../clock.js';
import { addDays, parseDate } from '../dates.js';
import type { Ctx } from '../context.js';
import { tokenExpiration } from './expiry.js';
import type { TokenRow } from './queries.js';

/** A token ending within this many days is noticed… */
const NOTICE_WITHIN_DAYS = 14;
/** …when it was used within this many days (an unused token is nobody's emergency). */
const NOTICE_USED_WITHIN_DAYS = 30;
/** How often a daemon looks whether today's notice is written (it is written once a day). */
const CHECK_EVERY_MS = 10 * 60_000;
/** Claims of past days kept, for whoever wonders which daemon wrote a notice. */
const CLAIMS_KEPT_DAYS = 60;

function activeRegularOrLegacy(ctx: Pick<Ctx, 'db'>, now: string) {
  return ctx.db('tokens as t').whereNull('t.revoked_at').whereNot('t.kind', 'handoff').where('t.expires_at', '>', now);
}

/** How many active tokens (handoff tokens aside) end within each of `days` days from now. */
export async function expiringCounts(ctx: Ctx, days: readonly number[]): Promise<Map<number, number>> {
  const at = ctx.clock.now();
  const ends = days.map((d) => addDays(at, d).toISOString());
  const farthest = ends.reduce((a, b) => (a > b ? a : b), at.toISOString());
  const row = await activeRegularOrLegacy(ctx, at.toISOString())
    .where('t.expires_at', '<=', farthest)
    .first<Record<string, number | string | null> | undefined>(
      ...days.map((d, i) =>
        ctx.db.raw('SUM(CASE WHEN t.expires_at <= ? THEN 1 ELSE 0 END) AS ??', [ends[i] as string, `within_${d}`]),
      ),
    );
  return new Map(days.map((d) => [d, Number(row?.[`within_${d}`] ?? 0)]));
}

export interface ExpiryNotice {
  account: string;
  token_id: string;
  token_name: string;
  /** The last day it is accepted (YYYY-MM-DD). */
  expires: string | null;
  /** The first instant it is refused (RFC 3339, UTC), as in its Token-Expiration header. */
  expires_at: string | null;
}

type NoticeRow = Pick<TokenRow, 'username' | 'selector' | 'name' | 'expires' | 'expires_at'>;

export async function tokensToNotice(ctx: Ctx): Promise<ExpiryNotice[]> {
  const at = ctx.clock.now();
  const rows = await activeRegularOrLegacy(ctx, at.toISOString())
    .join('accounts as a', 'a.id', 't.account_id')
    .where('t.expires_at', '<=', addDays(at, NOTICE_WITHIN_DAYS).toISOString())
    .where('t.last_used_at', '>=', addDays(at, -NOTICE_USED_WITHIN_DAYS).toISOString())
    .orderBy([{ column: 't.expires_at' }, { column: 'a.username' }, { column: 't.id' }])
    .select<NoticeRow[]>('a.username', 't.selector', 't.name', 't.expires', 't.expires_at');
  return rows.map((r) => ({
    account: r.username,
    token_id: r.selector,
    token_name: r.name,
    expires: r.expires,
    expires_at: tokenExpiration(r.expires_at),
  }));
}

/** The daily notice of a daemon: `warn` writes one log line. */
export class ExpiryNotices {
  /** The last UTC day this daemon found claimed (by itself or another): nothing to do until the next. */
  private doneDay: string | null = null;
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<number | null> | null = null;
  private readonly me = `${os.hostname()} ${process.pid} ${randomUUID().slice(0, 8)}`.slice(0, 128);

  constructor(
    private readonly ctx: Ctx,
    private readonly warn: (fields: ExpiryNotice, message: string) => void,
  ) {}

  /** Writes today's notice unless any daemon did: answers the lines written, or null. */
  check(): Promise<number | null> {
    // One check at a time: two at once would both find the day claimed by this daemon.
    this.checking ??= this.claimAndWrite().finally(() => (this.checking = null));
    return this.checking;
  }

  private async claimAndWrite(): Promise<number | null> {
    const now = this.ctx.clock.now();
    const day = utcDate(now);
    if (day === this.doneDay) return null;
    const { db } = this.ctx;
    await db('token_notices')
      .insert({ day, claimed_by: this.me, claimed_at: now.toISOString() })
      .onConflict('day')
      .ignore();
    const claim = await db('token_notices').where('day', day).first<{ claimed_by: string } | undefined>('claimed_by');
    if (claim?.claimed_by !== this.me) {
      this.doneDay = day;
      return null;
    }
    // Claimed by this daemon: should what follows fail, the next check writes the notice.
    const notices = await tokensToNotice(this.ctx);
    for (const notice of notices) this.warn(notice, 'token expires within 14 days and is in use: rotate it');
    this.doneDay = day;
    const oldest = utcDate(addDays(parseDate(day) as Date, -CLAIMS_KEPT_DAYS));
    await db('token_notices').where('day', '<', oldest).delete();
    return notices.length;
  }

  /** Checks every ten minutes (the daemon runs the first check itself); `onError` hears of failures. */
  start(onError: (err: unknown) => void): void {
    this.timer ??= setInterval(() => void this.check().catch(onError), CHECK_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer); // a no-op when never started (undefined)
    this.timer = undefined;
  }
}
