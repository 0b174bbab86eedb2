// `archivectl catalog load <file.json>` (SPEC §6): actors, places, keywords and objects for setup,
// demos and tests, checked first as the API's create endpoints check them, then written in one
// transaction, so a bad file loads nothing. Actors and places go in multi-row INSERTs
// (insertRecords): a million load in 2,000 statements, not in a million round trips.
import { refreshStatistics } from '../../db/statistics.js';
import { writeTransaction } from '../../db/write-transaction.js';
import { conflict, invalid } from '../../errors.js';
import type { Ctx } from '../context.js';
import { check, shownFieldName, v } from '../../validation.js';
import { checkActorCreate, type ActorInput } from './actors.js';
import { isPlainObject, prefixErrors } from './fields.js';
import { checkKeywordCreate, ensureKeyword, type KeywordInput } from './keywords.js';
import { checkObjectCreate, createObject, type NewObject } from './objects.js';
import { checkPlaceCreate, type PlaceInput } from './places.js';
import type { Read } from './record-schema.js';
import { insertRecords } from './records.js';
import { ACTOR, KEYWORD, OBJECT, PLACE } from './resources/index.js';

const SECTIONS = ['actors', 'places', 'keywords', 'objects'] as const;
type Section = (typeof SECTIONS)[number];

/** Rows written per section; of keywords only those created (ensureKeyword reuses existing ones). */
export type LoadCounts = Record<Section, number>;

interface Checked {
  actors: ActorInput[];
  places: PlaceInput[];
  keywords: KeywordInput[];
  objects: NewObject[];
}

const SECTION = v.nullish(v.array(v.unknown()), []);

/** How many problems the error message spells out; `fields` carries them all (up to a bound). */
const SHOWN = 3;
const MAX_REPORTED = 100;

function fail(errors: Record<string, string>): never {
  const entries = Object.entries(errors);
  const shown = entries.slice(0, SHOWN).map(([k, v]) => `${k}: ${v}`);
  const more = entries.length > SHOWN ? ` (and ${entries.length - SHOWN} more)` : '';
  throw invalid(`${shown.join('; ')}${more}; nothing was loaded`, Object.fromEntries(entries.slice(0, MAX_REPORTED)));
}

/** Checks the whole file; every problem is named by its place, e.g. `actors[3].name: required`. */
export function checkCatalog(data: unknown): Checked {
  if (!isPlainObject(data)) fail({ file: `must be a JSON object with arrays ${SECTIONS.join(', ')}` });
  // Null prototype: a section named "__proto__" is reported like any other unknown key.
  const errors = Object.create(null) as Record<string, string>;
  for (const key of Object.keys(data)) {
    if (!(SECTIONS as readonly string[]).includes(key)) errors[shownFieldName(key)] = 'unknown section';
  }
  const out: Checked = { actors: [], places: [], keywords: [], objects: [] };
  const section = (name: Section): unknown[] => {
    const r = check(SECTION, data[name]);
    if (r.ok) return r.value;
    errors[name] = 'must be an array';
    return [];
  };
  /** Each entry through `read`: its values to `use`, its problems named by its place. */
  const each = <T>(name: Section, read: (entry: unknown) => Read<T>, use: (values: T, i: number) => void) =>
    section(name).forEach((entry, i) => {
      const r = read(entry);
      if (r.ok) use(r.values, i);
      else Object.assign(errors, prefixErrors(`${name}[${i}]`, r.errors));
    });
  each('actors', checkActorCreate, (a) => out.actors.push(a));
  each('places', checkPlaceCreate, (p) => out.places.push(p));
  section('keywords').forEach((entry, i) => {
    if (typeof entry !== 'string' && !isPlainObject(entry)) {
      errors[`keywords[${i}]`] = 'must be a name or an object with name, label, gnd';
      return;
    }
    const r = checkKeywordCreate(entry);
    if (r.ok) out.keywords.push(r.values);
    else Object.assign(errors, prefixErrors(`keywords[${i}]`, r.errors));
  });
  const identifiers = new Map<string, number>();
  each('objects', checkObjectCreate, (o, i) => {
    const first = identifiers.get(o.identifier);
    if (first !== undefined) errors[`objects[${i}].identifier`] = `"${o.identifier}" is also objects[${first}]`;
    else identifiers.set(o.identifier, i);
    out.objects.push(o);
  });
  if (Object.keys(errors).length > 0) fail(errors);
  return out;
}

export async function loadCatalog(ctx: Ctx, data: unknown): Promise<LoadCounts> {
  const checked = checkCatalog(data);
  const at = ctx.clock.now();
  const counts = await writeTransaction(ctx.db, async (trx) => {
    // Identifiers taken already: refused naming the entry (a better message than the rollback's).
    const taken = new Set<string>();
    const ids = checked.objects.map((o) => o.identifier);
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await trx('objects')
        .whereIn('identifier', ids.slice(i, i + 500))
        .select<{ identifier: string }[]>('identifier');
      for (const r of rows) taken.add(r.identifier);
    }
    const i = checked.objects.findIndex((o) => taken.has(o.identifier));
    const clash = checked.objects[i];
    if (clash) {
      const more = taken.size > 1 ? ` (and ${taken.size - 1} more)` : '';
      throw conflict(`objects[${i}].identifier: "${clash.identifier}" already exists${more}; nothing was loaded`);
    }

    const counts: LoadCounts = { actors: 0, places: 0, keywords: 0, objects: 0 };
    counts.actors = await insertRecords(trx, ACTOR, checked.actors, at);
    counts.places = await insertRecords(trx, PLACE, checked.places, at);
    // Keywords named only by objects are created too, and counted.
    const named = checked.objects.flatMap((o) => (o.keywords ?? []).map((name) => ({ name })));
    for (const k of [...checked.keywords, ...named]) {
      if ((await ensureKeyword(trx, k, at)).created) counts.keywords++;
    }
    for (const o of checked.objects) await createObject(trx, o, at);
    counts.objects = checked.objects.length;
    return counts;
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
