// BEACON dumps (GET /api/{actors,places}?format=beacon) against the BEACON link dump format
// (beacon.md of https://github.com/gbv/beaconspec, read at commit c9d2d2a9), for every provider
// and for names that try to break the line format; #TIMESTAMP is the dump's last change;
// conditional GET with ETag/Last-Modified. The grammar checker below is this project's own
// code, written from the format's rules (§2.2 allowed characters, §2.3 whitespace
// normalisation, §2.4 URI patterns, §3.1 BEACON files, §3.2 link construction, §4.3
// TIMESTAMP), and checks every dump this file fetches. The document itself is not copied
// here (its repository names no license; see test/fixtures/specs/README.md).
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, dataOf, loadCatalog, send, type Reply } from '../helpers/api.js';
import { withSandboxDb } from '../helpers/cli.js';
import { useDaemonWithTokens } from '../helpers/http.js';

// --- a BEACON checker, from beacon.md -----------------------------------------------------------

/** beacon.md §2.2 CHAR: XML 1.0's characters without most controls; also no noncharacter at a plane's end. */

const NOT_CHAR =
  /[^\t\n\r\x20-\x7E\xA0-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFD}]|[\u{1FFFE}\u{1FFFF}\u{2FFFE}\u{2FFFF}\u{3FFFE}\u{3FFFF}\u{4FFFE}\u{4FFFF}\u{5FFFE}\u{5FFFF}\u{6FFFE}\u{6FFFF}\u{7FFFE}\u{7FFFF}\u{8FFFE}\u{8FFFF}\u{9FFFE}\u{9FFFF}\u{AFFFE}\u{AFFFF}\u{BFFFE}\u{BFFFF}\u{CFFFE}\u{CFFFF}\u{DFFFE}\u{DFFFF}\u{EFFFE}\u{EFFFF}\u{FFFFE}\u{FFFFF}]/u;

/** §2.3: strip leading and trailing WHITESPACE, each run of it one SP. WHITESPACE is CR, LF, HTAB, SP. */
const normalised = (s: string) => s.replace(/[\r\n\t ]+/g, ' ').replace(/^ | $/g, '');

const SEPARATOR = '(?::[\\t ]*|[\\t ]+)'; // ":" *SPACE / +SPACE
const FORMAT_LINE = new RegExp(`^#FORMAT${SEPARATOR}BEACON[\\t ]*$`);
const META_LINE = new RegExp(`^#([A-Z]+)${SEPARATOR}(.*)$`);
// RFC 3339 full-date or date-time, uppercase T and Z (§4.3.6).
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}))?$/;
const UPDATE_VALUES = ['always', 'hourly', 'daily', 'weekly', 'monthly', 'yearly', 'never'];

/** RFC 6570 expansion of {ID} (simple) or {+ID} (reserved), the only expressions §2.4 allows. */
function expand(pattern: string, id: string): string {
  const encode = (s: string, keep: RegExp) =>
    [...s]
      .map((c, i, all) => {
        if (keep.test(c)) return c;
        // reserved expansion passes pct-encoded triplets through
        if (keep !== UNRESERVED && c === '%' && /^[0-9A-Fa-f]{2}$/.test(all.slice(i + 1, i + 3).join(''))) return c;
        return [...Buffer.from(c, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
      })
      .join('');
  return pattern.replace(/\{ID\}/g, () => encode(id, UNRESERVED)).replace(/\{\+ID\}/g, () => encode(id, RESERVED));
}
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
const RESERVED = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]$/;

/** A URI pattern of §2.4 with `{ID}` appended when it has none (§4.1.1-4.1.2); default `{+ID}`. */
function uriPattern(value: string | undefined, problems: string[], field: string): string {
  if (value === undefined || value === '') return '{+ID}';
  if (/\{(?!\+?ID\})/.test(value)) problems.push(`#${field}: an expression other than {ID} or {+ID}`);
  return /\{\+?ID\}/.test(value) ? value : `${value}{ID}`;
}

interface BeaconLinkOut {
  source: string;
  target: string;
  annotation: string;
  /** The three tokens as written. */
  tokens: string[];
}

interface BeaconCheck {
  problems: string[];
  meta: Record<string, string>;
  links: BeaconLinkOut[];
}

/**
 * Parses a BEACON file by the grammar of §3.1 and reports every deviation, plus what this API
 * promises beyond the MUSTs: a #FORMAT line, NFKC and normalised tokens, no empty or `#` link
 * lines, constructed identifiers that are http(s) URLs.
 */
function checkBeacon(text: string, options: { requireFormat?: boolean } = {}): BeaconCheck {
  const problems: string[] = [];
  const meta: Record<string, string> = {};
  const links: BeaconLinkOut[] = [];
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const lines = body.split(/\r\n|\n|\r/);
  if (lines[lines.length - 1] === '')
    lines.pop(); // §3.1: SHOULD end with a line break
  else problems.push('the file does not end with a line break');
  lines.forEach((line, i) => {
    const bad = NOT_CHAR.exec(line);
    if (bad)
      problems.push(
        `line ${i + 1}: character U+${(bad[0].codePointAt(0) ?? 0).toString(16).toUpperCase()} is not allowed`,
      );
  });
  let i = 0;
  if (lines[0] !== undefined && FORMAT_LINE.test(lines[0])) i = 1;
  else if (options.requireFormat !== false) problems.push('no "#FORMAT: BEACON" line first');
  for (; i < lines.length && (lines[i] as string).startsWith('#'); i++) {
    const line = lines[i] as string;
    const m = META_LINE.exec(line);
    if (!m) {
      problems.push(`line ${i + 1}: not a meta line: ${JSON.stringify(line)}`);
      continue;
    }
    const [, field, value] = m as unknown as [string, string, string];
    if (field in meta) problems.push(`line ${i + 1}: #${field} given twice`);
    if (value !== normalised(value)) problems.push(`line ${i + 1}: #${field} is not whitespace-normalised`);
    if (value !== value.normalize('NFKC')) problems.push(`line ${i + 1}: #${field} is not NFKC`);
    meta[field] = value;
  }
  for (; i < lines.length && /^[\t ]*$/.test(lines[i] as string); i++);
  if (meta.TIMESTAMP !== undefined && (!TIMESTAMP.test(meta.TIMESTAMP) || Number.isNaN(Date.parse(meta.TIMESTAMP)))) {
    problems.push(`#TIMESTAMP ${JSON.stringify(meta.TIMESTAMP)} is not an RFC 3339 date or date-time with T and Z`);
  }
  if (meta.UPDATE !== undefined && !UPDATE_VALUES.includes(meta.UPDATE))
    problems.push(`#UPDATE ${meta.UPDATE} is not a changefreq`);
  const prefix = uriPattern(meta.PREFIX, problems, 'PREFIX');
  const target = uriPattern(meta.TARGET, problems, 'TARGET');
  for (; i < lines.length; i++) {
    const line = lines[i] as string;
    const where = `line ${i + 1}`;
    const tokens = line.split('|');
    if (tokens.length > 3) problems.push(`${where}: more than two vertical bars`);
    for (const t of tokens) {
      if (t !== normalised(t)) problems.push(`${where}: token ${JSON.stringify(t)} is not whitespace-normalised`);
      if (t !== t.normalize('NFKC')) problems.push(`${where}: token ${JSON.stringify(t)} is not NFKC`);
    }
    const [source = '', second, third] = tokens.map(normalised);
    if (source === '') problems.push(`${where}: the source token is empty (whitespace only)`);
    if (line.startsWith('#')) problems.push(`${where}: a link line beginning with #`);
    // §3.1: with one bar, the second token is the target when TARGET is {+ID} and it is an http(s) URL.
    let annotation = '';
    let targetToken = '';
    if (tokens.length === 2) {
      if (target === '{+ID}' && /^https?:/.test(second ?? '')) targetToken = second ?? '';
      else annotation = second ?? '';
    } else if (tokens.length >= 3) {
      annotation = second ?? '';
      targetToken = third ?? '';
    }
    const sourceId = expand(prefix, source);
    const targetId = expand(target, targetToken === '' ? source : targetToken);
    for (const [what, uri] of [
      ['source', sourceId],
      ['target', targetId],
    ] as const) {
      try {
        if (!/^https?:$/.test(new URL(uri).protocol)) problems.push(`${where}: ${what} ${uri} is not an http(s) URL`);
      } catch {
        problems.push(`${where}: ${what} ${uri} is not a URL`);
      }
    }
    links.push({ source: sourceId, target: targetId, annotation, tokens });
  }
  return { problems, meta, links };
}

// --- the checker itself, on beacon.md's examples --------------------------------------------------

describe('the BEACON checker', () => {
  it('reads the examples of beacon.md §1.3 as the specification explains them', () => {
    const plain = checkBeacon(
      'http://example.com/people/alice|http://example.com/documents/23.about\nhttp://example.com/people/bob||http://example.com/documents/42.about\n',
      {
        requireFormat: false,
      },
    );
    expect(plain.problems).toEqual([]);
    expect(plain.links.map((l) => [l.source, l.target])).toEqual([
      ['http://example.com/people/alice', 'http://example.com/documents/23.about'],
      ['http://example.com/people/bob', 'http://example.com/documents/42.about'],
    ]);
    const abbreviated = checkBeacon(
      '#FORMAT: BEACON\n#PREFIX: http://example.org/id/\n#TARGET: http://example.com/about/\n\n12345\n6789||abc\n',
    );
    expect(abbreviated.problems).toEqual([]);
    expect(abbreviated.links.map((l) => [l.source, l.target])).toEqual([
      ['http://example.org/id/12345', 'http://example.com/about/12345'],
      ['http://example.org/id/6789', 'http://example.com/about/abc'],
    ]);
    const message = checkBeacon('http://example.org/foo|Hello World!|http://example.com/foo\n', {
      requireFormat: false,
    });
    expect(message.links[0]).toMatchObject({ annotation: 'Hello World!', target: 'http://example.com/foo' });
    // §2.4's expansion table
    expect(expand('http://example.org/?id={ID}', 'Hello World!')).toBe('http://example.org/?id=Hello%20World%21');
    expect(expand('http://example.org/{+ID}', 'x/?a=1&b=2')).toBe('http://example.org/x/?a=1&b=2');
  });

  it('finds what breaks a dump', () => {
    const head = '#FORMAT: BEACON\n#PREFIX: https://d-nb.info/gnd/\n#TARGET: https://a.example/api/actors/{ID}\n\n';
    const cases: [string, RegExp][] = [
      [`${head}118540238|Goethe\uFFFE|1\n`, /U\+FFFE/],
      [`${head}118540238|Goethe\uFFFF|1\n`, /U\+FFFF/],
      [`${head}118540238|Goe\u0085the|1\n`, /U\+85/],
      [`${head}118540238|Goe\u{10FFFF}the|1\n`, /U\+10FFFF/],
      [`${head}118540238| Goethe|1\n`, /not whitespace-normalised/],
      [`${head}118540238|Goethe  J.|1\n`, /not whitespace-normalised/],
      [`${head}118540238|Goethe|x|1\n`, /more than two vertical bars/],
      [`${head}118540238|ﬁle|1\n`, /not NFKC/],
      [`${head}|Goethe|1\n`, /source token is empty/],
      [`${head}118540238|Goethe|1\n\n`, /source token is empty/],
      [`${head}118540238|Goethe|1`, /line break/],
      [`#FORMAT: BEACON\n#PREFIX: a\n#PREFIX: b\n\nx\n`, /given twice/],
      [`#FORMAT: BEACON\n#Prefix: a\n\nx\n`, /not a meta line/],
      [`#FORMAT: BEACON\n#TIMESTAMP: 2026-11-20 10:00:00\n\nhttp://x.example/1\n`, /TIMESTAMP/],
      [`#FORMAT: BEACON\n#TIMESTAMP: 2026-11-20t10:00:00z\n\nhttp://x.example/1\n`, /TIMESTAMP/],
      [`#FORMAT: BEACON\n#NAME: a \n\nhttp://x.example/1\n`, /NAME is not whitespace-normalised/],
      [`${head}#118540238|Goethe|1\n`, /beginning with #/],
      [`#FORMAT: BEACON\n#PREFIX: {id}\n\nx\n`, /expression other than/],
      [`118540238|Goethe|1\n`, /FORMAT/],
    ];
    for (const [text, problem] of cases) {
      expect(checkBeacon(text).problems.join('\n'), JSON.stringify(text)).toMatch(problem);
    }
    expect(checkBeacon(`${head}118540238|Goethe|1\n`).problems).toEqual([]);
    expect(checkBeacon(`\uFEFF${head}118540238||1\r\n`).problems).toEqual([]);
  });
});

// --- dumps of a running daemon -----------------------------------------------------------------------

const { cli, daemon, api, t } = useDaemonWithTokens();
const origin = () => daemon().url.replace(/\/$/, '');

/** Waits until the second of the last change has passed (Last-Modified is sent only then). */
const pastTheSecond = () => new Promise((resolve) => setTimeout(resolve, 1100));

interface Dump {
  reply: Reply;
  check: BeaconCheck;
}

/** Fetches a dump, checks its bytes are UTF-8 and its text BEACON, and answers both. */
async function dump(query: string, headers: Record<string, string> = {}): Promise<Dump> {
  const res = await daemon().fetch(`/api/${query}`, { headers: { ...bearer(t.user), ...headers } });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  const reply: Reply = { method: 'GET', path: query, status: res.status, headers: res.headers, text, body: undefined };
  const check = checkBeacon(text);
  // Last-Modified only once its second has passed (a second change in the same second would
  // otherwise hide behind the same date from If-Modified-Since).
  const modified = res.headers.get('last-modified');
  if (modified !== null)
    expect(Date.parse(modified), `${query}: Last-Modified ${modified}, Date ${res.headers.get('date')}`).toBeLessThan(
      Date.parse(res.headers.get('date') as string),
    );
  if (res.status === 200) {
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(check.problems, `${query}:\n${text}`).toEqual([]);
  }
  return { reply, check };
}

// Names that a naive writer would turn into broken BEACON: noncharacters, C1 controls, Unicode
// line separators, vertical bars (also fullwidth), compatibility characters, outer and inner
// runs of spaces. The API and `catalog load` refuse some of them (controls, separators,
// noncharacters); those are written straight into the database, as SQL by hand or data stored
// before the rule could hold them, and the dump must still be valid.
const NASTY: [string, string][] = [
  ['Nasty\uFFFE one\uFFFF', 'Nasty one'],
  ['Nasty | bar || double', 'Nasty / bar // double'],
  ['Nasty\uFF5Cfullwidth', 'Nasty/fullwidth'],
  ['Nasty\u2028line\u2029paragraph\u0085next', 'Nasty line paragraphnext'],
  ['Nasty\u00A0\u00A0nbsp  and   spaces', 'Nasty nbsp and spaces'],
  ['Nasty ﬁ ligature Ⅻ', 'Nasty fi ligature XII'],
  ['Nasty e\u0301 combining', 'Nasty é combining'],
  ['Nasty \u{1FFFE}\uFDD0 plane ends', 'Nasty plane ends'],
  ['Nasty 😀 \uE000 kept', 'Nasty 😀 \uE000 kept'],
  ['#Nasty hash', '#Nasty hash'],
  ['\uFFFE', ''],
];

describe('BEACON dump of an empty register', () => {
  it('is a valid dump without links, #TIMESTAMP or Last-Modified, with an ETag', async () => {
    const { reply, check } = await dump('places?format=beacon');
    expect(reply.status).toBe(200);
    expect(check.links).toEqual([]);
    expect(check.meta).not.toHaveProperty('TIMESTAMP');
    expect(reply.headers.get('last-modified')).toBeNull();
    expect(reply.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{20,}"$/);
    const again = await send(daemon(), '/api/places?format=beacon', {
      headers: { ...bearer(t.user), 'If-None-Match': reply.headers.get('etag') as string },
    });
    expect(again.status).toBe(304);
  });
});

describe('BEACON dumps of a running daemon', () => {
  const ids: Record<string, number> = {};
  beforeAll(async () => {
    await loadCatalog(cli(), 'beacon.json', {
      actors: [
        { name: 'Goethe, Johann Wolfgang von', gnd: '118540238', sikart: '4000055' },
        { name: 'Ohne Kennung' },
        ...NASTY.map((_, i) => ({
          name: `Nasty placeholder ${i}`,
          gnd: `1185402${String(10 + i)}`,
          sikart: `40001${String(10 + i)}`,
          type: 'group',
        })),
      ],
      places: [
        {
          name: 'Zürich',
          gnd: '4068038-8',
          geonames: '2657896',
          wikipedia: 'https://de.wikipedia.org/wiki/Z%C3%BCrich',
        },
        { name: 'Who? | Town', wikipedia: 'https://en.wikipedia.org/wiki/Who%3F_%22Town%22_100%25' },
        { name: 'Nowhere' },
      ],
    });
    await withSandboxDb(cli(), async (db) => {
      for (const [i, [name]] of NASTY.entries()) {
        await db('actors').where('name', `Nasty placeholder ${i}`).update({ name, name_lower: name.toLowerCase() });
      }
    });
    for (const register of ['actors', 'places']) {
      for (const item of dataOf<{ id: number; name: string }[]>(await api.get(`/api/${register}?perPage=100`, t.user)))
        ids[item.name] = item.id;
    }
  });

  it('links each actor with a GND id to its URL, annotated with its name made safe, one line each', async () => {
    const { check } = await dump('actors?format=beacon');
    expect(check.meta).toMatchObject({ PREFIX: 'https://d-nb.info/gnd/', TARGET: `${origin()}/api/actors/{ID}` });
    const expected = [
      {
        source: 'https://d-nb.info/gnd/118540238',
        target: `${origin()}/api/actors/${ids['Goethe, Johann Wolfgang von']}`,
        annotation: 'Goethe, Johann Wolfgang von',
      },
      ...NASTY.map(([name, safe], i) => ({
        source: `https://d-nb.info/gnd/1185402${10 + i}`,
        target: `${origin()}/api/actors/${ids[name]}`,
        annotation: safe,
      })),
    ];
    expect(check.links.map(({ source, target, annotation }) => ({ source, target, annotation }))).toEqual(expected);
  });

  it('dumps SIKART (actors), GeoNames and Wikipedia (places) the same way', async () => {
    const sikart = await dump('actors?format=beacon&provider=sikart');
    expect(sikart.check.links).toHaveLength(NASTY.length + 1);
    expect(sikart.check.links[0]).toMatchObject({
      source: 'https://recherche.sik-isea.ch/sik:person-4000055/in/sikart',
    });
    const geonames = await dump('places?format=beacon&provider=geonames');
    expect(geonames.check.links.map((l) => l.source)).toEqual(['https://sws.geonames.org/2657896/']);
    const gnd = await dump('places?format=beacon&provider=gnd');
    expect(gnd.check.links.map((l) => [l.source, l.annotation])).toEqual([
      ['https://d-nb.info/gnd/4068038-8', 'Zürich'],
    ]);
    const wikipedia = await dump('places?format=beacon&provider=wikipedia');
    expect(wikipedia.check.meta).not.toHaveProperty('PREFIX');
    expect(wikipedia.check.links.map((l) => [l.source, l.target, l.annotation])).toEqual([
      ['https://de.wikipedia.org/wiki/Z%C3%BCrich', `${origin()}/api/places/${ids['Zürich']}`, 'Zürich'],
      [
        'https://en.wikipedia.org/wiki/Who%3F_%22Town%22_100%25',
        `${origin()}/api/places/${ids['Who? | Town']}`,
        'Who? / Town',
      ],
    ]);
  });

  it('dates #TIMESTAMP and Last-Modified at the register’s last change, not at the request', async () => {
    const latest = async (register: string) =>
      dataOf<{ updated_at: string }[]>(
        await api.get(`/api/${register}?sortField=updated_at&sortAsc=0&perPage=1`, t.user),
      )[0]?.updated_at as string;
    const first = await dump('actors?format=beacon');
    const stamp = (await latest('actors')).replace(/\.\d{3}Z$/, 'Z');
    expect(first.check.meta.TIMESTAMP).toBe(stamp);
    // A second later nothing has changed, and neither has the dump; its date is now settled.
    await pastTheSecond();
    const again = await dump('actors?format=beacon');
    expect(again.reply.text).toBe(first.reply.text);
    expect(again.reply.headers.get('etag')).toBe(first.reply.headers.get('etag'));
    expect(again.reply.headers.get('last-modified')).toBe(new Date(stamp).toUTCString());
    // A change moves it to that change.
    const changed = dataOf<{ updated_at: string }>(
      await api.put(`/api/actors/${ids['Ohne Kennung']}`, { comment: 'x' }, t.editor),
    );
    const after = await dump('actors?format=beacon');
    expect(after.check.meta.TIMESTAMP).toBe(changed.updated_at.replace(/\.\d{3}Z$/, 'Z'));
    expect(after.check.meta.TIMESTAMP).toBe((await latest('actors')).replace(/\.\d{3}Z$/, 'Z'));
  });

  it('answers If-None-Match and If-Modified-Since with 304 (GET and HEAD) while the dump is unchanged', async () => {
    await pastTheSecond();
    const { reply } = await dump('actors?format=beacon');
    const etag = reply.headers.get('etag') as string;
    const modified = reply.headers.get('last-modified') as string;
    expect(reply.headers.get('cache-control')).toBe('private, no-cache'); // asked with a token
    const status = async (headers: Record<string, string>, method = 'GET') => {
      const r = await send(daemon(), '/api/actors?format=beacon', {
        method,
        headers: { ...bearer(t.user), ...headers },
      });
      if (r.status === 304) {
        expect(r.text).toBe('');
        expect(r.headers.get('etag')).toBe(etag);
      }
      return r.status;
    };
    expect(await status({ 'If-None-Match': etag })).toBe(304);
    expect(await status({ 'If-None-Match': `"other", W/${etag}` })).toBe(304);
    expect(await status({ 'If-None-Match': '*' })).toBe(304);
    expect(await status({ 'If-None-Match': '"other"' })).toBe(200);
    expect(await status({ 'If-Modified-Since': modified })).toBe(304);
    expect(await status({ 'If-Modified-Since': new Date(Date.parse(modified) + 60_000).toUTCString() })).toBe(304);
    expect(await status({ 'If-Modified-Since': new Date(Date.parse(modified) - 1000).toUTCString() })).toBe(200);
    expect(await status({ 'If-Modified-Since': 'yesterday' })).toBe(200);
    // If-None-Match decides when both are sent (RFC 9110 §13.2.2).
    expect(await status({ 'If-None-Match': '"other"', 'If-Modified-Since': modified })).toBe(200);
    expect(await status({ 'If-None-Match': etag }, 'HEAD')).toBe(304);
    const head = await send(daemon(), '/api/actors?format=beacon', { method: 'HEAD', headers: bearer(t.user) });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(etag);
    expect(head.headers.get('last-modified')).toBe(modified);
    // Validators of one dump say nothing about another.
    const other = await send(daemon(), '/api/actors?format=beacon&provider=sikart', {
      headers: { ...bearer(t.user), 'If-None-Match': etag },
    });
    expect(other.status).toBe(200);
  });

  it('answers 200 with new validators once a row enters or leaves the dump', async () => {
    const before = await dump('actors?format=beacon');
    const etag = before.reply.headers.get('etag') as string;
    const cleared = dataOf<{ updated_at: string }>(
      await api.put(`/api/actors/${ids['Goethe, Johann Wolfgang von']}`, { gnd: null }, t.editor),
    );
    const left = await dump('actors?format=beacon', { 'If-None-Match': etag });
    expect(left.reply.status).toBe(200);
    expect(left.reply.headers.get('etag')).not.toBe(etag);
    expect(left.check.links.map((l) => l.source)).not.toContain('https://d-nb.info/gnd/118540238');
    // The row left the dump, and the change that took it out dates it.
    expect(left.check.meta.TIMESTAMP).toBe(cleared.updated_at.replace(/\.\d{3}Z$/, 'Z'));
    await api.put(`/api/actors/${ids['Goethe, Johann Wolfgang von']}`, { gnd: '118540238' }, t.editor);
    const back = await dump('actors?format=beacon', { 'If-None-Match': left.reply.headers.get('etag') as string });
    expect(back.reply.status).toBe(200);
    expect(back.check.links.map((l) => l.source)).toContain('https://d-nb.info/gnd/118540238');
  });

  it('checks every dump of every provider and filter', async () => {
    const actorDumps = ['', '&provider=gnd', '&provider=sikart', '&authority_type=group', '&authority_type=software'];
    const placeDumps = ['', '&provider=geonames', '&provider=wikipedia'];
    for (const query of [
      ...actorDumps.map((q) => `actors?format=beacon${q}`),
      ...placeDumps.map((q) => `places?format=beacon${q}`),
    ]) {
      const { reply } = await dump(query);
      expect(reply.status, query).toBe(200);
    }
  });
});
