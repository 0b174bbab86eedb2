// Review finding 7: token values reached the logs — `?API_TOKEN=<value>`, `?access_token=<value>`,
// `/api/actors/<value>` and `/<value>` logged the whole value in the access log's path. One rule
// now applies to every log line the daemon writes, whatever the field: anything shaped like a
// token keeps `arc_` and its 8-character public id and loses the rest; any other long run of
// token characters is replaced whole. Also percent-encoded.
import { Writable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { redactSecrets, redactTokens } from '../../src/errors.js';
import { createLogger } from '../../src/http/observe/log.js';
import { bearer } from '../helpers/api.js';
import { createAccounts, createToken, legacyValue } from '../helpers/cli.js';
import { useDaemon } from '../helpers/daemon.js';
import { arcValue } from '../helpers/token-values.js';
import { until } from '../helpers/until.js';

/** Every character percent-encoded. */
const encodeAll = (s: string) =>
  [...s].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join('');
/** Percent-escapes decoded where they are valid, the rest kept: what a reader of the log could recover. */
const lenientDecode = (s: string) =>
  s.replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));

/** Whether `text` holds 10 or more consecutive characters of `secret`, plainly or percent-encoded (up to three times). */
function holdsPartOf(text: string, secret: string): boolean {
  const plain = lenientDecode(lenientDecode(lenientDecode(text)));
  for (let i = 0; i + 10 <= secret.length; i++) if (plain.includes(secret.slice(i, i + 10))) return true;
  return false;
}

describe('redactTokens', () => {
  it('keeps arc_ and the public id of a token-shaped value and replaces the rest', () => {
    const v = arcValue();
    const id = v.slice(4, 12);
    expect(redactTokens(`GET /api/actors/${v}`)).toBe(`GET /api/actors/arc_${id}[REDACTED]`);
    expect(redactTokens(`x=${v}&y=${v}`)).toBe(`x=arc_${id}[REDACTED]&y=arc_${id}[REDACTED]`);
    expect(redactTokens(`${v}x`)).toBe(`arc_${id}[REDACTED]`);
    expect(redactTokens(`ARC_${v.slice(4)}`)).toBe(`ARC_${id}[REDACTED]`);
    // A truncated value still loses everything past the id; the id alone is not a secret.
    expect(redactTokens(`arc_${id}abc`)).toBe(`arc_${id}[REDACTED]`);
    expect(redactTokens(`token arc_${id} revoked`)).toBe(`token arc_${id} revoked`);
  });

  it('replaces long runs of token characters whole: legacy values, values without their prefix', () => {
    const legacy = legacyValue();
    expect(redactTokens(`/api/actors/${legacy}`)).toBe('/api/actors/[REDACTED]');
    expect(redactTokens(`/x/${arcValue().slice(4)}/y`)).toBe('/x/[REDACTED]/y');
    expect(redactTokens(`a${'b'.repeat(38)}`)).toBe(`a${'b'.repeat(38)}`);
    expect(redactTokens('GET /api/objects?page=1&perPage=25 200 "curl/8.5.0" 2026-11-01T12:00:00.000Z')).toBe(
      'GET /api/objects?page=1&perPage=25 200 "curl/8.5.0" 2026-11-01T12:00:00.000Z',
    );
  });

  it("keeps runs of one case, as commit ids and digests are written, unless they have a value's length", () => {
    const commit = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4';
    const frames = [
      `at start (/home/ci/builds/${commit}/src/http/startup.ts:41:11)`,
      `at start (../${commit}/src/http/startup.ts:41:11)`,
      `/srv/${commit.toUpperCase()}/x`,
      `sha256 ${'a1'.repeat(32)}`,
      `%2F${commit}%2Fsrc`,
    ];
    for (const text of frames) expect(redactTokens(text)).toBe(text);
    // A value's length (a legacy value, a value without its arc_) is redacted whatever it holds.
    expect(redactTokens(`/x/${'a'.repeat(60)}/y`)).toBe('/x/[REDACTED]/y');
    expect(redactTokens(`/x/${'0'.repeat(54)}/y`)).toBe('/x/[REDACTED]/y');
    // Token values beside a commit id still go.
    const v = arcValue();
    const legacy = legacyValue();
    const secret = v.slice(12, 52);
    expect(redactTokens(`/srv/${commit}/${v} ${legacy} ${secret}`)).toBe(
      `/srv/${commit}/arc_${v.slice(4, 12)}[REDACTED] [REDACTED] [REDACTED]`,
    );
  });

  it('sees through percent-encoding', () => {
    const v = arcValue();
    const id = v.slice(4, 12);
    expect(redactTokens(`/api/actors/%61rc_${v.slice(4)}`)).toBe(`/api/actors/%61rc_${id}[REDACTED]`);
    expect(redactTokens(`/api/actors/${encodeAll(v)}`)).toBe(`/api/actors/${encodeAll(`arc_${id}`)}[REDACTED]`);
    expect(redactTokens(`?t=arc%5F${v.slice(4)}`)).toBe(`?t=arc%5F${id}[REDACTED]`);
    const legacy = legacyValue();
    expect(redactTokens(`?t=${encodeAll(legacy)}&u=1`)).toBe('?t=[REDACTED]&u=1');
    expect(redactTokens(`?t=${legacy.slice(0, 20)}${encodeAll(legacy.slice(20))}`)).toBe('?t=[REDACTED]');
    // Encoded twice (a proxy re-encoding a URL), or more.
    expect(redactTokens(`?t=${encodeURIComponent(encodeAll(v))}`)).toBe(
      `?t=${encodeURIComponent(encodeAll(`arc_${id}`))}[REDACTED]`,
    );
    expect(redactTokens(`?t=${encodeURIComponent(encodeURIComponent(encodeAll(legacy)))}`)).toBe('?t=[REDACTED]');
    // Other escapes break a run, as any other character does.
    expect(redactTokens(`?t=${'a'.repeat(30)}%20${'b'.repeat(30)}`)).toBe(`?t=${'a'.repeat(30)}%20${'b'.repeat(30)}`);
  });

  it('keeps a JSON line valid: escapes next to a redacted run stay whole', () => {
    const v = arcValue();
    for (const s of [
      `\n${v}`,
      `\u001b${'A'.repeat(60)}`,
      `\\${v}`,
      `"${v}"`,
      `\t${'x'.repeat(70)}\n`,
      `é${v}ü`,
      `${'A'.repeat(50)}\u0000${'B'.repeat(50)}`,
    ]) {
      const line = JSON.stringify({ msg: s, nested: { deep: [s] } });
      const redacted = redactTokens(line);
      expect(() => JSON.parse(redacted) as unknown, redacted).not.toThrow();
      expect(holdsPartOf(redacted, v.slice(12))).toBe(false);
    }
  });

  it('is what redactSecrets does first (error texts keep the public id too)', () => {
    const v = arcValue();
    expect(redactSecrets(`insert into tokens values ('${v}')`)).toBe(
      `insert into tokens values ('arc_${v.slice(4, 12)}[REDACTED]')`,
    );
    // A stored hash (base64 of a scrypt-kdf key) quoted in an SQL error is cut out.
    const hash = 'c2NyeXB0AAsAAAAIAAAAAR5vk3Fq+Lx0/Zb9QmW2pT7aY1uN8eKc4dR6sJ0hG3iV5oB7wX9yZ2mQ4nP8rT1u';
    expect(redactSecrets(`where secret_hash = '${hash}'`)).toBe(`where secret_hash = '[REDACTED]'`);
    // A file path in a stack trace is made of the same characters, and is kept.
    const frame = 'at run (/srv/archivectl/node_modules/knex/lib/execution/internal/delay.js:12:3)';
    expect(redactSecrets(frame)).toBe(frame);
    // Also below a folder named by a commit id, beside a temporary folder's mixed-case suffix.
    const checkout = 'at start (/tmp/build-Xk3d9Q/e3b0c44298fc1c149afbf4c8996fb92427ae41e4/src/http/startup.ts:41:11)';
    expect(redactSecrets(checkout)).toBe(checkout);
    // Random base64 (not a stored hash) of 40 characters or more still goes.
    const blob = 'q3Vb9XzR2mLp8TwK4yHn6JcF1sDg5AeU7oPi0NlM';
    expect(redactSecrets(`key '${blob}'`)).toBe(`key '[REDACTED]'`);
  });
});

describe('the daemon logger (createLogger)', () => {
  it('redacts every field at any depth, the message and an error, with pino', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    const log = await createLogger('info', sink);
    const v = arcValue();
    const legacy = legacyValue();
    log.info({ a: v, b: { c: [`x ${legacy}`, { d: encodeAll(v) }] }, [v]: 1 }, `message with ${v}`);
    log.warn(`format %s`, v);
    log.error({ err: new Error(`failed for ${v}`) }, 'oops');
    log.child({ bound: v }).info('child');
    await new Promise<void>((resolve) => log.flush(() => resolve()));
    await until(() => lines.length >= 4, 'four log lines');
    expect(lines).toHaveLength(4);
    for (const line of lines) {
      expect(() => JSON.parse(line) as unknown).not.toThrow();
      expect(holdsPartOf(line, v.slice(12)), line).toBe(false);
      expect(holdsPartOf(line, legacy), line).toBe(false);
      expect(line).toContain(`arc_${v.slice(4, 12)}[REDACTED]`);
    }
  });
});

const { cli, daemon } = useDaemon();
let real = '';

beforeAll(async () => {
  await createAccounts(cli(), { lrroot: 'superuser', lrreader: 'user' });
  real = (await createToken(cli(), 'lrreader', 'log redaction', 'lrroot')).token;
});

describe("the daemon's log lines", () => {
  it('never hold the secret part of a value sent in a query, a path, a User-Agent or percent-encoded; the id stays visible', async () => {
    const values = { real, forged: arcValue(), other: arcValue() };
    const legacy = legacyValue();
    const before = daemon().logs.length;
    const requests: { path: string; headers?: Record<string, string> }[] = [];
    for (const v of Object.values(values)) {
      requests.push(
        { path: `/api/objects?API_TOKEN=${v}` },
        { path: `/api/objects?access_token=${v}` },
        { path: `/api/objects?Token=${v}&page=1` },
        { path: `/api/objects?q=x&apikey=${encodeURIComponent(`Bearer ${v}`)}` },
        { path: `/api/objects?api_token=${v}` },
        { path: `/api/actors/${v}` },
        { path: `/${v}` },
        { path: `/api/${v}/x?y=${v}` },
        { path: `/api/actors/%61rc_${v.slice(4)}` },
        { path: `/api/objects?t=${encodeAll(v)}` },
        { path: `/api/objects?t=${encodeURIComponent(encodeAll(v))}` },
        { path: `/api/objects?api_token=1`, headers: { 'User-Agent': `script/1.0 (token ${v})` } },
        { path: `/api/objects?API_TOKEN=${v}`, headers: bearer(real) },
      );
    }
    requests.push(
      { path: `/api/actors/${legacy}` },
      { path: `/api/objects?key=${legacy}` },
      { path: `/api/objects?api_token=1`, headers: { 'User-Agent': legacy } },
    );
    for (const r of requests) {
      const res = await daemon().fetch(r.path, { headers: r.headers });
      await res.arrayBuffer();
      expect(res.status, r.path).toBeLessThan(500);
    }
    // The logger writes asynchronously: wait for the access line of every request.
    const accessLines = () =>
      daemon()
        .logs.slice(before)
        .filter((l) => l.includes('"msg":"request"')).length;
    await until(() => accessLines() >= requests.length, 'an access-log line per request');
    const lines = daemon().logs.slice(before);
    expect(lines.length).toBeGreaterThanOrEqual(requests.length);
    for (const line of lines) {
      for (const [what, v] of Object.entries(values))
        expect(holdsPartOf(line, v.slice(12)), `${what} in ${line}`).toBe(false);
      expect(holdsPartOf(line, legacy.slice(8)), `legacy in ${line}`).toBe(false);
    }
    // The public ids are still there, for operators to find which token leaked.
    for (const [what, v] of Object.entries(values)) {
      const id = v.slice(4, 12);
      expect(lines.filter((l) => l.includes(`arc_${id}[REDACTED]`)).length, what).toBeGreaterThanOrEqual(9);
      expect(
        lines.some((l) => l.includes(`${encodeAll(`arc_${id}`)}[REDACTED]`)),
        what,
      ).toBe(true);
    }
    // The warning line of the api_token rule carries the User-Agent, redacted (and so does
    // every access-log line, which are redacted by the same writer).
    const warnings = lines.filter(
      (l) =>
        l.includes('"user_agent":"script/1.0 (token arc_') &&
        l.includes('refused a request carrying the api_token parameter'),
    );
    expect(warnings.length).toBe(3);
  });
});
