// The access rules of docs/http-api.md, as data: each route's declaration (src/http/routes/)
// names its rule and scope with accessRow; the HTTP middleware enforces them, `archivectl routes`
// prints them and the description publishes them.
import { atLeast, type Role } from './roles.js';
import type { AnyResource } from './catalog/resources/index.js';
import type { Settings } from './settings.js';
import type { Scope } from './scopes.js';

/** Who may call a route; RULE_TEXT says it in words. */
export type Rule = 'open' | 'token_or_public_api' | 'authority' | 'editor' | 'token';

export type Method = 'GET' | 'POST' | 'PUT';

/** Why a route's request may cost work that grows with the catalogue (http/limits/heavy-requests.ts). */
export type Heavy = 'export' | 'beacon' | 'batch' | 'draft-match' | 'draft-extend';

/** What the request pipeline needs to know of a route: everything is said here, nothing read from its path. */
export interface RouteSpec {
  method: Method;
  /** Path in the router's syntax (`:id`); shown as `{id}`. */
  path: string;
  rule: Rule;
  /** The rule when the query carries `ids` (TEI regeneration). */
  ruleWithIds?: Rule;
  /** `read`: changes no record (a reconciliation POST only reads); `write`: creates or changes one. */
  access: 'read' | 'write';
  /** What the route serves: a resource's table, or the area (`sips`, `ingest`, `tei`, `token`, ...). */
  resource: string;
  /** Its multipart file parts are streamed to disk (for a caller its rule allows); elsewhere discarded. */
  upload?: true;
  heavy?: Heavy;
  /** A smaller cap on a JSON or form body than `limits.jsonBytes`/`formBytes` (413 beyond). */
  bodyBytes?: number;
  /** Answers browsers from any origin (CORS): the reconciliation services OpenRefine calls; the rule still decides. */
  crossOrigin?: true;
  /** The scope a token needs (scopes.ts): `read` for reads, the write's own otherwise; null for an open route. */
  scope: Scope | null;
  /** The scope when the query carries `ids` (TEI regeneration), as `ruleWithIds`. */
  scopeWithIds?: Scope;
}

/** A route's access columns: a read needs scope `read`, a write names its own in `more.scope`. */
export function accessRow(
  method: Method,
  path: string,
  rule: Rule,
  resource: string,
  more: Partial<RouteSpec> = {},
): RouteSpec {
  const access = more.access ?? (method === 'GET' ? 'read' : 'write');
  const scope = more.scope !== undefined ? more.scope : rule === 'open' ? null : access === 'read' ? 'read' : undefined;
  if (scope === undefined) throw new Error(`${method} ${path} writes and names no scope`);
  return { method, path, rule, access, resource, ...more, scope };
}

/** The largest leaked-token report (POST /api/tokens/revoke), in bytes. */
export const REPORT_BYTES = 131_072;

/** The path of a resource's routes. */
export const resourcePath = (resource: Pick<AnyResource, 'table'>) => `/api/${resource.table}`;
/** The root of a register's reconciliation service (0.2; 1.0-draft under `<root>/1.0-draft`). */
export const reconcileRoot = (kind: string) => `/api/${kind}/reconcile`;

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

/** The rule of a request of `route`: with `ids` in its query, some routes have a stricter one. */
export const ruleFor = (route: RouteSpec, withIds: boolean): Rule =>
  withIds && route.ruleWithIds ? route.ruleWithIds : route.rule;

/** The scope a token needs for a request of `route` (null: none), as ruleFor. */
export const scopeFor = (route: RouteSpec, withIds: boolean): Scope | null =>
  withIds && route.scopeWithIds ? route.scopeWithIds : route.scope;

/**
 * A row of `archivectl routes`; `rule` is the rule's name (a key of RULE_TEXT), stable for
 * scripts; `scope` the scope a token needs (null: none).
 */
type RouteRow = Pick<RouteSpec, 'method' | 'path' | 'rule' | 'scope'> & { open: boolean };

/** The matrix of `routes` under the given settings, as `archivectl routes` prints it. */
export function routeRows(routes: readonly RouteSpec[], settings: Settings): RouteRow[] {
  return routes.flatMap((r) => {
    const variants = [{ path: displayPath(r.path), rule: r.rule, scope: r.scope }];
    if (r.ruleWithIds)
      variants.push({ path: `${displayPath(r.path)}?ids=…`, rule: ruleFor(r, true), scope: scopeFor(r, true) });
    return variants.map((v) => ({
      method: r.method,
      path: v.path,
      rule: v.rule,
      open: isOpen(v.rule, r.method, settings),
      scope: v.scope,
    }));
  });
}

/** Routes that differ only in their resource (`/api/{actors,places}/reconcile`), said once, in order. */
function compact(keys: readonly string[], tables: readonly string[]): string[] {
  const shapes = new Map<string, string[]>();
  const shapeOf = (key: string): [string, string | null] => {
    const m = /^(\S+ \/api\/(?:tei\/)?)([a-z-]+)(\/.*|\?.*)?$/.exec(key);
    if (!m || !tables.includes(m[2] as string)) return [key, null];
    return [`${m[1]}\0${m[3] ?? ''}`, m[2] as string];
  };
  for (const key of keys) {
    const [shape, table] = shapeOf(key);
    const list = shapes.get(shape) ?? [];
    if (table !== null) list.push(table);
    shapes.set(shape, list);
  }
  return [...shapes].map(([shape, list]) =>
    list.length === 0 ? shape : shape.replace('\0', list.length === 1 ? (list[0] as string) : `{${list.join(',')}}`),
  );
}

/**
 * The access and scope tables of docs/http-api.md, as `archivectl routes --markdown` prints them
 * from the route declarations (a test holds the docs to them): the routes of each rule, of each scope.
 */
export function accessTables(routes: readonly RouteSpec[], tables: readonly string[]): string {
  const variants = routes.flatMap((r) => {
    const key = `${r.method} ${displayPath(r.path)}`;
    const own = { key, rule: r.rule, scope: r.scope };
    return r.ruleWithIds ? [own, { key: `${key}?ids=…`, rule: ruleFor(r, true), scope: scopeFor(r, true) }] : [own];
  });
  const grouped = <K extends string>(by: (v: (typeof variants)[number]) => K) => {
    const groups = new Map<K, string[]>();
    for (const v of variants) groups.set(by(v), [...(groups.get(by(v)) ?? []), v.key]);
    return [...groups].map(([k, keys]) => [k, compact(keys, tables).join(', ')] as const);
  };
  const ruleText = (rule: Rule) => RULE_TEXT[rule].replace(`${rule}: `, '');
  const rules = grouped((v) => v.rule).map(([rule, keys]) => `| ${keys} | **${rule}**: ${ruleText(rule)} |`);
  const scopes = grouped((v) => v.scope ?? '(none)').map(([scope, keys]) =>
    scope === '(none)' ? `| (none) | ${keys} |` : `| \`${scope}\` | ${keys} |`,
  );
  return ['| route | rule |', '|---|---|', ...rules, '', '| scope | routes |', '|---|---|', ...scopes, ''].join('\n');
}
