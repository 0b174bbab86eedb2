// The data extension service of Reconciliation API 1.0-draft: GET /extend/propose?type=… and
// POST /extend (a JSON body), with 0.2's properties and values (../extend.ts); the answer lists
// rows and their properties as arrays, in the order the query asked for them.
import { invalid } from '../../../../errors.js';
import type { Ctx } from '../../../context.js';
import { isPlainObject } from '../../json-values.js';
import type { QueryInput } from '../../list/params.js';
import { extendValues, MAX_EXTEND_DEPTH, metaOf, proposeProperties, readExtendRequest } from '../extend.js';
import type { ReconcileKind } from '../entities.js';
import { nestsDeeperThan } from '../input.js';
import type { v } from '../../../../validation.js';
import type { DRAFT_EXTENSION } from './answers.js';

/** The draft requires `type` (the proposals are for entities of that type); the rest is 0.2's. */
export function proposeDraftProperties(kind: ReconcileKind, query: QueryInput) {
  if (query.type === undefined || query.type === '')
    throw invalid('invalid property proposal request', { type: 'required: the type to propose properties for' });
  return proposeProperties(kind, query);
}

/** A data extension query (`{"ids": […], "properties": [{"id"}, …]}`, the parsed JSON body). */
export async function extendDraft(
  ctx: Ctx,
  kind: ReconcileKind,
  body: unknown,
): Promise<v.InferOutput<typeof DRAFT_EXTENSION>> {
  if (!isPlainObject(body))
    throw invalid('invalid data extension request', { body: 'required: a JSON body {"ids", "properties"}' });
  if (nestsDeeperThan(body, MAX_EXTEND_DEPTH))
    throw invalid('invalid data extension request', { body: `must not nest deeper than ${MAX_EXTEND_DEPTH} levels` });
  const request = readExtendRequest(kind, body);
  const values = await extendValues(ctx, kind, request);
  return {
    meta: metaOf(request),
    rows: [...values].map(([id, byProperty]) => ({
      id,
      properties: [...byProperty].map(([property, list]) => ({ id: property, values: list })),
    })),
  };
}
