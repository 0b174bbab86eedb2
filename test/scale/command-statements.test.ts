// PostgreSQL: `database.statementTimeoutMs` bounds the daemon's requests, not the CLI's commands
// (src/db/pg-config.ts DatabaseUse). A million actors take `catalog load` a COMMIT longer than
// any request may run; here a statement is made to run past the limit by a lock another session
// holds. The request gives up with 503; the command waits and finishes. No duration is asserted:
// the test waits until the command's statement has been blocked for longer than the limit, as
// the server reports it, then releases the lock.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bearer, client, send } from '../helpers/api.js';
import { IS_PG } from '../helpers/cli.js';
import { useDaemonWithConfig } from '../helpers/http.js';

const LIMIT_MS = 1_000;

describe.skipIf(!IS_PG)('statement timeouts on PostgreSQL (skipped on SQLite: it bounds no statement)', () => {
  const own = useDaemonWithConfig({ database: { statementTimeoutMs: LIMIT_MS } });
  const api = client(() => own.daemon);

  it('a request gives up after database.statementTimeoutMs; catalog load runs on past it', async () => {
    const { default: pg } = await import('pg');
    const holder = new pg.Client({ connectionString: own.box.env.DATABASE_URL });
    // Another session: inside the holder's transaction pg_stat_activity would stay as first read.
    const monitor = new pg.Client({ connectionString: own.box.env.DATABASE_URL });
    await holder.connect();
    await monitor.connect();
    const blockedPastLimit = async (): Promise<boolean> => {
      const r = await monitor.query<{ n: string }>(
        `SELECT count(*) AS n FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'
            AND state = 'active' AND now() - query_start > make_interval(secs => $1)`,
        [(2 * LIMIT_MS) / 1000],
      );
      return Number(r.rows[0]?.n) > 0;
    };
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE actors IN SHARE MODE'); // inserts wait for it

      const refused = await send(own.daemon, '/api/actors', {
        method: 'POST',
        body: JSON.stringify({ name: 'Held back' }),
        headers: { 'Content-Type': 'application/json', ...bearer(own.editor) },
      });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).not.toBeNull();

      const file = path.join(own.box.dir, 'held.json');
      await writeFile(file, JSON.stringify({ actors: [{ name: 'Waited for' }, { name: 'Also waited for' }] }));
      const load = own.box.run(['catalog', 'load', file, '--json']);
      let waited = false;
      for (let i = 0; i < 600 && !waited; i++) {
        waited = await blockedPastLimit();
        if (!waited) await new Promise((r) => setTimeout(r, 50));
      }
      if (!waited)
        console.log(
          (
            await holder.query(
              `SELECT pid, state, wait_event_type, wait_event, clock_timestamp() - query_start AS age, left(query, 60) AS q FROM pg_stat_activity WHERE datname = current_database() AND state <> 'idle'`,
            )
          ).rows,
          await Promise.race([load, new Promise((r) => setTimeout(() => r('pending'), 100))]),
        );
      expect(waited, 'the load never waited on the lock past the limit').toBe(true);
      await holder.query('ROLLBACK');
      const r = await load;
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ actors: 2 });
    } finally {
      await holder.end();
      await monitor.end();
    }
    const listed = await api.get('/api/actors?search=waited', own.editor);
    expect((listed.body as { meta: { total: number } }).meta.total).toBe(2);
  });
});
