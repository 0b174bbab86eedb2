import { parseArg, SINCE } from '../args.js';
import { withDb, type Globals } from '../context.js';
import { io } from '../io.js';
import { note, printJson, printTable } from '../output.js';

/** `2026-11-20T22:35:06.123Z` → `2026-11-20 22:35` (the heading says UTC). */
const minute = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;

/**
 * A target shortened to `room` cells by cutting the quoted token name inside it, so that what
 * ends it (` of <account>`) stays in view; table.ts cuts whatever is still too wide.
 */
function fitTarget(target: string, room: number): string {
  if (target.length <= room) return target;
  const [, before, name, after] = /^([^"]*)"(.*)"([^"]*)$/s.exec(target) ?? [];
  if (before === undefined || name === undefined || after === undefined) return target;
  const keep = room - before.length - after.length - 3; // the quotes and "…"
  return keep < 3 ? target : `${before}"${name.slice(0, keep)}…"${after}`;
}

export async function run(globals: Globals, opts: { since?: string; json?: boolean }): Promise<void> {
  const since = opts.since === undefined ? undefined : parseArg(SINCE, opts.since);
  const { listAudit } = await import('../../domain/audit.js');
  const entries = await withDb(globals(), (ctx) => listAudit(ctx, since));
  if (opts.json) printJson(entries);
  else if (entries.length === 0) note('no audit entries');
  else {
    const rows = entries.map((e) => [minute(e.at), e.actor, e.action, e.target]);
    const { stdout } = io();
    if (stdout.isTTY) {
      const widest = (i: number) => Math.max(...rows.map((r) => (r[i] ?? '').length));
      const room = (stdout.columns ?? 80) - widest(0) - Math.min(widest(1), 16) - widest(2) - 6;
      for (const row of rows) row[3] = fitTarget(row[3] ?? '', room);
    }
    await printTable(['At (UTC)', 'Actor', 'Action', 'Target'], rows, { flex: ['Target', 'Actor'] });
  }
}
