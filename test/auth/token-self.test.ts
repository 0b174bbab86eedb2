// GET /api/token (the presented token describes itself) and the Token-Expiration header on
// the answers to a token that has an end, through a listening daemon.
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, client, dataOf, REALM, send } from '../helpers/api.js';
import { createAccounts, createToken, type CreatedTokenJson, type TokenJson, asAdministrator } from '../helpers/cli.js';
import { useDaemon } from '../helpers/daemon.js';
import { eventually } from '../helpers/until.js';

const { cli, daemon } = useDaemon();
const api = client(daemon);

/** 2037-06-30: a date far enough ahead that the test keeps working for years. */
const LAST_DAY = '2037-06-30';
const FIRST_REFUSED = '2037-07-01T00:00:00Z';
const RFC3339_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

const made: Record<string, CreatedTokenJson> = {};

beforeAll(async () => {
  await createAccounts(cli(), { root: 'superuser', ed: 'editor', reader: 'user', barred: 'user' });
  made.dated = await createToken(cli(), 'reader', 'dated', 'root', ['--expires', LAST_DAY]);
  made.forever = await createToken(cli(), 'ed', 'forever', 'root');
  made.revoked = await createToken(cli(), 'ed', 'revoked', 'root', ['--expires', LAST_DAY]);
  made.barred = await createToken(cli(), 'barred', 'barred', 'root', ['--expires', LAST_DAY]);
  expect((await cli().run(['token', 'revoke', made.revoked.id, '--as', 'root'])).code).toBe(0);
  expect((await cli().run(['account', 'set-role', 'barred', 'blocked', '--as', 'root'])).code).toBe(0);
});

const value = (name: string) => (made[name] as CreatedTokenJson).token;

describe('GET /api/token', () => {
  it('describes the presented token: id, name, kind, account, role, created, expires, last_used, and what narrows it', async () => {
    const r = await api.get('/api/token', value('dated'));
    expect(r.status).toBe(200);
    const self = dataOf(r);
    expect(Object.keys(self)).toEqual([
      ...['id', 'name', 'kind', 'account', 'role', 'created', 'expires', 'last_used'],
      ...['scopes', 'allow_from', 'rate_limit'],
    ]);
    const t = made.dated as CreatedTokenJson;
    expect(self).toMatchObject({
      id: t.id,
      name: 'dated',
      kind: 'regular',
      account: 'reader',
      role: 'user',
      created: t.created,
      expires: LAST_DAY,
      // A token made without --scope, --allow-from or --rate-limit: every right, anywhere, no rate.
      scopes: ['*'],
      allow_from: null,
      rate_limit: null,
    });
    expect(r.headers.get('cache-control')).toBe('private, no-store');
  });

  it('never holds the value, its secret or a hash', async () => {
    const r = await api.get('/api/token', value('forever'));
    expect(r.status).toBe(200);
    const secret = value('forever').slice(12, 52);
    expect(r.text).not.toContain(secret);
    expect(r.text).not.toContain('hash');
    expect(r.text).not.toMatch(/scrypt|\$[A-Za-z0-9+/]{20,}/);
    expect(dataOf(r)).toMatchObject({ expires: null, role: 'editor', account: 'ed' });
  });

  it('counts as a use: its own last_used is set, and token list shows it within seconds', async () => {
    const fresh = await createToken(cli(), 'ed', 'first use is a self-description', 'root');
    const before = Date.now();
    const self = dataOf<{ last_used: string | null }>(await api.get('/api/token', fresh.token));
    expect(self.last_used).not.toBeNull();
    expect(Date.parse(self.last_used as string)).toBeGreaterThanOrEqual(before - 1000);
    await eventually(async () => {
      const listed = (await cli().json<TokenJson[]>(['token', 'list', 'ed'])).find((t) => t.id === fresh.id);
      return listed?.last_used === self.last_used;
    }, 'the use of GET /api/token in token list');
  });

  it("gives the account's role at the time of the request", async () => {
    const t = await createToken(cli(), 'ed', 'role changes', 'root');
    expect(dataOf(await api.get('/api/token', t.token)).role).toBe('editor');
    expect((await cli().run(['account', 'set-role', 'ed', 'admin', '--as', 'root'])).code).toBe(0);
    try {
      expect(dataOf(await api.get('/api/token', t.token)).role).toBe('admin');
    } finally {
      await cli().run(['account', 'set-role', 'ed', 'editor', '--as', 'root']);
    }
  });

  it('answers HEAD like GET, with no body', async () => {
    const r = await api.head('/api/token', value('dated'));
    expect(r.status).toBe(200);
    expect(r.text).toBe('');
    expect(r.headers.get('token-expiration')).toBe(FIRST_REFUSED);
  });

  it('answers 401 without a token, and with a revoked or malformed one, like every token route', async () => {
    const none = await api.get('/api/token');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe(REALM);
    const forever = value('forever');
    const mistyped = `${forever.slice(0, -1)}${forever.endsWith('x') ? 'y' : 'x'}`;
    for (const refused of [value('revoked'), mistyped, 'not-a-token']) {
      const r = await api.get('/api/token', refused);
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe(`${REALM}, error="invalid_token"`);
      expect(r.headers.get('token-expiration')).toBeNull();
    }
  });

  it("answers 403 to a blocked account's token, whose end is not told", async () => {
    const r = await api.get('/api/token', value('barred'));
    expect(r.status).toBe(403);
    expect(r.headers.get('token-expiration')).toBeNull();
  });

  it('is a row of the access matrix: archivectl routes lists it as a token route, never open', async () => {
    for (const setting of ['on', 'off']) {
      await cli().run(['settings', 'set', 'public_access', setting, ...(await asAdministrator(cli()))]);
      await cli().run(['settings', 'set', 'public_api', setting, ...(await asAdministrator(cli()))]);
      const rows = await cli().json<{ method: string; path: string; rule: string; open: boolean }[]>(['routes']);
      expect(rows.filter((row) => row.path === '/api/token')).toEqual([
        { method: 'GET', path: '/api/token', rule: 'token', scope: 'read', open: false },
      ]);
      expect((await api.get('/api/token')).status).toBe(401);
    }
  });
});

describe('Token-Expiration', () => {
  it('names the first refused instant of a dated token (the day after its expiry date, 00:00:00Z)', async () => {
    for (const path of ['/api/token', '/api/objects', '/api/tei/refresh']) {
      const r = await api.get(path, value('dated'));
      expect(r.status, path).toBe(200);
      expect(r.headers.get('token-expiration'), path).toBe(FIRST_REFUSED);
    }
  });

  it("names a handoff token's end to the second: the first whole second at which it is refused", async () => {
    const handoff = await cli().json<CreatedTokenJson>(['token', 'handoff', 'reader', '--as', 'root']);
    const r = await api.get('/api/token', handoff.token);
    expect(dataOf(r)).toMatchObject({ kind: 'handoff', id: handoff.id });
    const header = r.headers.get('token-expiration');
    expect(header).toMatch(RFC3339_SECONDS);
    const end = Date.parse(handoff.created) + 12 * 3_600_000;
    expect(Date.parse(header as string)).toBe(Math.ceil(end / 1000) * 1000);
  });

  it('is on every answer to the token, errors included (403, 404, 405, 422)', async () => {
    const answers = [
      await api.post('/api/actors', { name: 'not for a user' }, value('dated')), // 403: too low a role
      await api.get('/api/no-such-thing', value('dated')), // 404
      await api.request('/api/token', { method: 'DELETE', headers: bearer(value('dated')) }), // 405
      await api.get('/api/objects?perPage=1000', value('dated')), // 422
    ];
    expect(answers.map((r) => r.status)).toEqual([403, 404, 405, 422]);
    for (const r of answers) expect(r.headers.get('token-expiration'), `${r.status}`).toBe(FIRST_REFUSED);
  });

  it('is absent for a token without an end, and for requests without a token', async () => {
    expect((await api.get('/api/objects', value('forever'))).headers.get('token-expiration')).toBeNull();
    await cli().run(['settings', 'set', 'public_access', 'on', ...(await asAdministrator(cli()))]);
    try {
      const open = await api.get('/api/actors');
      expect(open.status).toBe(200);
      expect(open.headers.get('token-expiration')).toBeNull();
    } finally {
      await cli().run(['settings', 'set', 'public_access', 'off', ...(await asAdministrator(cli()))]);
    }
  });

  it('is absent when api_token refuses the request, even with a valid header', async () => {
    const inQuery = await api.get('/api/objects?api_token=x', value('dated'));
    const inBody = await api.request('/api/actors', {
      method: 'POST',
      headers: { ...bearer(value('dated')), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'name=x&api_token=y',
    });
    for (const r of [inQuery, inBody]) {
      expect(r.status).toBe(401);
      expect(r.headers.get('token-expiration')).toBeNull();
    }
  });

  it('is exposed to cross-origin pages where CORS applies (the reconciliation services)', async () => {
    const r = await send(daemon(), '/api/actors/reconcile', {
      headers: { ...bearer(value('dated')), Origin: 'http://openrefine.example' },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    const exposed = (r.headers.get('access-control-expose-headers') ?? '').split(/,\s*/).map((h) => h.toLowerCase());
    expect(exposed).toContain('token-expiration');
    expect(r.headers.get('token-expiration')).toBe(FIRST_REFUSED);
  });
});
