// A request with two Authorization headers is refused with 400. Node keeps the first of them
// and drops the rest; a proxy or a log in front that reads the last one would have judged
// another request than the daemon serves. Sent over a raw socket: fetch joins repeated headers.
import { describe, expect, it } from 'vitest';
import { useDaemonWithTokens } from '../helpers/http.js';
import { rawExchange, type RawOutcome, type RawResponse } from '../helpers/raw-http.js';

const { daemon, t } = useDaemonWithTokens();

/** A GET with the given header lines, sent as written. */
function getWith(path: string, headerLines: string[]): Promise<RawOutcome> {
  const head = [`GET ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close', ...headerLines];
  return rawExchange(daemon().url, `${head.join('\r\n')}\r\n\r\n`);
}

function responseOf(outcome: RawOutcome): RawResponse {
  if (outcome.kind !== 'response') throw new Error(`no response: ${JSON.stringify(outcome)}`);
  return outcome.response;
}

describe('two Authorization headers', () => {
  it('a single header is served (the control)', async () => {
    const r = responseOf(await getWith('/api/objects', [`Authorization: Bearer ${t.user}`]));
    expect(r.status).toBe(200);
  });

  it('answer 400 with a JSON error and close the connection, whichever values they carry', async () => {
    const cases: [string, string[]][] = [
      ['a valid token, then a forged one', [`Authorization: Bearer ${t.user}`, 'Authorization: Bearer arc_forged']],
      ['a forged one, then a valid token', ['Authorization: Bearer arc_forged', `Authorization: Bearer ${t.user}`]],
      ['the same valid token twice', [`Authorization: Bearer ${t.user}`, `Authorization: Bearer ${t.user}`]],
      ['names in other cases', [`authorization: Bearer ${t.user}`, `AUTHORIZATION: Bearer ${t.editor}`]],
      ['a valid token and an empty header', [`Authorization: Bearer ${t.user}`, 'Authorization:']],
    ];
    for (const [label, lines] of cases) {
      const r = responseOf(await getWith('/api/objects', lines));
      expect(r.status, label).toBe(400);
      expect(r.headers['content-type'], label).toMatch(/^application\/json/);
      expect(JSON.parse(r.text), label).toEqual({ error: 'more than one Authorization header' });
      expect(r.headers.connection, label).toBe('close');
    }
  });

  it('are refused on open routes and unknown paths too, before 404', async () => {
    const lines = [`Authorization: Bearer ${t.user}`, `Authorization: Bearer ${t.editor}`];
    expect(responseOf(await getWith('/api/tei/actors', lines)).status).toBe(400);
    expect(responseOf(await getWith('/api/nowhere', lines)).status).toBe(400);
  });
});
