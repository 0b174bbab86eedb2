// A daemon killed with SIGKILL restarts on an intact database: actors are written
// with 4 in flight and every 201 is recorded (id and name); the daemon is killed with SIGKILL
// mid-stream; a new daemon on the same installation must serve every acknowledged actor
// unchanged, the database must pass `PRAGMA integrity_check`, the CLI must work, and new
// writes must succeed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccounts, createSandbox, createToken, IS_PG, type Sandbox } from '../helpers/cli.js';
import { logEntries, spawnDaemon, type RunningDaemon } from '../helpers/daemon.js';
import { pool } from '../helpers/pool.js';
import { querySqlite } from '../helpers/sqlite.js';

const KILL_AFTER = 150; // acknowledgements before the SIGKILL
const CONCURRENCY = 4;
const MAX_ATTEMPTS = 2000; // a bound, should the kill never come

let box: Sandbox;
let first: RunningDaemon | undefined;
let second: RunningDaemon | undefined;
let token = '';

beforeAll(async () => {
  box = await createSandbox();
  await createAccounts(box, { ksroot: 'superuser', ksed: 'editor' });
  token = (await createToken(box, 'ksed', 'crash safety', 'ksroot')).token;
});

afterAll(async () => {
  await first?.stop('SIGKILL');
  await second?.stop();
  await box?.cleanup();
});

describe('SIGKILL mid-stream', () => {
  it('keeps every acknowledged write and restarts on an intact database', async () => {
    const auth = { Authorization: `Bearer ${token}` };
    first = await spawnDaemon(box);
    const daemon = first;
    const acknowledged: { id: number; name: string }[] = [];
    let attempts = 0;
    let unacknowledged = 0;
    let killed: Promise<unknown> | null = null;
    const run = `${process.pid}-${Date.now()}`;

    const worker = async () => {
      while (killed === null && attempts < MAX_ATTEMPTS) {
        const n = attempts++;
        const name = `crash ${run} #${n}${'ü'.repeat(n % 7)}`; // names are stored trimmed
        try {
          const res = await daemon.fetch('/api/actors', {
            method: 'POST',
            headers: { ...auth, 'Content-Type': 'application/json' },
            body: JSON.stringify({
              name,
              comment: `written before the kill, attempt ${n}`,
              alternative_names: [`alt ${n}`],
            }),
            signal: AbortSignal.timeout(10_000),
          });
          const body = (await res.json()) as { data?: { id: number; name: string } };
          if (res.status === 201 && body.data) {
            expect(body.data.name).toBe(name);
            acknowledged.push({ id: body.data.id, name });
            if (acknowledged.length >= KILL_AFTER && killed === null) killed = daemon.stop('SIGKILL');
          } else {
            throw new Error(`unexpected answer before the kill: ${res.status} ${JSON.stringify(body)}`);
          }
        } catch (err) {
          if (killed === null) throw err;
          unacknowledged++; // in flight when the process died: no acknowledgement, no promise
        }
      }
    };
    await pool(
      Array.from({ length: CONCURRENCY }, () => worker),
      CONCURRENCY,
    );
    const exit = await (killed ?? daemon.stop('SIGKILL'));
    expect(exit).toEqual({ code: null, signal: 'SIGKILL' });
    expect(acknowledged.length).toBeGreaterThanOrEqual(KILL_AFTER);

    // A new daemon on the same installation.
    second = await spawnDaemon(box);
    let checked = 0;
    const mismatches: string[] = [];
    await pool(
      acknowledged.map(({ id, name }) => async () => {
        const res = await second!.fetch(`/api/actors/${id}`, { headers: auth, signal: AbortSignal.timeout(10_000) });
        const body = (await res.json()) as { data?: { id: number; name: string; alternative_names: string[] } };
        if (res.status !== 200 || body.data?.name !== name || body.data.id !== id) {
          mismatches.push(`actor ${id} "${name}": ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
        }
        checked++;
      }),
      8,
    );
    console.log(
      `[crash-safety] ${acknowledged.length} acknowledged writes checked after SIGKILL and restart (${attempts} attempted, ${unacknowledged} in flight at the kill); missing or changed: ${mismatches.length}`,
    );
    expect(mismatches).toEqual([]);
    expect(checked).toBe(acknowledged.length);

    // Ids are unique, and no actor exists that was neither acknowledged nor in flight.
    expect(new Set(acknowledged.map((a) => a.id)).size).toBe(acknowledged.length);
    const listed = await second.fetch(`/api/actors?search=${encodeURIComponent(`crash ${run}`)}&perPage=1`, {
      headers: auth,
      signal: AbortSignal.timeout(10_000),
    });
    const total = ((await listed.json()) as { meta: { total: number } }).meta.total;
    expect(total).toBeGreaterThanOrEqual(acknowledged.length);
    expect(total).toBeLessThanOrEqual(acknowledged.length + unacknowledged);

    // The database is intact.
    if (!IS_PG && box.dbFile) {
      const rows = await querySqlite<{ integrity_check: string }>(box.dbFile, 'PRAGMA integrity_check');
      expect(rows).toEqual([{ integrity_check: 'ok' }]);
      const fk = await querySqlite(box.dbFile, 'PRAGMA foreign_key_check');
      expect(fk).toEqual([]);
    }
    const accounts = await box.run(['account', 'list', '--json']);
    expect(accounts.code, accounts.stderr).toBe(0);
    expect((JSON.parse(accounts.stdout) as { username: string }[]).map((a) => a.username).sort()).toEqual([
      'ksed',
      'ksroot',
    ]);

    // New writes succeed, through the API and the CLI.
    const after = await second.fetch('/api/actors', {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: `after the crash ${run}` }),
      signal: AbortSignal.timeout(10_000),
    });
    expect(after.status).toBe(201);
    const newId = ((await after.json()) as { data: { id: number } }).data.id;
    expect(acknowledged.some((a) => a.id === newId)).toBe(false);
    const tok = await box.run(['token', 'create', 'ksed', '--name', 'after the crash', '--as', 'ksroot']);
    expect(tok.code, tok.stderr).toBe(0);
    expect(logEntries(second).filter((e) => e.level === 'error' || e.level === 'fatal')).toEqual([]);
  });
});
