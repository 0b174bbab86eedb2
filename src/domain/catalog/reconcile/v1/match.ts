// Reconciliation API 1.0-draft's match service (POST /match): a batch read into 0.2's queries and answered in
// order; one off the draft's schema is refused whole with a 422 (docs/archive-tools.md).
import { invalid } from '../../../../errors.js';
import type { Ctx } from '../../../context.js';
import { isPlainObject } from '../../json-values.js';
import {
  DEFAULT_LIMIT,
  MAX_ID_TEXT,
  withinIdText,
  MAX_PROPERTIES,
  MAX_QUERY_LENGTH,
  propertyValues,
  type ReconcileQuery,
} from '../batch.js';
import { propertyOf, type ReconcileKind } from '../entities.js';
import { BatchTooLarge, cleanText, MAX_ASKED_LIMIT, MAX_LIMIT, MAX_QUERIES, nestsDeeperThan } from '../input.js';
import { candidatesFor } from '../service.js';
import type { v } from '../../../../validation.js';
import type { DRAFT_RESULTS } from './answers.js';

/** body → queries → query → conditions → condition → values → value: 7; a little room, no more. */
const MAX_DEPTH = 9;
/** A query's conditions: its properties, and one name and one id condition. */
const MAX_CONDITIONS = MAX_PROPERTIES + 2;
/** Problems named in one 422 (a batch of 50 bad queries need not list 500). */
const MAX_PROBLEMS = 20;
const QUERY_FIELDS = new Set(['conditions', 'type', 'limit', 'lang', 'dir']);
const DIRECTIONS = ['ltr', 'rtl', 'auto'];

type Problems = Record<string, string>;

/** A type id or name, property id or qualifier: 1 to MAX_ID_TEXT characters. */
const idText = (x: unknown): x is string => typeof x === 'string' && x !== '' && withinIdText(x);

/** `lang` and `dir`, where an object may have them: the draft's types, else a problem each. */
function checkText(o: Record<string, unknown>, at: string, problems: Problems): void {
  if (o.lang !== undefined && (typeof o.lang !== 'string' || o.lang.length > 64))
    problems[`${at}.lang`] = 'must be a language tag';
  if (o.dir !== undefined && !DIRECTIONS.includes(o.dir as string))
    problems[`${at}.dir`] = 'must be "ltr", "rtl" or "auto"';
}

type Conditions = Pick<ReconcileQuery, 'ids' | 'properties'> & { name?: string };

/** One condition, added to `into`; its problems, if any, to `problems`. */
function readCondition(kind: ReconcileKind, c: unknown, at: string, into: Conditions, problems: Problems): void {
  if (!isPlainObject(c)) {
    problems[at] = 'must be an object with "matchType" and "propertyValue"';
    return;
  }
  checkText(c, at, problems);
  if (c.required !== undefined && typeof c.required !== 'boolean') problems[`${at}.required`] = 'must be true or false';
  if (c.matchQuantifier !== undefined && c.matchQuantifier !== 'any')
    problems[`${at}.matchQuantifier`] = 'only "any" is supported: a candidate matches one of the values';
  if (c.matchQualifier !== undefined && (typeof c.matchQualifier !== 'string' || !withinIdText(c.matchQualifier)))
    problems[`${at}.matchQualifier`] = `must be a string of at most ${MAX_ID_TEXT} characters`;
  if (c.propertyId !== undefined && !idText(c.propertyId))
    problems[`${at}.propertyId`] = `must be a property id (1 to ${MAX_ID_TEXT} characters)`;
  if (!('propertyValue' in c)) problems[`${at}.propertyValue`] = 'required';
  switch (c.matchType) {
    case 'name': {
      if (typeof c.propertyValue !== 'string') {
        if ('propertyValue' in c) problems[`${at}.propertyValue`] = 'must be one string: the name';
        return;
      }
      const name = cleanText(c.propertyValue, MAX_QUERY_LENGTH);
      if (!name.ok) problems[`${at}.propertyValue`] = name.message;
      else if (into.name !== undefined) problems[at] = 'a query has at most one name condition';
      else into.name = name.text;
      return;
    }
    case 'id': {
      const ids = propertyValues('id', c.propertyValue);
      if (typeof ids === 'string') problems[`${at}.propertyValue`] = ids;
      else if (into.ids !== undefined) problems[at] = 'a query has at most one id condition';
      else into.ids = ids;
      return;
    }
    case 'property': {
      const pid = c.propertyId;
      if (!idText(pid)) {
        problems[`${at}.propertyId`] ??= 'required for matchType "property": a property id';
        return;
      }
      const values = propertyValues(pid, c.propertyValue);
      if (typeof values === 'string') problems[`${at}.propertyValue`] = values;
      else if (propertyOf(kind, pid)?.match) into.properties.push({ pid, values });
      return;
    }
    default:
      problems[`${at}.matchType`] = 'required: "name", "id" or "property"';
  }
}

/** One query of the batch (its key: its position); its problems go to `problems`. */
function readQuery(kind: ReconcileKind, q: unknown, i: number, problems: Problems): ReconcileQuery | null {
  const at = `queries.${i}`;
  if (!isPlainObject(q)) {
    problems[at] = 'must be an object with "conditions"';
    return null;
  }
  for (const key of Object.keys(q))
    if (!QUERY_FIELDS.has(key))
      problems[`${at}.${key}`] = 'unknown field (a query has conditions, type, limit, lang, dir)';
  checkText(q, at, problems);
  let types: string[] | null = null;
  if (q.type !== undefined) {
    if (typeof q.type !== 'string' || !withinIdText(q.type))
      problems[`${at}.type`] = `must be one type id (at most ${MAX_ID_TEXT} characters)`;
    else if (q.type !== '') types = [q.type];
  }
  let limit = DEFAULT_LIMIT;
  if (q.limit !== undefined) {
    if (typeof q.limit !== 'number' || !Number.isInteger(q.limit) || q.limit < 1 || q.limit > MAX_ASKED_LIMIT)
      problems[`${at}.limit`] = `must be an integer from 1 to ${MAX_ASKED_LIMIT}`;
    else limit = Math.min(q.limit, MAX_LIMIT);
  }
  const conditions: Conditions = { properties: [] };
  if (!Array.isArray(q.conditions) || q.conditions.length === 0) {
    problems[`${at}.conditions`] = 'required: an array of at least one condition';
  } else if (q.conditions.length > MAX_CONDITIONS) {
    problems[`${at}.conditions`] = `at most ${MAX_CONDITIONS} conditions`;
  } else {
    for (const [j, c] of q.conditions.entries()) readCondition(kind, c, `${at}.conditions.${j}`, conditions, problems);
  }
  const { name = '', ...idsAndProperties } = conditions;
  return { key: String(i), query: name, limit, types, ...idsAndProperties };
}

/** The queries of a batch (the parsed JSON body), in order; any problem is a 422 naming each. */
export function readDraftBatch(kind: ReconcileKind, body: unknown): ReconcileQuery[] {
  if (!isPlainObject(body) || !Array.isArray(body.queries))
    throw invalid('invalid reconciliation query batch', { queries: 'required: a JSON body {"queries": [query, …]}' });
  if (body.queries.length > MAX_QUERIES) throw new BatchTooLarge('queries', body.queries.length, MAX_QUERIES);
  if (nestsDeeperThan(body, MAX_DEPTH))
    throw invalid('invalid reconciliation query batch', { queries: `must not nest deeper than ${MAX_DEPTH} levels` });
  const problems: Problems = {};
  const queries: ReconcileQuery[] = [];
  for (const [i, q] of body.queries.entries()) {
    const query = readQuery(kind, q, i, problems);
    if (query) queries.push(query);
    if (Object.keys(problems).length >= MAX_PROBLEMS) break;
  }
  if (Object.keys(problems).length > 0) {
    const named = Object.fromEntries(Object.entries(problems).slice(0, MAX_PROBLEMS));
    throw invalid('invalid reconciliation query batch', named);
  }
  return queries;
}

type DraftResults = v.InferOutput<typeof DRAFT_RESULTS>;

export async function matchDraft(ctx: Ctx, kind: ReconcileKind, body: unknown): Promise<DraftResults> {
  const results: DraftResults['results'] = [];
  for (const q of readDraftBatch(kind, body)) results.push({ candidates: await candidatesFor(ctx, kind, q) });
  return { results };
}
