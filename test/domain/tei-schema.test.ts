// The TEI mapping against the TEI P5 schema (tei_all.rng, with jing), for stored values the API
// does not produce today but a database may hold: rows written by older versions or by hand
// (free-text and malformed dates, damaged JSON, characters XML 1.0 forbids, lone surrogates,
// coordinates in other systems), Anton's extra fields, and empty catalogues. What the API itself
// accepts is validated through a running daemon in test/clients/tei-p5.test.ts.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  actorsDocument,
  keywordsDocument,
  placesDocument,
  type ActorRow,
  type PlaceRow,
} from '../../src/domain/catalog/tei/document.js';
import { ACTOR_TYPES } from '../helpers/catalog.js';
import { actor, jing, place, SKIP } from '../helpers/tei.js';

const AT = '2026-11-22T10:00:00.000Z';
const ODD = 'x\u0000\u0001\u0008\u000B\u001F\uFFFE\uFFFF\uD800\uDFFF \uD800 lone \uDC00 \u0085\u009B & < > " \' ]]> 😀';

const TYPES = [...ACTOR_TYPES, 'unknown_legacy_type', 'corporate body', '', ' \u0085 '];
const DATES: [string | null, string | null][] = [
  ['ca. 1900', '1950'],
  ['1900', 'after 1950'],
  ['0000', 'unknown'],
  ['1900-02-30', '1900-13'],
  ['-0044', '0014'],
  ['', '   '],
  [ODD, ODD],
];

function documents(): Record<string, string> {
  let id = 0;
  const actors: ActorRow[] = [];
  for (const type of TYPES) {
    for (const [date_start, date_end] of DATES) {
      actors.push(
        actor({
          id: ++id,
          type,
          name: `${type} ${ODD}`,
          label: JSON.stringify({ de: ODD, 'not a tag': 'x', en: '', fr: 3, 'x-private': 'ok' }),
          alternative_names: JSON.stringify([ODD, '', 7, null]),
          variants: JSON.stringify([ODD]),
          abbreviations: '{"damaged": ',
          date_start,
          date_end,
          comment: ODD,
          gnd: ODD,
          sikart: '4000055',
        }),
      );
    }
  }
  actors.push(actor({ id: id + 1, type: 'person', name: '\uFFFE' })); // a name that is nothing XML can carry
  const places: PlaceRow[] = [
    place({
      id: 1,
      name: ODD,
      label: 'not json',
      address: `${ODD}\n\n${ODD}`,
      city: ODD,
      state: ODD,
      country_code: 'ch',
      location: ODD,
      gnd: ODD,
      geonames: ODD,
      comment: ODD,
    }),
    place({
      id: 2,
      name: 'Swiss coordinates',
      location: '2600000 1200000',
      wikipedia: 'https://de.wikipedia.org/wiki/Zürich',
    }),
    place({ id: 3, name: 'Out of range', location: '91 181' }),
    place({ id: 4, name: 'Signs', location: '+1.5, -2.5', country_code: '  ', address: '\n\n' }),
  ];
  const keywords = [
    { id: 1, name: ODD, label: JSON.stringify({ de: ODD, 'de-CH': 'x' }), gnd: ODD },
    { id: 2, name: '\uFFFF', label: '[]', gnd: null },
  ];
  return {
    'legacy-actors': actorsDocument(actors, AT),
    'legacy-places': placesDocument(places, AT),
    'legacy-keywords': keywordsDocument(keywords, AT),
    'empty-actors': actorsDocument([], null),
    'empty-places': placesDocument([], null),
    'empty-keywords': keywordsDocument([], null),
    'only-orgs': actorsDocument([actor({ id: 1, type: 'group', name: 'G', date_start: '0000' })], AT),
  };
}

describe('the TEI mapping against tei_all.rng', () => {
  it.skipIf(SKIP !== null)(
    `is valid TEI P5 for legacy, damaged and empty data (jing)${SKIP ? ` — skipped: ${SKIP}` : ''}`,
    async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'tei-schema-'));
      try {
        const files: string[] = [];
        for (const [name, document] of Object.entries(documents())) {
          const file = path.join(dir, `${name}.xml`);
          await writeFile(file, document, 'utf8');
          files.push(file);
        }
        const errors = await jing(files);
        expect(errors, errors.split('\n').slice(0, 30).join('\n')).toBe('');
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});
