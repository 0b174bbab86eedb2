// Scopes narrow a token's rights to part of its account's; a token without scopes (`*`) keeps them all.
// Stored in `tokens.scopes` as comma-separated text in SCOPES order (NULL: every right).

export const SCOPES = ['read', 'catalog:write', 'sips', 'ingest', 'ai-usage', 'tei:refresh'] as const;
export type Scope = (typeof SCOPES)[number];

/** Every right of the account: no scopes given (`tokens.scopes` NULL), shown as `["*"]`. */
export const EVERY_SCOPE = '*';

/** What each scope allows, for --help, the docs and `archivectl routes`. */
export const SCOPE_TEXT: Record<Scope, string> = {
  read: 'every read the account may make: GET/HEAD, TEI without ids, reconciliation queries, GET /api/token',
  'catalog:write': 'create and change catalogue records (actors, places)',
  sips: 'submit SIPs (POST /api/sips/import)',
  ingest: 'the ingest callbacks (POST /api/ingest/confirm|failed/{id})',
  'ai-usage': 'record AI-cataloguing usage (POST /api/ai-cataloging/usage)',
  'tei:refresh': 'regenerate TEI exports (GET /api/tei/refresh, the ids parameter)',
};

const isScope = (text: string): text is Scope => (SCOPES as readonly string[]).includes(text);

/** A list as an admin writes it (`read,ai-usage`; `*` alone for every right), or what is wrong with it. */
export function parseScopes(text: string): { scopes: Scope[] | null } | { problem: string } {
  const items = text.split(',').map((s) => s.trim());
  if (items.length === 1 && items[0] === EVERY_SCOPE) return { scopes: null };
  const unknown = items.filter((s) => !isScope(s));
  if (unknown.length > 0) {
    const named = unknown.map((s) => (s === '' ? 'an empty item' : `"${s}"`)).join(', ');
    return { problem: `${named} ${unknown.length === 1 ? 'is no scope' : 'are no scopes'}` };
  }
  // One canonical order, whatever the order given: the stored text and every listing agree.
  return { scopes: SCOPES.filter((s) => items.includes(s)) };
}

/** The column's text (null: every right). */
export const scopesColumn = (scopes: readonly Scope[] | null): string | null =>
  scopes === null ? null : scopes.join(',');

/**
 * The column read back. A name this release does not know (written by a later one) grants
 * nothing here: the token keeps only the scopes this release can check.
 */
export function storedScopes(column: string | null): readonly Scope[] | null {
  if (column === null) return null;
  return column.split(',').filter(isScope);
}

/** As listings and GET /api/token show them: `["*"]` for every right of the account. */
export const shownScopes = (scopes: readonly Scope[] | null): string[] =>
  scopes === null ? [EVERY_SCOPE] : [...scopes];
