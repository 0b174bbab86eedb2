// Review finding 5: the api_token rule must cost time linear in the size of a query or form and
// throw nothing. A 1 MiB urlencoded body of `%ZZ&` used to cost one thrown URIError per key
// (about 0.7 s of CPU for one request, with the event loop blocked all along).
import http from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { queryHasApiToken, redactQuery } from '../../src/http/api-token.js';
import { useDaemon } from '../helpers/daemon.js';

const MIB = 1024 * 1024;
/** 1 MiB of keys that are malformed percent-escapes. */
const HOSTILE = '%ZZ&'.repeat(MIB / 4);
/** 1 MiB of harmless keys, the calm request of the same size. */
const CALM = 'a=b&'.repeat(MIB / 4);

/** The rule as it was (a decodeURIComponent per key), as the reference for well-formed keys. */
function referenceIsApiToken(rawKey: string): boolean {
  const key = decodeURIComponent(rawKey.replace(/\+/g, ' '));
  return key === 'api_token' || key.startsWith('api_token[');
}

describe('the api_token check (queryHasApiToken, redactQuery)', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('judges 1 MiB of malformed escapes without decodeURIComponent and without throwing', () => {
    const decode = vi.spyOn(globalThis, 'decodeURIComponent');
    expect(queryHasApiToken(HOSTILE)).toBe(false);
    expect(redactQuery(HOSTILE)).toBe(HOSTILE);
    expect(queryHasApiToken(`${HOSTILE}api_token=x`)).toBe(true);
    expect(queryHasApiToken(`${HOSTILE}api%5Ftoken%5B%5D=x`)).toBe(true);
    expect(redactQuery(`${HOSTILE}%61pi_token=x&b=1`)).toBe(`${HOSTILE}%61pi_token=[REDACTED]&b=1`);
    expect(decode).not.toHaveBeenCalled();
  });

  it('finds api_token in every spelling a decoder reads as it, also next to malformed escapes', () => {
    const yes = [
      'api_token=1',
      'api_token',
      'api_token=',
      'a=1&api_token=2',
      '%61pi_token=1',
      'api%5Ftoken=1',
      'api%5ftoken=1',
      'a%70i_token=1',
      'api_token[]=1',
      'api_token%5B%5D=1',
      'api_token%5bx%5d=1',
      'api_token[%ZZ=1',
      'api_token%5B%ZZ=1',
      'api_token[%C3%A9]=1',
      '%ZZ&api_token=1',
      '&&api_token=1&&',
    ];
    const no = [
      '',
      'a=1',
      'api_tokens=1',
      'api_token%ZZ=1',
      'api_tokenx=1',
      'api+token=1',
      'api%20token=1',
      'Api_token=1',
      'xapi_token=1',
      'api_toke=1',
      'api_token%C3%A9=1',
      'a=api_token',
      'a=1%26api_token%3D2',
      'api_token%00=1',
      '%E0%A4%A=1',
    ];
    for (const q of yes) expect(queryHasApiToken(q), q).toBe(true);
    for (const q of no) expect(queryHasApiToken(q), q).toBe(false);
    expect(redactQuery('a=1&api_token=secret&api%5Ftoken%5B%5D=s2&b=2')).toBe(
      'a=1&api_token=[REDACTED]&api%5Ftoken%5B%5D=[REDACTED]&b=2',
    );
  });

  it('agrees with decodeURIComponent on every well-formed key (generated)', () => {
    const pieces = [
      'a',
      'p',
      'i',
      '_',
      't',
      'o',
      'k',
      'e',
      'n',
      '[',
      ']',
      '+',
      '%5B',
      '%5F',
      '%5f',
      '%61',
      '%74',
      '%20',
      '%C3%A9',
      '%25',
      'api',
      'api_',
      'token',
      'api_token',
    ];
    let state = 12345;
    const rand = (n: number) => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state % n;
    };
    let checked = 0;
    for (let i = 0; i < 20000; i++) {
      let key = '';
      const parts = 1 + rand(6);
      for (let j = 0; j < parts; j++) key += pieces[rand(pieces.length)];
      if (i % 3 === 0) key = `api_token${key}`;
      expect(queryHasApiToken(`x=1&${key}=v`), key).toBe(referenceIsApiToken(key));
      checked++;
    }
    expect(checked).toBe(20000);
  });
});

const { daemon } = useDaemon();

/** POSTs a urlencoded body on its own connection; resolves with the status. */
function postForm(body: string): Promise<number> {
  const url = new URL('/api/actors/reconcile', daemon().url);
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      agent: false,
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        'Content-Length': String(Buffer.byteLength(body)),
      },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** One cheap request's round trip, in ms. */
async function probe(): Promise<number> {
  const started = performance.now();
  const res = await daemon().fetch('/api/objects');
  await res.arrayBuffer();
  return performance.now() - started;
}

/**
 * The longest time a cheap request waited while `count` bodies were processed: a measure of how
 * long the daemon's event loop was blocked. Cheap requests are sent one after the other until
 * every body is answered.
 */
async function blockingWhile(body: string, count: number): Promise<{ longestProbeMs: number; statuses: number[] }> {
  let done = false;
  const bodies = Promise.all(Array.from({ length: count }, () => postForm(body))).finally(() => (done = true));
  let longestProbeMs = 0;
  while (!done) longestProbeMs = Math.max(longestProbeMs, await probe());
  return { longestProbeMs, statuses: await bodies };
}

describe('a 1 MiB form of malformed escapes, against a daemon', () => {
  it('is answered 401 and blocks cheap requests no longer than a harmless form of the same size', async () => {
    for (let i = 0; i < 20; i++) await probe(); // warm up
    // Each measure is taken three times; the medians are compared.
    const calm: number[] = [];
    const hostile: number[] = [];
    for (let round = 0; round < 3; round++) {
      const c = await blockingWhile(CALM, 4);
      expect(c.statuses).toEqual([401, 401, 401, 401]);
      calm.push(c.longestProbeMs);
      const h = await blockingWhile(HOSTILE, 4);
      expect(h.statuses).toEqual([401, 401, 401, 401]);
      hostile.push(h.longestProbeMs);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1] as number;
    console.log(
      `longest wait of a cheap request: calm ${calm.map((x) => x.toFixed(1)).join('/')} ms, hostile ${hostile.map((x) => x.toFixed(1)).join('/')} ms`,
    );
    // The hostile body costs what the calm one costs (with slack for noise), not 20 times more.
    expect(median(hostile)).toBeLessThan(4 * median(calm) + 50);
  });
});
