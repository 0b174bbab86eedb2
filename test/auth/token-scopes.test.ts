// Least privilege through HTTP (docs/security.md): a token narrowed by --scope is refused what
// its scopes leave out with 403 and RFC 6750's insufficient_scope; a token bound by --allow-from
// is refused from any other client address (as judged behind trustProxy), audited once per token,
// address and day, and logged as a warning with its id and the address; its rate is carried for
// the limiter. A token without them keeps every right of its account (every other HTTP test).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, client, REALM, type Reply } from '../helpers/api.js';
import { createAccounts, createSandbox, createToken, type CreatedTokenJson, type Sandbox } from '../helpers/cli.js';
import { patchConfig } from '../helpers/config.js';
import { logEntries, startDaemon, type RunningDaemon } from '../helpers/daemon.js';

const USAGE = { provider: 'x', model: 'y', tokens_in: 1, tokens_out: 2, cost_chf: 0.01, success: true };
/** The AI-cataloguing tool's server, as the trusted proxy on loopback names it. */
const TOOL_SERVER = '198.51.100.7';
const ELSEWHERE = '203.0.113.9';

const insufficient = (scope: string) => `${REALM}, error="insufficient_scope", scope="${scope}"`;

let box: Sandbox;
let d: RunningDaemon;
const api = client(() => d);
let full: CreatedTokenJson;

beforeAll(async () => {
  box = await createSandbox();
  await patchConfig(box, { trustProxy: ['loopback'], publicUrl: 'https://archive.example.org' });
  await createAccounts(box, { root: 'superuser', aitool: 'editor', cataloguer: 'editor' });
  full = await createToken(box, 'cataloguer', 'every right', 'root');
  d = await startDaemon(box);
});
afterAll(async () => {
  await d?.stop();
  await box?.cleanup();
});

/** `token create` with more flags, asserting success. */
async function made(account: string, name: string, flags: string[]): Promise<CreatedTokenJson> {
  return box.json<CreatedTokenJson>(['token', 'create', account, '--name', name, ...flags, '--as', 'root']);
}

/** A request from `address` (X-Forwarded-For, set by the trusted proxy on loopback). */
function from(address: string, path: string, token: string, init: RequestInit = {}): Promise<Reply> {
  return api.request(path, {
    ...init,
    headers: { ...bearer(token), 'X-Forwarded-For': address, ...(init.headers as Record<string, string>) },
  });
}

const postUsage = (address: string, token: string) =>
  from(address, '/api/ai-cataloging/usage', token, {
    method: 'POST',
    body: JSON.stringify(USAGE),
    headers: { 'Content-Type': 'application/json' },
  });

const refusalsOf = async (id: string) =>
  (await box.json<{ actor: string; action: string; target: string }[]>(['audit'])).filter(
    (e) => e.action === 'token.refuse-address' && e.target.startsWith(`${id} `),
  );

describe('the AI-cataloguing tool: only usage records, from its server, 600 requests an hour', () => {
  let tool: CreatedTokenJson;

  beforeAll(async () => {
    tool = await made('aitool', 'AI usage', [
      '--scope',
      'ai-usage',
      '--allow-from',
      TOOL_SERVER,
      '--rate-limit',
      '600/hour',
    ]);
  });

  it('is made with its scope, its address and its rate, shown by GET /api/token only to a token that may read', async () => {
    expect(tool).toMatchObject({ scopes: ['ai-usage'], allow_from: [`${TOOL_SERVER}/32`], rate_limit: '600/hour' });
    const self = await from(TOOL_SERVER, '/api/token', tool.token);
    expect(self.status).toBe(403); // GET /api/token is a read
    expect(self.headers.get('www-authenticate')).toBe(insufficient('read'));
  });

  it('posts usage records from its server (201)', async () => {
    const r = await postUsage(TOOL_SERVER, tool.token);
    expect(r.status, r.text).toBe(201);
  });

  it('is refused a catalogue read with 403, insufficient_scope and the scope it lacks', async () => {
    for (const path of ['/api/actors', '/api/objects', '/api/tei/actors']) {
      const r = await from(TOOL_SERVER, path, tool.token);
      expect(r.status, path).toBe(403);
      expect(r.headers.get('www-authenticate')).toBe(insufficient('read'));
      expect((r.body as { error: string }).error).toBe(
        "this request needs the scope read; this token's scopes are ai-usage",
      );
    }
    const write = await from(TOOL_SERVER, '/api/actors', tool.token, {
      method: 'POST',
      body: JSON.stringify({ name: 'Not for the tool' }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(write.status).toBe(403);
    expect(write.headers.get('www-authenticate')).toBe(insufficient('catalog:write'));
  });

  it('is refused from another address (403), audited once per address and day, logged with its id', async () => {
    for (let i = 0; i < 3; i++) {
      const r = await postUsage(ELSEWHERE, tool.token);
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ error: 'this token is not accepted from this address' });
      expect(r.headers.get('www-authenticate')).toBeNull(); // no other token or scope would help
    }
    // Whatever it asks for: the scope is never judged from a foreign address.
    expect((await from(ELSEWHERE, '/api/actors', tool.token)).body).toEqual({
      error: 'this token is not accepted from this address',
    });
    let audited = await refusalsOf(tool.id);
    expect(audited).toEqual([
      {
        at: expect.any(String) as string,
        actor: `address:${ELSEWHERE}`,
        action: 'token.refuse-address',
        target: `${tool.id} of aitool: used from ${ELSEWHERE}, outside its allow_from`,
      },
    ]);
    // Another address is an entry of its own.
    expect((await postUsage('2001:db8::9', tool.token)).status).toBe(403);
    audited = await refusalsOf(tool.id);
    expect(audited.map((e) => e.actor)).toEqual([`address:${ELSEWHERE}`, 'address:2001:db8::9']);

    const warnings = logEntries(d).filter(
      (e) => e.msg === 'refused a token presented from an address outside its allow_from',
    );
    expect(warnings.map((e) => [e.level, e.token_id, e.ip])).toEqual([
      ['warn', tool.id, ELSEWHERE],
      ['warn', tool.id, '2001:db8::9'],
    ]);
    // Its value never reaches the log, the audit log or an answer.
    expect(d.logs.join('\n')).not.toContain(tool.token.slice(12));
    expect(JSON.stringify(audited)).not.toContain(tool.token.slice(12));
    // And it still works from its server.
    expect((await postUsage(TOOL_SERVER, tool.token)).status).toBe(201);
  });
});

describe('scopes on the access matrix', () => {
  let reader: CreatedTokenJson;
  let refresher: CreatedTokenJson;
  let actorId: number;

  beforeAll(async () => {
    reader = await made('cataloguer', 'reads', ['--scope', 'read']);
    refresher = await made('cataloguer', 'refreshes', ['--scope', 'tei:refresh']);
    const r = await api.post('/api/actors', { name: 'Ada Lovelace' }, full.token);
    expect(r.status).toBe(201);
    actorId = (r.body as { data: { id: number } }).data.id;
  });

  it('read: every read (lists, records, TEI without ids, reconciliation queries, GET /api/token), no write', async () => {
    expect((await api.get('/api/actors', reader.token)).status).toBe(200);
    expect((await api.get(`/api/actors/${actorId}`, reader.token)).status).toBe(200);
    expect((await api.head('/api/actors', reader.token)).status).toBe(200);
    expect((await api.get('/api/tei/actors', reader.token)).status).toBe(200);
    const query = await api.request('/api/actors/reconcile', {
      method: 'POST',
      headers: { ...bearer(reader.token), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `queries=${encodeURIComponent(JSON.stringify({ q0: { query: 'Ada' } }))}`,
    });
    expect(query.status, query.text).toBe(200);
    const self = await api.get('/api/token', reader.token);
    expect(self.status).toBe(200);
    expect(self.body).toMatchObject({ data: { id: reader.id, scopes: ['read'], allow_from: null, rate_limit: null } });

    const write = await api.post('/api/actors', { name: 'Charles Babbage' }, reader.token);
    expect(write.status).toBe(403);
    expect(write.headers.get('www-authenticate')).toBe(insufficient('catalog:write'));
    expect((write.body as { error: string }).error).toContain('catalog:write');
    // A TEI export with ids regenerates: tei:refresh, not read.
    const ids = await api.get(`/api/tei/actors?ids=${actorId}`, reader.token);
    expect(ids.status).toBe(403);
    expect(ids.headers.get('www-authenticate')).toBe(insufficient('tei:refresh'));
    expect((await api.get('/api/tei/refresh', reader.token)).headers.get('www-authenticate')).toBe(
      insufficient('tei:refresh'),
    );
  });

  it('tei:refresh: /api/tei/refresh and a TEI export with ids, and no plain read', async () => {
    expect((await api.get('/api/tei/refresh', refresher.token)).status).toBe(200);
    expect((await api.get(`/api/tei/actors?ids=${actorId}`, refresher.token)).status).toBe(200);
    const plain = await api.get('/api/tei/actors', refresher.token);
    expect(plain.status).toBe(403);
    expect(plain.headers.get('www-authenticate')).toBe(insufficient('read'));
  });

  it("is judged after the route's rule: a role too low is answered as before", async () => {
    await createAccounts(box, { viewer: 'user' });
    const low = await made('viewer', 'wants to write', ['--scope', 'catalog:write']);
    const r = await api.post('/api/actors', { name: 'x' }, low.token);
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ error: 'this endpoint needs the role editor or higher' });
    expect(r.headers.get('www-authenticate')).toBe(`${REALM}, error="insufficient_scope"`);
  });

  it('leaves open routes open, and what the settings open to anyone is served to any token', async () => {
    const tool = await made('aitool', 'usage only', ['--scope', 'ai-usage']);
    expect((await api.get('/api/openapi.json', tool.token)).status).toBe(200);
    expect((await api.get('/api', tool.token)).status).toBe(200);
    expect((await api.get('/api/actors', tool.token)).status).toBe(403);
    const on = await box.run(['settings', 'set', 'public_access', 'on', '--as', 'root']);
    expect(on.code, on.stderr).toBe(0);
    try {
      expect((await api.get('/api/actors', tool.token)).status).toBe(200);
      expect((await api.get('/api/actors')).status).toBe(200);
      // Writing is never open.
      expect((await api.post('/api/actors', { name: 'x' }, tool.token)).status).toBe(403);
    } finally {
      expect((await box.run(['settings', 'set', 'public_access', 'off', '--as', 'root'])).code).toBe(0);
    }
  });

  it('binds IPv6 blocks too, and a token without restrictions is served from anywhere', async () => {
    const v6 = await made('cataloguer', 'v6 only', ['--allow-from', '2001:DB8::/32,192.0.2.0/24']);
    expect(v6.allow_from).toEqual(['2001:db8::/32', '192.0.2.0/24']);
    expect((await from('2001:db8:1::5', '/api/actors', v6.token)).status).toBe(200);
    expect((await from('192.0.2.200', '/api/actors', v6.token)).status).toBe(200);
    expect((await from('2001:db9::5', '/api/actors', v6.token)).status).toBe(403);
    expect((await from('192.0.3.1', '/api/actors', v6.token)).status).toBe(403);
    expect((await from('2001:db9::5', '/api/actors', full.token)).status).toBe(200);
  });
});

describe('token update', () => {
  it('changes a scope from the next request on; the value stays the same', async () => {
    const t = await made('cataloguer', 'to narrow', []);
    expect((await api.get('/api/actors', t.token)).status).toBe(200);
    const r = await box.run(['token', 'update', t.id, '--scope', 'ai-usage', '--as', 'root']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toContain(t.token.slice(12));
    const refused = await api.get('/api/actors', t.token);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toBe(insufficient('read'));
    expect((await box.run(['token', 'update', t.id, '--scope', '*', '--as', 'root'])).code).toBe(0);
    expect((await api.get('/api/actors', t.token)).status).toBe(200);
    // Bound, then unbound.
    expect((await box.run(['token', 'update', t.id, '--allow-from', TOOL_SERVER, '--as', 'root'])).code).toBe(0);
    expect((await from(ELSEWHERE, '/api/actors', t.token)).status).toBe(403);
    expect((await box.run(['token', 'update', t.id, '--allow-from', 'any', '--as', 'root'])).code).toBe(0);
    expect((await from(ELSEWHERE, '/api/actors', t.token)).status).toBe(200);
  });
});
