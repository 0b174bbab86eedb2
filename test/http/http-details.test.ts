// Issue 9, finding 6, through real daemons: a 403 for too low a role says
// `WWW-Authenticate: Bearer realm="archive", error="insufficient_scope"` (RFC 6750 §3.1), a
// blocked account's 403 does not; creations answer `Location` with the absolute URL of what
// was made, from `publicUrl` when configured, else from the request's origin.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/http/routes/index.js';
import { ROLES, type Role } from '../../src/domain/roles.js';
import { bearer, client, dataOf, loadCatalog, roleTokens, send, sipForm } from '../helpers/api.js';
import { createSandbox, type Sandbox } from '../helpers/cli.js';
import { patchConfig } from '../helpers/config.js';
import { startDaemon, useDaemon, type RunningDaemon } from '../helpers/daemon.js';

const INSUFFICIENT_SCOPE = 'Bearer realm="archive", error="insufficient_scope"';
const BELOW_EDITOR: readonly Role[] = ROLES.filter((r) => ['user', 'user_intern', 'loan_admin'].includes(r));

const { cli, daemon } = useDaemon();
const api = client(daemon);
let tokens: Record<Role, string>;

beforeAll(async () => {
  tokens = await roleTokens(cli());
});

const origin = () => daemon().url.replace(/\/$/, '');

/** A request with a Host header of our choosing (fetch does not let a caller set Host). */
function withHost(
  d: RunningDaemon,
  path: string,
  host: string,
  token: string,
  body: unknown,
): Promise<{ status: number; location: string | undefined }> {
  const url = new URL(d.url);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: 'POST',
        headers: {
          Host: host,
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(payload),
          ...bearer(token),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe('403 for too low a role: RFC 6750 insufficient_scope', () => {
  it('is answered on every editor route to every role below editor, with the exact WWW-Authenticate', async () => {
    expect(BELOW_EDITOR.length).toBeGreaterThan(0);
    const problems: string[] = [];
    for (const route of ROUTES.filter((r) => r.rule === 'editor')) {
      const path = route.path.replace(':id', '1');
      for (const role of BELOW_EDITOR) {
        const r = await api.request(path, { method: route.method, headers: bearer(tokens[role]) });
        if (r.status !== 403) problems.push(`${route.method} ${path} as ${role}: ${r.status}`);
        if (r.headers.get('www-authenticate') !== INSUFFICIENT_SCOPE) {
          problems.push(
            `${route.method} ${path} as ${role}: WWW-Authenticate ${JSON.stringify(r.headers.get('www-authenticate'))}`,
          );
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('is not said for a blocked account: that 403 is about the account, not the token’s rights', async () => {
    for (const [method, path] of [
      ['POST', '/api/actors'],
      ['GET', '/api/actors'],
      ['GET', '/api/tei/refresh'],
    ] as const) {
      const r = await api.request(path, { method, headers: bearer(tokens.blocked) });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.headers.get('www-authenticate'), `${method} ${path}`).toBeNull();
    }
  });

  it('leaves 401s as they were and says nothing on success', async () => {
    const none = await api.post('/api/actors', { name: 'x' }, undefined);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="archive"');
    const ok = await api.post('/api/actors', { name: 'Scope ok' }, tokens.editor);
    expect(ok.status).toBe(201);
    expect(ok.headers.get('www-authenticate')).toBeNull();
  });
});

describe('Location of what a request created', () => {
  it('POST /api/actors and /api/places: 201 with the absolute URL of the new record, which answers it', async () => {
    for (const [path, body] of [
      ['/api/actors', { name: 'Location actor' }],
      ['/api/places', { name: 'Location place' }],
    ] as const) {
      const r = await api.post(path, body, tokens.editor);
      expect(r.status).toBe(201);
      const id = dataOf<{ id: number }>(r).id;
      expect(r.headers.get('location')).toBe(`${origin()}${path}/${id}`);
      const got = await send(daemon(), new URL(r.headers.get('location') as string).pathname, {
        headers: bearer(tokens.user),
      });
      expect(got.body).toEqual(r.body);
    }
  });

  it('never follows the request’s Host without publicUrl: the address the daemon was reached at', async () => {
    for (const host of ['archive.example.org:8443', 'evil.example/"><x', '127.0.0.1:1']) {
      const r = await withHost(daemon(), '/api/places', host, tokens.editor, { name: `Host place ${host}` });
      expect(r.status).toBe(201);
      expect(r.location).toMatch(new RegExp(`^${origin().replace(/[.]/g, '\\.')}/api/places/\\d+$`));
    }
  });

  it('POST /api/sips/import: 202 with the objects list narrowed to the new object, where its status shows', async () => {
    const r = await api.upload('/api/sips/import', sipForm({ identifier: 'LOC/sip:1' }), tokens.editor);
    expect(r.status, r.text).toBe(202);
    const receipt = dataOf<{ id: number; object_id: number }>(r);
    expect(r.headers.get('location')).toBe(`${origin()}/api/objects?identifier=${encodeURIComponent('LOC/sip:1')}`);
    const u = new URL(r.headers.get('location') as string);
    const listed = await send(daemon(), `${u.pathname}${u.search}`, { headers: bearer(tokens.user) });
    expect(listed.body).toMatchObject({
      data: [{ id: receipt.object_id, identifier: 'LOC/sip:1', status: 'ingesting' }],
      meta: { total: 1 },
    });
  });

  it('POST /api/ai-cataloging/usage: 201 {"id"} without Location (a usage record has no URL; the log is write-only)', async () => {
    const r = await api.post(
      '/api/ai-cataloging/usage',
      { provider: 'infomaniak', model: 'm', tokens_in: 1, tokens_out: 2, cost_chf: 0.001, success: true },
      tokens.editor,
    );
    expect(r.status).toBe(201);
    expect(Object.keys(r.body as object)).toEqual(['id']);
    expect(r.headers.get('location')).toBeNull();
  });
});

describe('with publicUrl and slug configured', () => {
  let box: Sandbox | undefined;
  let configured: RunningDaemon | undefined;
  const d = () => configured as RunningDaemon;
  let editor = '';

  beforeAll(async () => {
    box = await createSandbox();
    await patchConfig(box, { publicUrl: 'https://archive.example.org/base', slug: 'kr' });
    configured = await startDaemon(box);
    editor = (await roleTokens(box)).editor;
    await loadCatalog(box, 'public-url.json', { actors: [{ name: 'Public, Url', gnd: '118540238' }] });
  });
  afterAll(async () => {
    await configured?.stop();
    await box?.cleanup();
  });

  it('writes publicUrl into Location and BEACON #TARGET whatever Host says, and the slug into full_id', async () => {
    const created = await withHost(d(), '/api/actors', 'other.example', editor, { name: 'Configured actor' });
    expect(created.status).toBe(201);
    expect(created.location).toMatch(/^https:\/\/archive\.example\.org\/base\/api\/actors\/\d+$/);
    const id = Number(/(\d+)$/.exec(created.location as string)?.[1]);
    const one = await send(d(), `/api/actors/${id}`, { headers: bearer(editor) });
    expect(dataOf<{ full_id: string }>(one).full_id).toBe(`kr-actors-${id}`);
    const dump = await send(d(), '/api/actors?format=beacon', { headers: bearer(editor) });
    expect(dump.text).toContain('\n#TARGET: https://archive.example.org/base/api/actors/{ID}\n');
  });
});
