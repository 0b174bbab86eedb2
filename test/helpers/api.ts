// Talking to a running daemon the way an API client does, with the checks every response owes
// docs/http-api.md whatever the test is about: never a 5xx; every error is a JSON object with a string
// `error`; every 401 carries `WWW-Authenticate: Bearer realm="archive"`; every 405 an `Allow`;
// and every answer is one the served description describes (described.ts).
//
//   const api = client(daemon);                    // daemon: () => RunningDaemon (from useDaemon)
//   const r = await api.get('/api/actors', editor); // → { status, headers, text, body }
//   const r = await api.post('/api/actors', { name: 'x' }, editor);
//
// And the things several HTTP test files need: tokens for every role, small ZIP files and
// SIP upload forms.
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { expect } from 'vitest';
import { ROLES, type Role } from '../../src/domain/roles.js';
import { asAdministrator, createAccounts, createToken, type Sandbox } from './cli.js';
import type { RunningDaemon } from './daemon.js';
import { describedProblems } from './schemas/described.js';
import { pool } from './pool.js';
import { zipOf } from './upload.js';

export interface Reply {
  method: string;
  path: string;
  status: number;
  headers: Headers;
  /** The body as text ('' for HEAD). */
  text: string;
  /** The body parsed as JSON when it is JSON, else undefined. */
  body: unknown;
}

export const REALM = 'Bearer realm="archive"';

/** Problems of a reply with the rules every response follows (empty when it is fine). */
export function replyProblems(r: Reply): string[] {
  const where = `${r.method} ${r.path} → ${r.status}`;
  const problems: string[] = [];
  if (r.status >= 500) problems.push(`${where}: a 5xx (${r.text.slice(0, 200)})`);
  if (r.status >= 400 && r.method !== 'HEAD') {
    const type = r.headers.get('content-type') ?? '';
    if (!type.startsWith('application/json')) problems.push(`${where}: error body is ${type || 'untyped'}, not JSON`);
    const body = r.body as { error?: unknown } | undefined;
    if (
      typeof body !== 'object' ||
      body === null ||
      Array.isArray(body) ||
      typeof body.error !== 'string' ||
      body.error === ''
    ) {
      problems.push(`${where}: error body without a string "error": ${r.text.slice(0, 200)}`);
    }
  }
  if (r.status === 401 && !(r.headers.get('www-authenticate') ?? '').startsWith(REALM)) {
    problems.push(`${where}: 401 without WWW-Authenticate: ${REALM}`);
  }
  if (r.status === 405 && !r.headers.get('allow')) problems.push(`${where}: 405 without Allow`);
  return problems;
}

/** Sends a request and reads the whole answer; does not judge it. */
export async function send(d: RunningDaemon, path: string, init: RequestInit = {}): Promise<Reply> {
  const method = (init.method ?? 'GET').toUpperCase();
  const res = await d.fetch(path, init);
  const text = await res.text();
  let body: unknown;
  if ((res.headers.get('content-type') ?? '').includes('json') && text !== '') {
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      body = undefined;
    }
  }
  return { method, path, status: res.status, headers: res.headers, text, body };
}

/**
 * `send` from another client address (127.0.0.x, which the daemon tells apart like any two
 * clients): node's http, which can bind the local address (fetch cannot). Bodies are strings.
 */
export function sendFrom(d: RunningDaemon, localAddress: string, path: string, init: RequestInit = {}): Promise<Reply> {
  const method = (init.method ?? 'GET').toUpperCase();
  const body = init.body ?? undefined;
  if (body !== undefined && typeof body !== 'string') throw new Error('sendFrom sends string bodies only');
  return new Promise((resolve, reject) => {
    const req = http.request(
      new URL(path, d.url),
      { method, localAddress, agent: false, headers: init.headers as Record<string, string> | undefined },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers))
            for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v);
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          if ((headers.get('content-type') ?? '').includes('json') && text !== '') {
            try {
              parsed = JSON.parse(text) as unknown;
            } catch {
              parsed = undefined;
            }
          }
          resolve({ method, path, status: res.statusCode ?? 0, headers, text, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export const bearer = (token: string | undefined): Record<string, string> =>
  token ? { Authorization: `Bearer ${token}` } : {};

export interface Client {
  /** Any request; asserts the universal rules (no 5xx, JSON errors, WWW-Authenticate, Allow). */
  request(path: string, init?: RequestInit): Promise<Reply>;
  get(path: string, token?: string): Promise<Reply>;
  head(path: string, token?: string): Promise<Reply>;
  /** POST with a JSON body (an object is serialised; a string is sent as is). */
  post(path: string, body: unknown, token?: string): Promise<Reply>;
  put(path: string, body: unknown, token?: string): Promise<Reply>;
  /** POST a multipart form. */
  upload(path: string, form: FormData, token?: string): Promise<Reply>;
}

/** `localAddress`: requests come from that address (sendFrom) instead of fetch's 127.0.0.1. */
export function client(daemon: () => RunningDaemon, localAddress?: string): Client {
  const request = async (path: string, init: RequestInit = {}): Promise<Reply> => {
    const r = await (localAddress ? sendFrom(daemon(), localAddress, path, init) : send(daemon(), path, init));
    expect([...replyProblems(r), ...describedProblems(r)], `${r.method} ${path}`).toEqual([]);
    return r;
  };
  const withJson = (method: string) => (path: string, body: unknown, token?: string) =>
    request(path, {
      method,
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers: { 'Content-Type': 'application/json', ...bearer(token) },
    });
  return {
    request,
    get: (path, token) => request(path, { headers: bearer(token) }),
    head: (path, token) => request(path, { method: 'HEAD', headers: bearer(token) }),
    post: withJson('POST'),
    put: withJson('PUT'),
    upload: (path, form, token) => request(path, { method: 'POST', body: form, headers: bearer(token) }),
  };
}

/** `{"data": …}` of a reply, typed for the test. */
export function dataOf<T = Record<string, unknown>>(r: Reply): T {
  expect(r.body, `${r.method} ${r.path}: ${r.text.slice(0, 300)}`).toHaveProperty('data');
  return (r.body as { data: T }).data;
}

/** `fields` of a 422, asserting the status. */
export function fieldsOf(r: Reply): Record<string, string> {
  expect(r.status, `${r.method} ${r.path}: ${r.text.slice(0, 300)}`).toBe(422);
  const fields = (r.body as { fields?: unknown }).fields;
  expect(typeof fields, `${r.method} ${r.path}: 422 without "fields": ${r.text}`).toBe('object');
  for (const v of Object.values(fields as object)) expect(typeof v).toBe('string');
  return fields as Record<string, string>;
}

// --- tokens for every role ---------------------------------------------------------------------

/** The username created for a role by roleTokens. */
export const roleAccount = (role: Role) => `as_${role}`;

/**
 * One account per role of docs/http-api.md#access-rules (ROLES, so a new role is covered too) with one token each,
 * created by a superuser `root`. The blocked account gets its token while it is a user and is
 * blocked afterwards (a token cannot be created for a blocked account).
 */
export async function roleTokens(cli: Sandbox): Promise<Record<Role, string>> {
  const accounts: Record<string, string> = { root: 'superuser' };
  for (const role of ROLES) accounts[roleAccount(role)] = role === 'blocked' ? 'user' : role;
  await createAccounts(cli, accounts);
  const entries = await Promise.all(
    ROLES.map(async (role) => [role, (await createToken(cli, roleAccount(role), 'http tests', 'root')).token] as const),
  );
  const r = await cli.run(['account', 'set-role', roleAccount('blocked'), 'blocked', '--as', 'root']);
  expect(r.code, r.stderr).toBe(0);
  return Object.fromEntries(entries) as Record<Role, string>;
}

// --- settings ----------------------------------------------------------------------------------

export interface SettingsCombo {
  public_access: boolean;
  public_api: boolean;
}

export const SETTINGS_COMBOS: readonly SettingsCombo[] = [
  { public_access: false, public_api: false },
  { public_access: true, public_api: false },
  { public_access: false, public_api: true },
  { public_access: true, public_api: true },
];

export const comboName = (s: SettingsCombo) =>
  `public_access ${s.public_access ? 'on' : 'off'}, public_api ${s.public_api ? 'on' : 'off'}`;

/** Sets both settings with the CLI (in effect for the next request, no restart). */
export async function applySettings(cli: Sandbox, s: SettingsCombo): Promise<void> {
  for (const name of ['public_access', 'public_api'] as const) {
    const r = await cli.run(['settings', 'set', name, s[name] ? 'on' : 'off', ...(await asAdministrator(cli))]);
    expect(r.code, r.stderr).toBe(0);
  }
  expect(await cli.json(['settings'])).toMatchObject({ public_access: s.public_access, public_api: s.public_api });
}

// --- ZIP files and SIP uploads -------------------------------------------------------------------

/** The smallest valid ZIP: an end-of-central-directory record and nothing else (22 bytes). */
export function emptyZip(): Uint8Array<ArrayBuffer> {
  return storedZip({});
}

/** A valid ZIP with stored (uncompressed) entries, as a fetch body (see upload.ts). */
export function storedZip(entries: Record<string, string>): Uint8Array<ArrayBuffer> {
  return new Uint8Array(zipOf(entries));
}

export interface SipFields {
  /** The file's bytes; null for no file part. A small valid ZIP by default. */
  file?: Uint8Array<ArrayBuffer> | null;
  filename?: string;
  identifier?: string;
  title?: string;
  keywords?: string;
  /** Further text fields, as given. */
  extra?: Record<string, string>;
}

/** The multipart form of POST /api/sips/import. */
export function sipForm(fields: SipFields = {}): FormData {
  const form = new FormData();
  const file = fields.file === undefined ? storedZip({ 'manifest.txt': 'hello\n' }) : fields.file;
  if (file !== null) form.set('file', new Blob([file], { type: 'application/zip' }), fields.filename ?? 'sip.zip');
  if (fields.identifier !== undefined) form.set('identifier', fields.identifier);
  if (fields.title !== undefined) form.set('title', fields.title);
  if (fields.keywords !== undefined) form.set('keywords', fields.keywords);
  for (const [k, v] of Object.entries(fields.extra ?? {})) form.set(k, v);
  return form;
}

export interface SipReceipt {
  id: number;
  status: string;
  object_id: number;
}

/** Imports a SIP with an editor's token and returns the receipt (asserting 202). */
export async function importSip(api: Client, token: string, fields: SipFields = {}): Promise<SipReceipt> {
  const r = await api.upload('/api/sips/import', sipForm(fields), token);
  expect(r.status, r.text).toBe(202);
  return dataOf<SipReceipt>(r);
}

// --- small utilities ---------------------------------------------------------------------------

/** Runs tasks with at most `limit` in flight; results in order. */
/**
 * A fixed sample instead of a product, for sweeps whose rule is the same everywhere: pairs that
 * cover every item of `a` and of `b` at least once, max(|a|, |b|) pairs in all; `shift` rotates
 * which item of `a` meets which of `b`, so that successive shifts (one a route) meet other pairs.
 */
export function sampledPairs<A, B>(a: readonly A[], b: readonly B[], shift: number): [A, B][] {
  return Array.from({ length: Math.max(a.length, b.length) }, (_, k) => [
    a[(k + shift) % a.length] as A,
    b[k % b.length] as B,
  ]);
}

export const inPool = <T>(tasks: (() => Promise<T>)[], limit = 8): Promise<T[]> => pool(tasks, limit);

export interface BasicTokens {
  /** An editor's token (writes). */
  editor: string;
  /** A user's token (reads only). */
  user: string;
}

/** Accounts `root` (superuser), `ed` (editor) and `reader` (user), and a token for each of the last two. */
export async function basicTokens(cli: Sandbox): Promise<BasicTokens> {
  await createAccounts(cli, { root: 'superuser', ed: 'editor', reader: 'user' });
  const [editor, user] = await Promise.all([
    createToken(cli, 'ed', 'http tests', 'root'),
    createToken(cli, 'reader', 'http tests', 'root'),
  ]);
  return { editor: editor.token, user: user.token };
}

/** Writes a JSON file into the sandbox and loads it with `archivectl catalog load`; returns the counts. */
export async function loadCatalog(cli: Sandbox, name: string, content: unknown): Promise<Record<string, number>> {
  const file = path.join(cli.dir, name);
  await writeFile(file, JSON.stringify(content));
  return cli.json<Record<string, number>>(['catalog', 'load', file]);
}

export const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;
