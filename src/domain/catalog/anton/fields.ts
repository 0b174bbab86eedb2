// What Anton's published clients read (issue 9; the `anton-vs` and `anton-oxy` editor plugins):
// `full_id` on every actor, place and keyword (written into TEI `@ref` attributes), and more
// fields derived from ours, never stored, and ignored when a client sends them back (like `id`).
import type { Actor, Keyword, Place } from '../resources/index.js';
import { invalid } from '../../../errors.js';
import { optionalParam, shortText, type QueryInput } from '../list/params.js';
import { parseInput, v } from '../../../validation.js';

export type Register = 'actors' | 'places' | 'keywords';

/** Anton's `full_id`. The slug has no `-` (config: `[a-z0-9][a-z0-9_]{0,31}`), so clients can split it. */
export function fullId(slug: string, register: Register, id: number): string {
  return `${slug}-${register}-${id}`;
}

/**
 * Anton's authority types in its documented enum's order, numbered from 1: the fixed `type_id`s this API takes
 * (Anton's own differ between installations). The `authority_type` filter also takes the labels.
 */
export const AUTHORITY_TYPES = [
  { code: 'person', id: 1, labels: ['Person', 'Personne'] },
  { code: 'family', id: 2, labels: ['Family', 'Familie', 'Famille'] },
  { code: 'corporate_body', id: 3, labels: ['Corporate body', 'Körperschaft', 'Collectivité'] },
  {
    code: 'organisational_unit',
    id: 4,
    labels: ['Organisational unit', 'Organizational unit', 'Organisationseinheit', 'Unité organisationnelle'],
  },
  { code: 'group', id: 5, labels: ['Group', 'Gruppe', 'Groupe'] },
  { code: 'software', id: 6, labels: ['Software', 'Logiciel'] },
] as const;

export type AuthorityCode = (typeof AUTHORITY_TYPES)[number]['code'];

/** The `type_id` table as text, for messages: `1 (person), 2 (family), …`. */
export const TYPE_ID_TEXT = AUTHORITY_TYPES.map((t) => `${t.id} (${t.code})`).join(', ');

/** The actor type of a `type_id` (a JSON integer, or digits in a form), or undefined. */
export function typeOfTypeId(v: unknown): AuthorityCode | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^[0-9]{1,2}$/.test(v.trim()) ? Number(v) : NaN;
  return AUTHORITY_TYPES.find((t) => t.id === n)?.code;
}

const fold = (s: string) => s.normalize('NFC').trim().toLowerCase();

/** An authority type given by its code, its `type_id` or one of its labels. */
export function authorityTypeOf(raw: string): AuthorityCode | undefined {
  const s = fold(raw);
  return (
    typeOfTypeId(s) ??
    AUTHORITY_TYPES.find((t) => t.code === s || t.code.replace(/_/g, ' ') === s || t.labels.some((l) => fold(l) === s))
      ?.code
  );
}

/** Built once: every GET /api/actors reads it (a schema built per request costs, see list.ts). */
export const AUTHORITY_TYPE_PARAM = v.object({ authority_type: optionalParam(shortText()) });

/** `?authority_type=` of GET /api/actors: null when absent; an unknown value is a 422, not ignored. */
export function parseAuthorityTypeFilter(query: QueryInput): AuthorityCode | null {
  const raw = parseInput(AUTHORITY_TYPE_PARAM, query, (e) => invalid('invalid list parameters', e)).authority_type;
  if (raw === undefined) return null;
  const code = authorityTypeOf(raw);
  if (code === undefined)
    throw invalid('invalid list parameters', {
      authority_type: `must be one of ${AUTHORITY_TYPES.map((t) => t.code).join(', ')} (or its label, or its type_id ${TYPE_ID_TEXT})`,
    });
  return code;
}

let regionNames: Intl.DisplayNames | undefined;

/** The English name of an ISO 3166-1 alpha-2 code (Node's ICU data), the code itself when unknown. */
export function countryName(code: string | null): string | null {
  if (code === null) return null;
  regionNames ??= new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });
  try {
    return regionNames.of(code) ?? code;
  } catch {
    return code;
  }
}

export type AntonActor = Actor & { full_id: string; fullname: string; authority_type: string };
export type AntonPlace = Place & { full_id: string; country: string | null };
export type AntonKeyword = Keyword & { full_id: string };

/**
 * Records as the API answers them: ours, then Anton's fields, added to the record given (a fresh
 * one from the catalogue, never shared) rather than to a copy, which the list path pays for on
 * every record (bench/RESULTS.md, "Anton's fields without a spread").
 */
export function antonActor(a: Actor, slug: string): AntonActor {
  return Object.assign(a, { full_id: fullId(slug, 'actors', a.id), fullname: a.name, authority_type: a.type });
}

export function antonPlace(p: Place, slug: string): AntonPlace {
  return Object.assign(p, { full_id: fullId(slug, 'places', p.id), country: countryName(p.country_code) });
}

export function antonKeyword(k: Keyword, slug: string): AntonKeyword {
  return Object.assign(k, { full_id: fullId(slug, 'keywords', k.id) });
}
