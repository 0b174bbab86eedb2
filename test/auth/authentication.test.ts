// docs/http-api.md#access-rules through a real listening daemon: api_token anywhere → 401 with the exact body;
// the Authorization header → 401 (with WWW-Authenticate) or 403; authentication before 404
// and before validation; the access log never holds a token value.
import { describe, expect, it } from 'vitest';
import { createAccounts, createToken, asAdministrator } from '../helpers/cli.js';
import { logEntries, useDaemon } from '../helpers/daemon.js';
import { eventually, until } from '../helpers/until.js';

const API_TOKEN_BODY = {
  error: 'The api_token parameter is no longer accepted. Send the token in the header: Authorization: Bearer <token>',
};

const { cli, daemon } = useDaemon();
const tokens: Record<string, string> = {};

async function setup() {
  if (tokens.editor) return;
  await createAccounts(cli(), { root: 'superuser', ed: 'editor', reader: 'user', stopped: 'user' });
  tokens.editor = (await createToken(cli(), 'ed', 'http tests', 'root')).token;
  tokens.reader = (await createToken(cli(), 'reader', 'http tests', 'root')).token;
  tokens.stopped = (await createToken(cli(), 'stopped', 'http tests', 'root')).token;
}

const bearer = (t: string) => ({ Authorization: `Bearer ${t}` });

describe('api_token anywhere is refused first', () => {
  it('refuses api_token in the query, with the exact body, even with a valid header', async () => {
    await setup();
    for (const headers of [{}, bearer(tokens.editor as string)]) {
      const res = await daemon().fetch('/api/actors?api_token=abc', { headers });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual(API_TOKEN_BODY);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="archive"/);
    }
  });

  it('refuses an empty api_token and one on an open endpoint', async () => {
    await setup();
    await cli().run(['settings', 'set', 'public_access', 'on', ...(await asAdministrator(cli()))]);
    try {
      const open = await daemon().fetch('/api/actors');
      expect(open.status).toBe(200);
      for (const q of ['api_token=', 'api_token', 'x=1&api_token=zzz', 'api%5Ftoken=1', 'api_token[]=1']) {
        const res = await daemon().fetch(`/api/actors?${q}`);
        expect(res.status, q).toBe(401);
        expect(await res.json()).toEqual(API_TOKEN_BODY);
      }
    } finally {
      await cli().run(['settings', 'set', 'public_access', 'off', ...(await asAdministrator(cli()))]);
    }
  });

  it('refuses api_token in a urlencoded form, a multipart form and a JSON body, even with a valid header', async () => {
    await setup();
    const form = new FormData();
    form.set('name', 'x');
    form.set('api_token', 'whatever');
    const bodies: [RequestInit['body'], Record<string, string>][] = [
      ['name=x&api_token=abc', { 'Content-Type': 'application/x-www-form-urlencoded' }],
      [form, {}],
      [JSON.stringify({ name: 'x', api_token: '' }), { 'Content-Type': 'application/json' }],
    ];
    for (const [body, headers] of bodies) {
      const res = await daemon().fetch('/api/actors', {
        method: 'POST',
        body,
        headers: { ...headers, ...bearer(tokens.editor as string) },
      });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual(API_TOKEN_BODY);
    }
    // nothing was created by those requests
    const list = await daemon().fetch('/api/actors?search=x', { headers: bearer(tokens.reader as string) });
    expect(((await list.json()) as { meta: { total: number } }).meta.total).toBe(0);
  });

  it('does not treat api_token nested inside a JSON value as the parameter', async () => {
    await setup();
    const res = await daemon().fetch('/api/actors', {
      method: 'POST',
      body: JSON.stringify({ name: 'Nested', comment: 'api_token', label: { api_token: 'x' } }),
      headers: { 'Content-Type': 'application/json', ...bearer(tokens.editor as string) },
    });
    expect(res.status).not.toBe(401);
  });

  it('logs each api_token request as a warning without the value, and redacts it in the access log', async () => {
    await setup();
    const secret = 'SuperSecretValue1234567890';
    await daemon().fetch(`/api/objects?page=1&api_token=${secret}`);
    const accessLine = (e: Record<string, unknown>) =>
      e.msg === 'request' && String(e.path).startsWith('/api/objects?page=1');
    await until(() => logEntries(daemon()).some(accessLine), 'the access log line');
    const entries = logEntries(daemon());
    const warning = entries.find((e) => e.level === 'warn' && String(e.path).startsWith('/api/objects?page=1'));
    expect(warning).toBeDefined();
    expect(warning).toMatchObject({ method: 'GET', path: '/api/objects?page=1&api_token=[REDACTED]' });
    expect(warning?.ip).toBeTruthy();
    const access = entries.find((e) => e.msg === 'request' && String(e.path).startsWith('/api/objects?page=1'));
    expect(access).toMatchObject({ status: 401, path: '/api/objects?page=1&api_token=[REDACTED]' });
    expect(daemon().logs.join('\n')).not.toContain(secret);
  });
});

describe('the Authorization header', () => {
  it('accepts the Bearer scheme case-insensitively', async () => {
    await setup();
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const res = await daemon().fetch('/api/objects', { headers: { Authorization: `${scheme} ${tokens.reader}` } });
      expect(res.status, scheme).toBe(200);
    }
  });

  it('refuses malformed values with 401 and WWW-Authenticate, also on open endpoints', async () => {
    await setup();
    const t = tokens.reader as string;
    const flipped = t.slice(0, 20) + (t[20] === 'a' ? 'b' : 'a') + t.slice(21);
    const cases = [
      '',
      'Bearer',
      'Bearer ',
      `Basic ${Buffer.from('a:b').toString('base64')}`,
      `Token ${t}`,
      `Bearer ${flipped}`,
      `Bearer ${t.slice(0, -1)}`,
      `Bearer ${t} ${t}`,
      `Bearer ${t},${t}`,
      `Bearer arc_${'0'.repeat(54)}`,
    ];
    await cli().run(['settings', 'set', 'public_access', 'on', ...(await asAdministrator(cli()))]);
    try {
      for (const value of cases) {
        const res = await daemon().fetch('/api/actors', { headers: { Authorization: value } });
        expect(res.status, JSON.stringify(value)).toBe(401);
        expect(res.headers.get('www-authenticate'), value).toMatch(/^Bearer realm="archive"/);
        const body = (await res.json()) as { error: unknown };
        expect(typeof body.error).toBe('string');
        expect(JSON.stringify(body)).not.toContain(t);
      }
    } finally {
      await cli().run(['settings', 'set', 'public_access', 'off', ...(await asAdministrator(cli()))]);
    }
  });

  it('marks a refused token with error="invalid_token"', async () => {
    await setup();
    const res = await daemon().fetch('/api/objects', { headers: bearer(`arc_${'A'.repeat(54)}`) });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="archive", error="invalid_token"');
    const none = await daemon().fetch('/api/objects');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="archive"');
  });

  it('answers 403 for a blocked account, from the next request on', async () => {
    await setup();
    expect((await daemon().fetch('/api/objects', { headers: bearer(tokens.stopped as string) })).status).toBe(200);
    expect(
      (await cli().run(['account', 'set-role', 'stopped', 'blocked', ...(await asAdministrator(cli()))])).code,
    ).toBe(0);
    const res = await daemon().fetch('/api/objects', { headers: bearer(tokens.stopped as string) });
    expect(res.status).toBe(403);
    expect(typeof ((await res.json()) as { error: unknown }).error).toBe('string');
    await cli().run(['account', 'set-role', 'stopped', 'user', ...(await asAdministrator(cli()))]);
    expect((await daemon().fetch('/api/objects', { headers: bearer(tokens.stopped as string) })).status).toBe(200);
  });

  it('authenticates before 404, 405 and validation', async () => {
    await setup();
    const bad = bearer(`arc_${'B'.repeat(54)}`);
    expect((await daemon().fetch('/api/nowhere', { headers: bad })).status).toBe(401);
    expect((await daemon().fetch('/api/actors/999999')).status).toBe(401);
    expect((await daemon().fetch('/api/actors', { method: 'DELETE', headers: bad })).status).toBe(401);
    const invalid = await daemon().fetch('/api/actors', {
      method: 'POST',
      body: '{"name": ',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(invalid.status).toBe(401);
    const forbidden = await daemon().fetch('/api/actors', {
      method: 'POST',
      body: '{}',
      headers: { 'Content-Type': 'application/json', ...bearer(tokens.reader as string) },
    });
    expect(forbidden.status).toBe(403);
    // and with a good token the same requests reach 404, 405, 400 and 422
    const ok = bearer(tokens.editor as string);
    expect((await daemon().fetch('/api/nowhere', { headers: ok })).status).toBe(404);
    const wrong = await daemon().fetch('/api/actors', { method: 'DELETE', headers: ok });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toContain('GET');
    expect(wrong.headers.get('allow')).toContain('POST');
    expect((await daemon().fetch('/api/actors/999999', { headers: ok })).status).toBe(404);
    const malformed = await daemon().fetch('/api/actors', {
      method: 'POST',
      body: '{"name": ',
      headers: { 'Content-Type': 'application/json', ...ok },
    });
    expect(malformed.status).toBe(400);
    const unprocessable = await daemon().fetch('/api/actors', {
      method: 'POST',
      body: '{}',
      headers: { 'Content-Type': 'application/json', ...ok },
    });
    expect(unprocessable.status).toBe(422);
  });
});

describe('changes made with the CLI count from the next request', () => {
  it('refuses a revoked token on the very next request', async () => {
    await setup();
    const t = await createToken(cli(), 'reader', 'to revoke', 'root');
    expect((await daemon().fetch('/api/objects', { headers: bearer(t.token) })).status).toBe(200);
    expect((await cli().run(['token', 'revoke', t.id, '--as', 'root'])).code).toBe(0);
    const res = await daemon().fetch('/api/objects', { headers: bearer(t.token) });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('invalid_token');
  });

  it('applies settings on the next request', async () => {
    await setup();
    expect((await daemon().fetch('/api/objects')).status).toBe(401);
    await cli().run(['settings', 'set', 'public_api', 'on', ...(await asAdministrator(cli()))]);
    expect((await daemon().fetch('/api/objects')).status).toBe(200);
    await cli().run(['settings', 'set', 'public_api', 'off', ...(await asAdministrator(cli()))]);
    expect((await daemon().fetch('/api/objects')).status).toBe(401);
  });

  it('applies role changes on the next request', async () => {
    await setup();
    await createAccounts(cli(), { promoted: 'user' });
    const t = await createToken(cli(), 'promoted', 'role change', 'root');
    const post = () =>
      daemon().fetch('/api/actors', {
        method: 'POST',
        body: JSON.stringify({ name: 'Role change' }),
        headers: { 'Content-Type': 'application/json', ...bearer(t.token) },
      });
    expect((await post()).status).toBe(403);
    await cli().run(['account', 'set-role', 'promoted', 'editor', ...(await asAdministrator(cli()))]);
    expect((await post()).status).toBe(201);
    await cli().run(['account', 'set-role', 'promoted', 'loan_admin', ...(await asAdministrator(cli()))]);
    expect((await post()).status).toBe(403);
  });

  it('refuses the tokens of a deleted account on the next request', async () => {
    await setup();
    await createAccounts(cli(), { leaving: 'user' });
    const t = await createToken(cli(), 'leaving', 'deleted', 'root');
    expect((await daemon().fetch('/api/objects', { headers: bearer(t.token) })).status).toBe(200);
    await cli().run(['account', 'delete', 'leaving', ...(await asAdministrator(cli())), '--yes']);
    expect((await daemon().fetch('/api/objects', { headers: bearer(t.token) })).status).toBe(401);
  });

  it('records last used after the first use, without waiting for a second one', async () => {
    await setup();
    const t = await createToken(cli(), 'reader', 'last used', 'root');
    expect(t.last_used).toBeNull();
    expect((await daemon().fetch('/api/objects', { headers: bearer(t.token) })).status).toBe(200);
    const lastUsed = async () =>
      (await cli().json<{ id: string; last_used: string | null }[]>(['token', 'list', 'reader'])).find(
        (x) => x.id === t.id,
      )?.last_used;
    await eventually(async () => (await lastUsed()) != null, 'last used to be written');
    expect(await lastUsed()).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });
});

describe('the access log', () => {
  it('writes one JSON line per request with the token id and never a token value', async () => {
    await setup();
    await daemon().fetch('/api/objects?page=2', { headers: bearer(tokens.reader as string) });
    await until(
      () => logEntries(daemon()).some((e) => e.msg === 'request' && e.path === '/api/objects?page=2'),
      'the access log line',
    );
    const entries = logEntries(daemon()).filter((e) => e.msg === 'request' && e.path === '/api/objects?page=2');
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.at(-1)).toMatchObject({ method: 'GET', status: 200, token: (tokens.reader as string).slice(4, 12) });
    expect(typeof entries.at(-1)?.duration_ms).toBe('number');
    const all = daemon().logs.join('\n') + daemon().stderr();
    for (const value of Object.values(tokens)) {
      expect(all).not.toContain(value);
      expect(all).not.toContain(value.slice(12, 52));
    }
  });
});
