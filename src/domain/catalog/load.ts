// `archivectl catalog load <file.json>` (docs/cli.md): actors, places, keywords and objects for setup,
// demos and tests, each entry checked as the API's create endpoints check it, all written in one
// transaction, so a bad file loads nothing. The file is read as a stream, one entry at a time
// (json-sections.ts): a million actors take the memory of a few hundred. Actors and places go in
// multi-row INSERTs (insertRecords): a million load in 2,000 statements, not a million round trips.
//
// What is already there is skipped, so loading a file again changes nothing:
// - an actor whose name (letter case aside), type, dates, GND and SIKART ids are those of an actor
//   in the catalogue, or of an earlier entry of the file;
// - a place whose name (letter case aside), city, country code, GND and GeoNames ids are those of
//   a place in the catalogue or earlier in the file;
// - a keyword whose name (letter case aside) is taken; an object whose identifier is taken.
// An object identifier twice in the file is refused: the file contradicts itself.
import type { Knex } from 'knex';
import { refreshStatistics } from '../../db/statistics.js';
import { writeTransaction } from '../../db/write-transaction.js';
import { invalid } from '../../errors.js';
import type { JsonSectionEvent } from '../../json-sections.js';
import type { Ctx } from '../context.js';
import { shownFieldName } from '../../validation.js';
import { checkActorCreate } from './actors.js';
import { isPlainObject, prefixErrors } from './fields.js';
import { checkKeywordCreate, ensureKeyword } from './keywords.js';
import { checkObjectCreate, createObject } from './objects.js';
import { checkPlaceCreate } from './places.js';
import type { Read } from './record-schema.js';
import { writtenSetFor, type WrittenSet } from './load-seen.js';
import { INSERT_BATCH, insertRecords, type Stored } from './records.js';
import { ACTOR, KEYWORD, OBJECT, PLACE } from './resources/index.js';

export const SECTIONS = ['actors', 'places', 'keywords', 'objects'] as const;
type Section = (typeof SECTIONS)[number];

/** Entries written per section (keywords: created), and those skipped as already there. */
export type LoadCounts = Record<Section, number> & { skipped: Record<Section, number> };

/** How many problems the error message spells out; `fields` carries them all (up to a bound). */
const SHOWN = 3;
const MAX_REPORTED = 100;

type Values = Record<string, unknown>;

/** A record kind loaded in batches, and what makes two of its records the same. */
interface Batched {
  t: Stored<unknown>;
  check: (entry: unknown) => Read<Values>;
  /** Columns that identify a record, name_lower first; `defaults` as the insert applies them. */
  identity: readonly string[];
  defaults: Values;
}

const BATCHED: Partial<Record<Section, Batched>> = {
  actors: {
    t: ACTOR,
    check: checkActorCreate,
    identity: ['name_lower', 'type', 'date_start', 'date_end', 'gnd', 'sikart'],
    defaults: { ...ACTOR.insertDefaults },
  },
  places: {
    t: PLACE,
    check: checkPlaceCreate,
    identity: ['name_lower', 'city', 'country_code', 'gnd', 'geonames'],
    defaults: {},
  },
};

/** A record's identity as one string: its identifying columns, each null told from any text. */
function keyOf(identity: readonly string[], value: (column: string) => unknown): string {
  let key = '';
  for (const column of identity) {
    const v = value(column);
    key += v === null || v === undefined ? '\u0000-' : `\u0000=${typeof v === 'string' ? v : JSON.stringify(v)}`;
  }
  return key;
}

/** The entry's identity as its row will hold it (the lower-cased name, the insert's defaults). */
function entryKey(kind: Batched, values: Values): string {
  return keyOf(kind.identity, (column) =>
    column === 'name_lower' ? String(values.name).toLowerCase() : (values[column] ?? kind.defaults[column]),
  );
}

/**
 * Writes a batch of checked entries, less those already in the catalogue (one query by their
 * names, on the name index) and those repeated within the batch; returns how many were written.
 * With `written` (load-seen.ts) only the entries it may have seen are looked up.
 */
async function writeBatch(
  trx: Knex,
  kind: Batched,
  batch: Values[],
  at: Date,
  written: WrittenSet | null,
): Promise<number> {
  const keys = batch.map((values) => entryKey(kind, values));
  const asked = written ? batch.filter((_, i) => written.mayHave(keys[i] as string)) : batch;
  const names = [...new Set(asked.map((values) => String(values.name).toLowerCase()))];
  const rows =
    names.length === 0
      ? []
      : await trx(kind.t.table)
          .whereIn('name_lower', names)
          .select<Values[]>(...kind.identity);
  const there = new Set(rows.map((row) => keyOf(kind.identity, (column) => row[column])));
  const fresh = batch.filter((_, i) => {
    const key = keys[i] as string;
    if (there.has(key)) return false;
    there.add(key);
    written?.add(key);
    return true;
  });
  return insertRecords(trx, kind.t, fresh, at);
}

/**
 * Loads the entries of a catalogue file (jsonSections' events) in one write transaction. Every
 * entry is checked; after the first bad one nothing more is written, the rest is still checked
 * (so one run names the problems of the whole file), and the transaction is rolled back.
 */
export async function loadCatalog(ctx: Ctx, events: AsyncIterable<JsonSectionEvent[]>): Promise<LoadCounts> {
  const at = ctx.clock.now();
  const counts: LoadCounts = {
    actors: 0,
    places: 0,
    keywords: 0,
    objects: 0,
    skipped: { actors: 0, places: 0, keywords: 0, objects: 0 },
  };
  // Null prototype: a section named "__proto__" is reported like any other unknown key. Problems
  // of whole sections are named first, then those of entries, in the file's order.
  const sectionErrors = Object.create(null) as Record<string, string>;
  const errors = Object.create(null) as Record<string, string>;
  let problems = 0;
  const problem = (place: string, message: string, of = errors) => {
    problems++;
    if (problems <= MAX_REPORTED) of[place] = message;
  };

  await writeTransaction(ctx.db, async (trx) => {
    const batches: Partial<Record<Section, { values: Values[] }>> = {};
    /** Per section, decided at its first write: what the load wrote, when it alone writes the table. */
    const writtenSets: Partial<Record<Section, WrittenSet | null>> = {};
    /** Writes a section's pending batch (the entries it held less those written count as skipped). */
    const flush = async (section: Section) => {
      const kind = BATCHED[section];
      const pending = batches[section];
      if (!kind || !pending || pending.values.length === 0) return;
      let written = 0;
      if (problems === 0) {
        if (!(section in writtenSets)) writtenSets[section] = await writtenSetFor(trx, kind.t.table);
        written = await writeBatch(trx, kind, pending.values, at, writtenSets[section] ?? null);
      }
      counts[section] += written;
      counts.skipped[section] += pending.values.length - written;
      pending.values = [];
    };
    /** Object identifiers of this file, to refuse one given twice. */
    const identifiers = new Map<string, number>();

    for await (const batch of events)
      for (const event of batch) {
        if (event.type === 'section') {
          if (!(SECTIONS as readonly string[]).includes(event.name))
            problem(shownFieldName(event.name), 'unknown section', sectionErrors);
          else if (event.holds === 'other') problem(event.name, 'must be an array', sectionErrors);
          continue;
        }
        const section = event.section as Section;
        if (!(SECTIONS as readonly string[]).includes(section)) continue; // reported as unknown
        const place = `${section}[${event.index}]`;
        const kind = BATCHED[section];
        if (kind) {
          const r = kind.check(event.value);
          if (!r.ok) {
            for (const [k, m] of Object.entries(prefixErrors(place, r.errors))) problem(k, m);
            continue;
          }
          const pending = (batches[section] ??= { values: [] });
          pending.values.push(r.values);
          if (pending.values.length >= INSERT_BATCH) await flush(section);
        } else if (section === 'keywords') {
          const entry = event.value;
          if (typeof entry !== 'string' && !isPlainObject(entry)) {
            problem(place, 'must be a name or an object with name, label, gnd');
            continue;
          }
          const r = checkKeywordCreate(entry);
          if (!r.ok) for (const [k, m] of Object.entries(prefixErrors(place, r.errors))) problem(k, m);
          else if (problems === 0) {
            if ((await ensureKeyword(trx, r.values, at)).created) counts.keywords++;
            else counts.skipped.keywords++;
          }
        } else {
          const r = checkObjectCreate(event.value);
          if (!r.ok) {
            for (const [k, m] of Object.entries(prefixErrors(place, r.errors))) problem(k, m);
            continue;
          }
          const o = r.values;
          const first = identifiers.get(o.identifier);
          if (first !== undefined) {
            problem(`${place}.identifier`, `"${o.identifier}" is also objects[${first}]`);
            continue;
          }
          identifiers.set(o.identifier, event.index);
          if (problems > 0) continue;
          if (await trx(OBJECT.table).where('identifier', o.identifier).first('id')) {
            counts.skipped.objects++;
            continue;
          }
          // Keywords named only by objects are created too, and counted.
          for (const name of o.keywords ?? []) if ((await ensureKeyword(trx, { name }, at)).created) counts.keywords++;
          await createObject(trx, o, at);
          counts.objects++;
        }
      }
    for (const section of SECTIONS) await flush(section);
    if (problems > 0) fail({ ...sectionErrors, ...errors }, problems);
  });
  // The loaded tables, described to the planner as they now are (db/statistics.ts).
  const loaded = [
    ...(counts.actors > 0 ? [ACTOR.table] : []),
    ...(counts.places > 0 ? [PLACE.table] : []),
    ...(counts.keywords > 0 ? [KEYWORD.table] : []),
    ...(counts.objects > 0 ? [OBJECT.table, 'object_keywords'] : []),
  ];
  await refreshStatistics(ctx.db, loaded);
  return counts;
}

function fail(errors: Record<string, string>, problems: number): never {
  const entries = Object.entries(errors);
  const shown = entries.slice(0, SHOWN).map(([k, v]) => `${k}: ${v}`);
  const more = problems > SHOWN ? ` (and ${problems - SHOWN} more)` : '';
  throw invalid(`${shown.join('; ')}${more}; nothing was loaded`, errors);
}

/** The refusal of a file that is not a JSON object. */
export const notAnObject = () => fail({ file: `must be a JSON object with arrays ${SECTIONS.join(', ')}` }, 1);
