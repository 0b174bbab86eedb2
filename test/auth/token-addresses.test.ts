// Where a token was used from: the daemon records the client address of each use, as it judged
// it (behind trustProxy, the forwarded one), with the coalescing of "last used" except that a
// new address is written within about a second. `token list --json` shows `last_used_from`,
// `token show` the five most recent addresses; rows are bounded per token and go with the token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, send } from '../helpers/api.js';
import {
  createAccounts,
  createSandbox,
  createToken,
  TOKEN_KEYS,
  withSandboxDb,
  type CreatedTokenJson,
  type Sandbox,
} from '../helpers/cli.js';
import { patchConfig } from '../helpers/config.js';
import { startDaemon, type RunningDaemon } from '../helpers/daemon.js';
import { eventually } from '../helpers/until.js';

interface Shown {
  id: string;
  last_used: string | null;
  last_used_from: string | null;
  addresses: { address: string; first_seen: string; last_seen: string }[];
}

let box: Sandbox;
let d: RunningDaemon;

beforeAll(async () => {
  box = await createSandbox();
  await patchConfig(box, { trustProxy: ['loopback'], publicUrl: 'https://archive.example.org' });
  await createAccounts(box, { root: 'superuser', bot: 'editor', gone: 'user', viewer: 'user' });
  d = await startDaemon(box);
});
afterAll(async () => {
  await d?.stop();
  await box?.cleanup();
});

/** A request with `token` from `address` (named by the trusted proxy on loopback). */
async function useFrom(token: string, address: string, daemon = d): Promise<void> {
  const r = await send(daemon, '/api/objects', { headers: { ...bearer(token), 'X-Forwarded-For': address } });
  expect(r.status).toBe(200);
}

const show = (id: string) => box.json<Shown>(['token', 'show', id]);

async function showOnceListed(id: string, address: string): Promise<Shown> {
  let shown: Shown | undefined;
  await eventually(async () => {
    shown = await show(id);
    return shown.addresses.some((a) => a.address === address);
  }, `${address} in token show ${id}`);
  return shown as Shown;
}

/** Address rows of a token, straight from the database. */
const addressRows = (id: string) =>
  withSandboxDb(box, async (db) =>
    Number(
      (
        (await db('token_addresses as ta')
          .join('tokens as t', 't.id', 'ta.token_id')
          .where('t.selector', id)
          .count({ n: '*' })
          .first()) as { n: number | string }
      ).n,
    ),
  );

describe('token show and last_used_from', () => {
  it('lists the addresses a token was used from, newest first, with first and last time seen', async () => {
    const t = await createToken(box, 'bot', 'three places', 'root');
    await useFrom(t.token, '198.51.100.7');
    await showOnceListed(t.id, '198.51.100.7');
    await useFrom(t.token, '2001:db8::42');
    const shown = await showOnceListed(t.id, '2001:db8::42');
    expect(Object.keys(shown)).toEqual([...TOKEN_KEYS, 'last_used_from', 'addresses']);
    expect(shown.addresses.map((a) => a.address)).toEqual(['2001:db8::42', '198.51.100.7']);
    expect(shown.last_used_from).toBe('2001:db8::42');
    for (const a of shown.addresses) {
      expect(Object.keys(a)).toEqual(['address', 'first_seen', 'last_seen']);
      expect(a.first_seen <= a.last_seen).toBe(true);
    }
    const listed = await box.json<{ id: string; last_used_from: string | null }[]>(['token', 'list', 'bot']);
    expect(listed.find((x) => x.id === t.id)?.last_used_from).toBe('2001:db8::42');
  });

  it('prints a table of the fields and the addresses without --json', async () => {
    const t = await createToken(box, 'bot', 'shown as a table', 'root');
    const idle = await box.run(['token', 'show', t.id]);
    expect(idle.code, idle.stderr).toBe(0);
    expect(idle.stdout).toMatch(/Last used from\s+never/);
    expect(idle.stderr).toContain('no use from any address recorded');
    await useFrom(t.token, '203.0.113.9');
    await showOnceListed(t.id, '203.0.113.9');
    const r = await box.run(['token', 'show', t.id]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`ID\\s+${t.id}`));
    expect(r.stdout).toMatch(/Last used from\s+203\.0\.113\.9/);
    expect(r.stdout).toMatch(/Used from\s+First seen\s+Last seen/);
    expect(r.stdout).toMatch(/203\.0\.113\.9\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
  });

  it('writes a new address within about a second, a known one at most once a minute', async () => {
    const t = await createToken(box, 'bot', 'coalesced', 'root');
    await useFrom(t.token, '192.0.2.1');
    const first = (await showOnceListed(t.id, '192.0.2.1')).addresses[0];
    // A second use from the known address, then one from a new address: once the new one is
    // written, the flush that held the second use has run, and it wrote nothing for it.
    await useFrom(t.token, '192.0.2.1');
    await useFrom(t.token, '192.0.2.2');
    const shown = await showOnceListed(t.id, '192.0.2.2');
    expect(shown.addresses.find((a) => a.address === '192.0.2.1')).toEqual(first);
  });

  it('keeps at most 20 addresses per token, the most recently seen; show lists five', async () => {
    const t = await createToken(box, 'bot', 'many places', 'root');
    for (let i = 1; i <= 26; i++) await useFrom(t.token, `10.20.0.${i}`);
    await showOnceListed(t.id, '10.20.0.26');
    await eventually(async () => (await addressRows(t.id)) <= 20, 'the oldest addresses pruned');
    expect(await addressRows(t.id)).toBe(20);
    const shown = await show(t.id);
    expect(shown.addresses).toHaveLength(5);
    expect(shown.addresses.map((a) => a.address)).toContain('10.20.0.26');
    expect(shown.addresses.map((a) => a.address)).not.toContain('10.20.0.1');
  });

  it('follows the rights of token list: an account sees its own tokens only', async () => {
    const mine = await createToken(box, 'viewer', 'own token', 'root');
    const other = await createToken(box, 'bot', 'not the viewer s', 'root');
    expect((await box.json<Shown>(['token', 'show', mine.id, '--as', 'viewer'])).id).toBe(mine.id);
    const r = await box.run(['token', 'show', other.id, '--as', 'viewer']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('sees only its own tokens');
  });

  it('refuses an unknown id, and a value given as the id without echoing it (exit 1)', async () => {
    const t = await createToken(box, 'bot', 'not shown by value', 'root');
    const unknown = await box.run(['token', 'show', 'ZZZZZZZZ']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no token with id ZZZZZZZZ');
    const byValue = await box.run(['token', 'show', t.token]);
    expect(byValue.code).toBe(1);
    expect(byValue.stderr).not.toContain(t.token.slice(12));
  });
});

describe('addresses go with their token', () => {
  it('are deleted with the token by token prune', async () => {
    const t = await createToken(box, 'bot', 'pruned later', 'root');
    await useFrom(t.token, '192.0.2.77');
    await showOnceListed(t.id, '192.0.2.77');
    expect((await box.run(['token', 'revoke', t.id, '--as', 'root'])).code).toBe(0);
    expect((await box.run(['token', 'prune', '--as', 'root', '--yes'])).code).toBe(0);
    expect(await addressRows(t.id)).toBe(0);
    expect(await withSandboxDb(box, (db) => db('token_addresses').where('address', '192.0.2.77').first())).toBe(
      undefined,
    );
  });

  it('are deleted with the account by account delete', async () => {
    const t = await createToken(box, 'gone', 'account deleted later', 'root');
    await useFrom(t.token, '192.0.2.88');
    await showOnceListed(t.id, '192.0.2.88');
    expect((await box.run(['account', 'delete', 'gone', '--as', 'root', '--yes'])).code).toBe(0);
    expect(await withSandboxDb(box, (db) => db('token_addresses').where('address', '192.0.2.88').first())).toBe(
      undefined,
    );
  });
});

describe('several daemons on one database', () => {
  let second: RunningDaemon;
  beforeAll(async () => {
    second = await startDaemon(box);
  });
  afterAll(async () => {
    await second?.stop();
  });

  it('write one row per address, whichever daemons saw it', async () => {
    const t: CreatedTokenJson = await createToken(box, 'bot', 'two daemons', 'root');
    await useFrom(t.token, '198.51.100.200', d);
    await showOnceListed(t.id, '198.51.100.200');
    await useFrom(t.token, '198.51.100.200', second); // new to the second daemon: written at once
    await useFrom(t.token, '198.51.100.201', second);
    const shown = await showOnceListed(t.id, '198.51.100.201');
    expect(shown.addresses.filter((a) => a.address === '198.51.100.200')).toHaveLength(1);
    expect(await addressRows(t.id)).toBe(2);
  });
});

describe('without trustProxy', () => {
  let plain: Sandbox;
  let daemon: RunningDaemon;
  beforeAll(async () => {
    plain = await createSandbox();
    await createAccounts(plain, { root: 'superuser', bot: 'editor' });
    daemon = await startDaemon(plain);
  });
  afterAll(async () => {
    await daemon?.stop();
    await plain?.cleanup();
  });

  it('records the peer, never an address a client claims in X-Forwarded-For', async () => {
    const t = await createToken(plain, 'bot', 'direct client', 'root');
    await useFrom(t.token, '203.0.113.66', daemon);
    let shown: Shown | undefined;
    await eventually(async () => {
      shown = await plain.json<Shown>(['token', 'show', t.id]);
      return shown.addresses.length > 0;
    }, 'an address recorded');
    expect(shown?.addresses.map((a) => a.address)).toEqual(['127.0.0.1']);
  });
});

describe('an installation from before these migrations', () => {
  let old: Sandbox;
  beforeAll(async () => {
    old = await createSandbox();
  });
  afterAll(async () => {
    await old?.cleanup();
  });

  it('keeps every token working after the upgrade, and starts recording addresses', async () => {
    await createAccounts(old, { root: 'superuser', bot: 'editor' });
    const dated = await createToken(old, 'bot', 'made before the upgrade', 'root', ['--expires', '2037-06-30']);
    const forever = await createToken(old, 'bot', 'no end, made before', 'root');
    // Back to the schema before: each new migration's own down(), and knex forgets it ran.
    const names = ['20261201000100_token_notices.js', '20261201000000_token_addresses.js'];
    await withSandboxDb(old, async (db) => {
      for (const name of names) {
        const migration = (await import(`../../migrations/${name}`)) as { down: (k: typeof db) => Promise<void> };
        await migration.down(db);
        await db('knex_migrations').where('name', name).delete();
      }
      expect(await db.schema.hasTable('token_addresses')).toBe(false);
    });
    const daemon = await startDaemon(old); // serve applies the pending migrations
    try {
      for (const t of [dated, forever]) {
        const r = await send(daemon, '/api/token', { headers: bearer(t.token) });
        expect(r.status).toBe(200);
        expect(r.headers.get('token-expiration')).toBe(t === dated ? '2037-07-01T00:00:00Z' : null);
      }
      await eventually(async () => {
        const shown = await old.json<Shown>(['token', 'show', forever.id]);
        return shown.last_used_from === '127.0.0.1';
      }, 'the address of a use after the upgrade');
      expect((await old.json<{ expires: string | null }[]>(['token', 'list'])).map((t) => t.expires).sort()).toEqual(
        ['2037-06-30', null].sort(),
      );
    } finally {
      await daemon.stop();
    }
  });
});
