// The access matrix of SPEC §4.3, as data. The HTTP middleware enforces it and
// `archivectl routes` prints it; nobody has to read route files to learn who may do what.
import { atLeast, type Role } from './roles.js';
import type { Settings } from './settings.js';

/** Who may call a route; RULE_TEXT says it in words. */
export type Rule = 'open' | 'token_or_public_api' | 'authority' | 'editor' | 'token';

export type Method = 'GET' | 'POST' | 'PUT';

export interface RouteSpec {
  method: Method;
  /** Path in the router's syntax (`:id`); shown as `{id}`. */
  path: string;
  rule: Rule;
  /** The rule when the query carries `ids` (TEI regeneration). */
  ruleWithIds?: Rule;
  /**
   * Answers browsers from any origin (CORS, and the preflight before the rule): the reconciliation
   * services OpenRefine calls from its web page. The rule still decides who gets an answer.
   */
  crossOrigin?: true;
}

const authority = (method: Method, path: string): RouteSpec => ({ method, path, rule: 'authority' });
const editor = (method: Method, path: string): RouteSpec => ({ method, path, rule: 'editor' });
const reconciliation = (method: Method, path: string): RouteSpec => ({ ...authority(method, path), crossOrigin: true });

/**
 * A register's reconciliation service (W3C Reconciliation API 0.2, and 1.0-draft under its own
 * root), under the register's authority rule: its POSTs of queries only read (hence authority,
 * not editor), and are open only while public_access is on (public_api opens GET and HEAD).
 */
const reconciliationService = (kind: 'actors' | 'places' | 'keywords'): RouteSpec[] => [
  reconciliation('GET', `/api/${kind}/reconcile`),
  reconciliation('POST', `/api/${kind}/reconcile`),
  reconciliation('GET', `/api/${kind}/reconcile/suggest/entity`),
  reconciliation('GET', `/api/${kind}/reconcile/suggest/property`),
  reconciliation('GET', `/api/${kind}/reconcile/suggest/type`),
  reconciliation('GET', `/api/${kind}/reconcile/properties`),
  reconciliation('GET', `/api/${kind}/reconcile/preview/:id`),
  reconciliation('GET', `/api/${kind}/reconcile/1.0-draft`),
  reconciliation('POST', `/api/${kind}/reconcile/1.0-draft/match`),
  reconciliation('GET', `/api/${kind}/reconcile/1.0-draft/suggest/entity`),
  reconciliation('GET', `/api/${kind}/reconcile/1.0-draft/suggest/property`),
  reconciliation('GET', `/api/${kind}/reconcile/1.0-draft/suggest/type`),
  reconciliation('GET', `/api/${kind}/reconcile/1.0-draft/preview`),
  reconciliation('POST', `/api/${kind}/reconcile/1.0-draft/extend`),
  reconciliation('GET', `/api/${kind}/reconcile/1.0-draft/extend/propose`),
];

// Where paths overlap, the more specific pattern owns the path (src/http/router.ts):
// /api/actors/reconcile is never an actor id, whatever the order here.
export const ROUTES: readonly RouteSpec[] = [
  // The API describes itself (src/http/openapi/): it reveals no data, so it needs no token.
  { method: 'GET', path: '/api', rule: 'open' },
  { method: 'GET', path: '/api/openapi.json', rule: 'open' },
  { method: 'GET', path: '/api/objects', rule: 'token_or_public_api' },
  authority('GET', '/api/actors'),
  ...reconciliationService('actors'),
  authority('GET', '/api/actors/:id'),
  editor('POST', '/api/actors'),
  editor('PUT', '/api/actors/:id'),
  authority('GET', '/api/places'),
  ...reconciliationService('places'),
  authority('GET', '/api/places/:id'),
  editor('POST', '/api/places'),
  editor('POST', '/api/places/:id'),
  authority('GET', '/api/keywords'),
  ...reconciliationService('keywords'),
  editor('POST', '/api/sips/import'),
  editor('POST', '/api/ingest/confirm/:id'),
  editor('POST', '/api/ingest/failed/:id'),
  editor('POST', '/api/ai-cataloging/usage'),
  { method: 'GET', path: '/api/tei/refresh', rule: 'token' },
  // The presented token describes itself (never its value).
  { method: 'GET', path: '/api/token', rule: 'token' },
  { method: 'GET', path: '/api/tei/actors', rule: 'authority', ruleWithIds: 'token' },
  { method: 'GET', path: '/api/tei/places', rule: 'authority', ruleWithIds: 'token' },
  { method: 'GET', path: '/api/tei/keywords', rule: 'authority', ruleWithIds: 'token' },
];

export const RULE_TEXT: Record<Rule, string> = {
  open: 'open to anyone, with or without a token',
  token_or_public_api: 'token of any role; open (GET/HEAD) while public_api is on',
  authority: 'authority: open while public_access is on, or (GET/HEAD) while public_api is on; else token of any role',
  editor: 'token of an editor or higher',
  token: 'token of any role',
};

/** Whether a request without a token is served. */
function isOpen(rule: Rule, method: string, settings: Settings): boolean {
  const read = method === 'GET' || method === 'HEAD';
  switch (rule) {
    case 'open':
      return true;
    case 'token_or_public_api':
      return read && settings.public_api;
    case 'authority':
      return settings.public_access || (read && settings.public_api);
    case 'editor':
    case 'token':
      return false;
  }
}

type Decision = 'allow' | 'unauthenticated' | 'forbidden';

/** The access rule of a route for a request made with `role` (null: no token). */
export function decide(rule: Rule, method: string, settings: Settings, role: Role | null): Decision {
  if (role === null) return isOpen(rule, method, settings) ? 'allow' : 'unauthenticated';
  if (role === 'blocked') return 'forbidden';
  if (rule === 'editor') return atLeast(role, 'editor') ? 'allow' : 'forbidden';
  return 'allow';
}

export function displayPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}

/** A row of `archivectl routes`; `rule` is the rule's name (a key of RULE_TEXT), stable for scripts. */
type RouteRow = Pick<RouteSpec, 'method' | 'path' | 'rule'> & { open: boolean };

/** The matrix under the given settings, as `archivectl routes` prints it. */
export function routeRows(settings: Settings): RouteRow[] {
  return ROUTES.flatMap((r) => {
    const variants = [{ path: displayPath(r.path), rule: r.rule }];
    if (r.ruleWithIds) variants.push({ path: `${displayPath(r.path)}?ids=…`, rule: r.ruleWithIds });
    return variants.map((v) => ({ method: r.method, ...v, open: isOpen(v.rule, r.method, settings) }));
  });
}
