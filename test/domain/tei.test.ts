import { describe, expect, it } from 'vitest';
import {
  actorsDocument,
  dateAttributes,
  isIsoYearZeroDate,
  isW3cDate,
  keywordsDocument,
  placesDocument,
  type ActorRow,
  type KeywordRow,
} from '../../src/domain/catalog/tei/document.js';
import { parseIds } from '../../src/domain/catalog/tei/exports.js';
import { escapeAttr, escapeText, stripInvalidXmlChars } from '../../src/domain/catalog/xml.js';
import { AppError } from '../../src/errors.js';
import { actor, actorLists, place } from '../helpers/tei.js';

const AT = '2026-11-20T10:00:00.000Z';

/**
 * A small well-formedness check (there is no XML parser among the dependencies): tags balance,
 * every `&` starts a known entity or a character reference, no `<` or `>` inside text or
 * attribute values, and no character XML 1.0 forbids.
 */
function assertWellFormed(xml: string): void {
  const body = xml.replace(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n/, '');
  expect(body).not.toMatch(/<\?xml/);
  expect(stripInvalidXmlChars(body)).toBe(body);
  expect(body).not.toMatch(/&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9A-Fa-f]+);)/);
  const stack: string[] = [];
  const token = /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<>]*")*)\s*(\/?)>|([^<]+)|(<)/g;
  let m: RegExpExecArray | null;
  let roots = 0;
  while ((m = token.exec(body)) !== null) {
    const [, close, name, , selfClose, text, stray] = m;
    if (stray) throw new Error(`stray "<" at ${m.index}`);
    if (text !== undefined) {
      expect(text).not.toContain('>');
      if (stack.length === 0) expect(text.trim()).toBe('');
      continue;
    }
    if (close) {
      expect(stack.pop(), `closing </${name}>`).toBe(name);
    } else if (!selfClose) {
      if (stack.length === 0) roots++;
      stack.push(name as string);
    } else if (stack.length === 0) roots++;
  }
  expect(stack).toEqual([]);
  expect(roots).toBe(1);
}

describe('XML escaping', () => {
  it('escapes the five special characters in text and attributes', () => {
    expect(escapeText(`a & b < c > d "e" 'f'`)).toBe('a &amp; b &lt; c &gt; d &quot;e&quot; &apos;f&apos;');
    expect(escapeAttr(`x"y'z<&>`)).toBe('x&quot;y&apos;z&lt;&amp;&gt;');
  });

  it('keeps whitespace in attributes as character references, so a parser does not fold it', () => {
    expect(escapeAttr('a\tb\nc\rd')).toBe('a&#9;b&#10;c&#13;d');
    expect(escapeText('a\tb\nc\rd')).toBe('a\tb\nc&#13;d');
  });

  it('drops characters XML 1.0 does not allow, including lone surrogates', () => {
    expect(stripInvalidXmlChars('a\u0000b\u0001c\u0008d\u000Be\u000Cf\u001Fg\uFFFEh\uFFFFi')).toBe('abcdefghi');
    expect(stripInvalidXmlChars('x\uD800y\uDC00z')).toBe('xyz');
    // Valid astral characters (a surrogate pair) stay.
    expect(stripInvalidXmlChars('Emoji \u{1F600} and é')).toBe('Emoji \u{1F600} and é');
    expect(escapeText('\u0007<b>')).toBe('&lt;b&gt;');
  });

  it('writes C1 controls as character references (legal in XML 1.0, but discouraged and not literal in XML 1.1)', () => {
    expect(escapeText('a\u0085b\u009Bc\u0080')).toBe('a&#x85;b&#x9B;c&#x80;');
    expect(escapeAttr('\u0090')).toBe('&#x90;');
    expect(escapeText('\u00A0é')).toBe('\u00A0é');
  });

  it('does not double-escape', () => {
    expect(escapeText('&amp;')).toBe('&amp;amp;');
  });
});

describe('W3C dates', () => {
  it('accepts years, year-months and real calendar dates only', () => {
    for (const ok of ['1901', '1901-02', '1901-02-28', '2000-02-29', '-0044']) expect(isW3cDate(ok), ok).toBe(true);
    for (const bad of ['1900-02-29', '1901-13', '1901-00', '1901-02-30', 'ca. 1900', '19', '1901-2-3', '']) {
      expect(isW3cDate(bad), bad).toBe(false);
    }
  });

  it('has no year zero (XML Schema 1.0): 0000 is an ISO 8601 date for the -iso attributes instead', () => {
    for (const zero of ['0000', '0000-01', '0000-02-29', '0000-12-31', '-0000'])
      expect(isW3cDate(zero), zero).toBe(false);
    for (const ok of ['0000', '0000-01', '0000-02-29', '0000-12-31']) expect(isIsoYearZeroDate(ok), ok).toBe(true);
    for (const bad of ['0000-13', '0000-02-30', '0001', '-0000', '0000-1', 'ca. 0000'])
      expect(isIsoYearZeroDate(bad), bad).toBe(false);
  });

  it('puts all dates of one element into the same attribute system, and free text into the text', () => {
    expect(
      dateAttributes([
        ['from', '1900'],
        ['to', '1950-05'],
      ]),
    ).toEqual({
      attrs: [
        ['from', '1900'],
        ['to', '1950-05'],
      ],
      free: [],
    });
    expect(
      dateAttributes([
        ['from', '0000'],
        ['to', '1950'],
      ]),
    ).toEqual({
      attrs: [
        ['from-iso', '0000'],
        ['to-iso', '1950'],
      ],
      free: [],
    });
    expect(dateAttributes([['when', ' 0000-02-29 ']])).toEqual({ attrs: [['when-iso', '0000-02-29']], free: [] });
    expect(
      dateAttributes([
        ['from', 'ca. 1900'],
        ['to', '1950'],
      ]),
    ).toEqual({ attrs: [['to', '1950']], free: ['ca. 1900'] });
    expect(
      dateAttributes([
        ['from', null],
        ['to', '  '],
      ]),
    ).toEqual({ attrs: [], free: [] });
  });
});

describe('actors document', () => {
  const rows: ActorRow[] = [
    actor({
      id: 12,
      type: 'person',
      name: 'Ada <Lovelace> & "Byron"',
      label: '{"de":"Ada Lovelace (de)","not a tag!":"x"}',
      alternative_names: '["Augusta Ada King"]',
      date_start: '1815-12-10',
      date_end: 'ca. 1852',
      comment: 'Line one\u0000 & more',
      gnd: '118574884',
    }),
    actor({ id: 13, type: 'family', name: 'Familie Müller', date_start: '1800', date_end: '1900' }),
    actor({ id: 14, type: 'corporate_body', name: 'Zentralbibliothek', date_start: '1914', gnd: '4103345-1' }),
    actor({ id: 15, type: 'software', name: 'OCR bot', label: 'not json' }),
  ];
  const xml = actorsDocument(rows, AT);

  it('is a well-formed TEI document with a minimal header', () => {
    assertWellFormed(xml);
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<TEI xmlns="http://www.tei-c.org/ns/1.0">')).toBe(
      true,
    );
    expect(xml).toMatch(
      /<teiHeader>\s*<fileDesc>\s*<titleStmt>\s*<title>Actors<\/title>\s*<\/titleStmt>\s*<publicationStmt>\s*<p>[^<]+<\/p>\s*<\/publicationStmt>\s*<sourceDesc>\s*<p>[^<]+<\/p>\s*<\/sourceDesc>\s*<\/fileDesc>\s*<\/teiHeader>/,
    );
    expect(xml).toContain(AT);
  });

  it('puts persons and families in listPerson, other actor types in listOrg, inside standOff', () => {
    const standOff = /<standOff>([\s\S]*)<\/standOff>/.exec(xml)?.[1] ?? '';
    const { listPerson, listOrg } = actorLists(standOff);
    expect(listPerson).toContain('<person xml:id="actor-12">');
    expect(listPerson).toContain('<person xml:id="actor-13" role="family">');
    expect(listOrg).toContain('<org xml:id="actor-14" type="corporate_body">');
    expect(listOrg).toContain('<org xml:id="actor-15" type="software">');
    expect(listPerson).not.toContain('actor-14');
  });

  it('maps names, dates, GND and comments of a person, escaping every value', () => {
    const person = /<person xml:id="actor-12">[\s\S]*?<\/person>/.exec(xml)?.[0] ?? '';
    expect(person).toContain('<persName>Ada &lt;Lovelace&gt; &amp; &quot;Byron&quot;</persName>');
    expect(person).toContain('<persName type="alternative">Augusta Ada King</persName>');
    expect(person).toContain('<persName type="label" xml:lang="de">Ada Lovelace (de)</persName>');
    expect(person).not.toContain('not a tag');
    expect(person).toContain('<birth when="1815-12-10"/>');
    expect(person).toContain('<death>ca. 1852</death>'); // free text kept, not forced into @when
    expect(person).toContain('<idno type="GND">118574884</idno>');
    expect(person).toContain('<note>Line one &amp; more</note>');
  });

  it('gives a family a floruit and an organisation its name', () => {
    expect(xml).toMatch(
      /<person xml:id="actor-13" role="family">\s*<persName>Familie Müller<\/persName>\s*<floruit from="1800" to="1900"\/>/,
    );
    expect(xml).toMatch(
      /<org xml:id="actor-14"[^>]*>\s*<orgName>Zentralbibliothek<\/orgName>\s*<idno type="GND">4103345-1<\/idno>/,
    );
  });

  it("dates an organisation's existence with an event (org itself takes no dates), free text in its label", () => {
    expect(xml).toMatch(
      /<org xml:id="actor-14" type="corporate_body">[\s\S]*?<event type="existence" from="1914">\s*<label>1914–<\/label>\s*<\/event>\s*<\/org>/,
    );
    expect(xml).not.toMatch(/<org [^>]*\b(?:from|to|when)=/);
    const doc = actorsDocument(
      [
        actor({ id: 1, type: 'group', name: 'G', date_start: '0000', date_end: '1950-05' }),
        actor({ id: 2, type: 'software', name: 'S', date_start: 'ca. 1990', date_end: '2001' }),
        actor({ id: 3, type: 'organisational_unit', name: 'O', date_end: '1900', comment: 'c' }),
      ],
      AT,
    );
    expect(doc).toMatch(/<event type="existence" from-iso="0000" to-iso="1950-05">\s*<label>0000–1950-05<\/label>/);
    expect(doc).toMatch(/<event type="existence" to="2001">\s*<label>ca. 1990–2001<\/label>/);
    // The event comes with the names and identifiers, before notes (the content model of org).
    expect(doc).toMatch(
      /<orgName>O<\/orgName>\s*<event type="existence" to="1900">\s*<label>–1900<\/label>\s*<\/event>\s*<note>c<\/note>/,
    );
  });

  it('writes year 0000 into when-iso/from-iso/to-iso for persons and families, never into when/from/to', () => {
    const doc = actorsDocument(
      [
        actor({ id: 1, type: 'person', name: 'P', date_start: '0000', date_end: '0001-02-03' }),
        actor({ id: 2, type: 'family', name: 'F', date_start: '0000-01', date_end: '1900' }),
        actor({ id: 3, type: 'person', name: 'Q', date_start: '1900', date_end: '0000-02-29' }),
      ],
      AT,
    );
    expect(doc).toContain('<birth when-iso="0000"/>');
    expect(doc).toContain('<death when="0001-02-03"/>');
    expect(doc).toContain('<floruit from-iso="0000-01" to-iso="1900"/>');
    expect(doc).toContain('<death when-iso="0000-02-29"/>');
    expect(doc).not.toMatch(/\b(?:when|from|to)="0000/);
  });

  it("adds Anton's name variants, abbreviations and SIKART id when the rows have them", () => {
    const doc = actorsDocument(
      [
        actor({
          id: 1,
          type: 'person',
          name: 'Hodler, Ferdinand',
          variants: '["Ferdinand Hodler"]',
          abbreviations: '["F. H."]',
          sikart: '4000055',
        }),
      ],
      AT,
    );
    expect(doc).toMatch(
      /<persName>Hodler, Ferdinand<\/persName>\s*<persName type="variant">Ferdinand Hodler<\/persName>\s*<persName type="abbreviation">F. H.<\/persName>/,
    );
    expect(doc).toContain('<idno type="SIKART">4000055</idno>');
  });

  it("gives the same bytes for the same rows: the time in the header is the data's last change, passed in", () => {
    expect(actorsDocument(rows, AT)).toBe(xml);
    expect(xml).toContain(`last changed at ${AT}`);
    expect(actorsDocument([], null)).toContain('0 entries.');
  });

  it('is still a valid document when there are no actors (no empty lists)', () => {
    const empty = actorsDocument([], AT);
    assertWellFormed(empty);
    expect(empty).not.toContain('<standOff');
    expect(empty).not.toContain('<listPerson');
    expect(empty).toMatch(/<text>\s*<body>\s*<p\/>\s*<\/body>\s*<\/text>/);
  });

  it('leaves out listOrg when there are only persons', () => {
    const only = actorsDocument([actor({ id: 1, type: 'person', name: 'A' })], AT);
    expect(only).toContain('<listPerson>');
    expect(only).not.toContain('<listOrg');
  });
});

describe('places document', () => {
  const xml = placesDocument(
    [
      place({
        id: 3,
        name: 'Zürich',
        label: '{"fr":"Zurich","en":"Zurich"}',
        city: 'Zürich',
        state: 'ZH',
        address: 'Predigerplatz 33',
        country_code: 'ch',
        location: '47.3769 8.5417',
        gnd: '4068038-2',
        geonames: '2657896',
      }),
      place({ id: 4, name: "O'Hare & <Co>" }),
    ],
    AT,
  );

  it('is well-formed, with a listPlace in standOff', () => {
    assertWellFormed(xml);
    expect(xml).toMatch(/<standOff>\s*<listPlace>/);
    expect(xml).toContain('<title>Places</title>');
  });

  it('maps name, location, coordinates and identifiers', () => {
    const p = /<place xml:id="place-3">[\s\S]*?<\/place>/.exec(xml)?.[0] ?? '';
    expect(p).toContain('<placeName>Zürich</placeName>');
    expect(p).toContain('<placeName type="label" xml:lang="en">Zurich</placeName>');
    expect(p).toMatch(
      /<location>\s*<address>\s*<addrLine>Predigerplatz 33<\/addrLine>\s*<\/address>\s*<settlement>Zürich<\/settlement>\s*<region>ZH<\/region>\s*<country key="CH">CH<\/country>\s*<geo>47.3769 8.5417<\/geo>\s*<\/location>/,
    );
    expect(p).toContain('<idno type="GND">4068038-2</idno>');
    expect(p).toContain('<idno type="GeoNames">2657896</idno>');
    // The TEI content model wants names and location before identifiers and notes.
    expect(p.indexOf('<location>')).toBeLessThan(p.indexOf('<idno'));
  });

  it('writes each address line as an addrLine, coordinates without "+", other coordinates as a note', () => {
    const doc = placesDocument(
      [
        place({ id: 1, name: 'A', address: 'Line 1\r\n\n  Line 2  \rLine 3', location: '+47.5 -0.000001' }),
        place({ id: 2, name: 'B', location: '2600000 1200000' }),
        place({ id: 3, name: 'C', location: '91 0' }),
        place({
          id: 4,
          name: 'D',
          wikipedia: 'https://de.wikipedia.org/wiki/Zürich',
          variants: '["Züri"]',
          abbreviations: '["ZH"]',
        }),
      ],
      AT,
    );
    assertWellFormed(doc);
    expect(doc).toMatch(
      /<address>\s*<addrLine>Line 1<\/addrLine>\s*<addrLine>Line 2<\/addrLine>\s*<addrLine>Line 3<\/addrLine>\s*<\/address>/,
    );
    expect(doc).toContain('<geo>47.5 -0.000001</geo>');
    expect(doc).toMatch(
      /<place xml:id="place-2">[\s\S]*?<location>\s*<note type="coordinates">2600000 1200000<\/note>\s*<\/location>/,
    );
    expect(doc).toMatch(/<place xml:id="place-3">[\s\S]*?<note type="coordinates">91 0<\/note>/);
    expect(doc).toContain('<placeName type="variant">Züri</placeName>');
    expect(doc).toContain('<placeName type="abbreviation">ZH</placeName>');
    expect(doc).toContain('<idno type="Wikipedia">https://de.wikipedia.org/wiki/Zürich</idno>');
  });

  it('escapes names and omits an empty location', () => {
    const p = /<place xml:id="place-4">[\s\S]*?<\/place>/.exec(xml)?.[0] ?? '';
    expect(p).toContain('<placeName>O&apos;Hare &amp; &lt;Co&gt;</placeName>');
    expect(p).not.toContain('<location');
  });
});

describe('keywords document', () => {
  const rows: KeywordRow[] = [
    { id: 5, name: 'Maps & Plans', label: '{"de":"Karten"}', gnd: '4030201-6' },
    { id: 6, name: 'Photographs', label: null, gnd: null },
  ];
  const xml = keywordsDocument(rows, AT);

  it('is a well-formed document with the taxonomy in the header classDecl', () => {
    assertWellFormed(xml);
    expect(xml).toMatch(
      /<teiHeader>[\s\S]*<encodingDesc>\s*<classDecl>\s*<taxonomy xml:id="keywords">[\s\S]*<\/taxonomy>\s*<\/classDecl>\s*<\/encodingDesc>\s*<\/teiHeader>/,
    );
    expect(xml).toMatch(/<\/teiHeader>\s*<text>/);
  });

  it('has one category per keyword with its name, labels and GND link', () => {
    expect(xml).toMatch(
      /<category xml:id="keyword-5" corresp="https:\/\/d-nb.info\/gnd\/4030201-6">\s*<catDesc>Maps &amp; Plans<\/catDesc>\s*<catDesc xml:lang="de">Karten<\/catDesc>\s*<\/category>/,
    );
    expect(xml).toMatch(/<category xml:id="keyword-6">\s*<catDesc>Photographs<\/catDesc>\s*<\/category>/);
  });

  it('is valid with no keywords (a taxonomy with only its description)', () => {
    const empty = keywordsDocument([], AT);
    assertWellFormed(empty);
    expect(empty).toMatch(/<taxonomy xml:id="keywords">\s*<desc>[^<]+<\/desc>\s*<\/taxonomy>/);
  });
});

describe('the ids parameter', () => {
  const fieldsOf = (raw: unknown): Record<string, string> | undefined => {
    try {
      parseIds(raw);
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).kind).toBe('invalid');
      return (err as AppError).fields;
    }
    return undefined;
  };

  it('takes a comma-separated list of positive integers, duplicates once', () => {
    expect(parseIds('1,2,3')).toEqual([1, 2, 3]);
    expect(parseIds(' 7 , 7,8 ')).toEqual([7, 8]);
    expect(parseIds(Array.from({ length: 1000 }, (_, i) => i + 1).join(','))).toHaveLength(1000);
  });

  it('refuses anything else with fields.ids', () => {
    for (const bad of ['', ',', '1,', '0', '-1', '1.5', 'a', '1;2', '01', '99999999999999999', '1e3']) {
      expect(fieldsOf(bad), JSON.stringify(bad)).toHaveProperty('ids');
    }
    expect(fieldsOf(['1', '2'])).toHaveProperty('ids');
    expect(fieldsOf(Array.from({ length: 1001 }, (_, i) => i + 1).join(','))).toHaveProperty('ids');
  });
});
