// The routes of the access matrix, each bound to its handler. @koa/router only matches (its
// layers carry no middleware, and router.routes() is never mounted): the request's path is
// matched once (resolveRoute), the matrix entry and the path's parameters travel on ctx.state
// for the access step, and the request goes to that route's handler directly (dispatchRoute).
import Router, { type Layer } from '@koa/router';
import { ROUTES, displayPath, type RouteSpec } from '../domain/access.js';
import { httpError } from './errors.js';
import type { Step } from './gate.js';
import type { ApiContext, ApiState, Handler, HandlerMap } from './types.js';
import { redactTokens } from '../errors.js';
import { rememberIn } from '../remembered.js';

const routeKey = (r: Pick<RouteSpec, 'method' | 'path'>) => `${r.method} ${r.path}`;

const SPECS = new Map(ROUTES.map((r) => [routeKey(r), r]));

/** The routes' patterns, for matching; every row of the matrix must have a handler in `handlers`. */
export function buildRouter(handlers: HandlerMap): Router<ApiState> {
  // Paths are matched exactly as written in the matrix (case-sensitive).
  const router = new Router<ApiState>({ sensitive: true });
  for (const spec of ROUTES) {
    const key = routeKey(spec);
    // Every row of the matrix is served: a missing handler is a build error, not a 404.
    if (!handlers[key]) throw new Error(`no handler for ${key}`);
    router.register(spec.path, [spec.method], () => undefined, { name: key });
  }
  const unknown = Object.keys(handlers).filter((k) => !SPECS.has(k));
  if (unknown.length > 0) throw new Error(`handlers without a route in the matrix: ${unknown.join(', ')}`);
  return router;
}

type RouteLayer = Layer<ApiState>;

/** How many parameters a pattern has: the fewer, the more specific (`/reconcile` beats `/:id`). */
const parameters = (layer: RouteLayer) => layer.paramNames.length;

/** What one path is owned by: its layers, its methods, and per method its layer and matrix entry. */
interface Owner {
  /** Every method of the owning pattern (for 405 and CORS preflights); shared, never changed. */
  allowed: readonly string[];
  crossOrigin: boolean;
  byMethod: Map<string, { layer: RouteLayer; spec: RouteSpec | null }>;
}

/** Paths whose owners are remembered (src/remembered.ts). */
const REMEMBERED_PATHS = 1_000;

/**
 * The owner of `path`: of the patterns that match it, the most specific (fewest parameters; the
 * first in the matrix on a tie). `/api/actors/reconcile` is owned by its own pattern, never by
 * `/api/actors/:id`, so its methods are exactly its own.
 */
function ownerOf(router: Router<ApiState>, path: string): Owner {
  return describeOwner(matchOwningLayers(router, path));
}

function matchOwningLayers(router: Router<ApiState>, path: string): RouteLayer[] {
  const matching = router.match(path, 'GET').path.filter((l) => l.name && SPECS.has(l.name));
  let owner: RouteLayer | undefined;
  for (const layer of matching) if (!owner || parameters(layer) < parameters(owner)) owner = layer;
  return owner ? matching.filter((l) => l.path === owner.path) : [];
}

function describeOwner(layers: RouteLayer[]): Owner {
  const byMethod = new Map<string, { layer: RouteLayer; spec: RouteSpec | null }>();
  // Layers of GET routes also answer HEAD (@koa/router adds it to their methods); the first
  // layer with a method is its owner.
  for (const layer of layers)
    for (const method of layer.methods)
      if (!byMethod.has(method))
        byMethod.set(method, { layer, spec: layer.name ? (SPECS.get(layer.name) ?? null) : null });
  return {
    allowed: Object.freeze([...new Set(layers.flatMap((l) => l.methods))]),
    crossOrigin: layers.some((l) => l.name !== undefined && SPECS.get(l.name)?.crossOrigin === true),
    byMethod,
  };
}

/**
 * Finds the matrix entry of the request (or the methods the path allows, and whether it is a
 * cross-origin service) before the body is read. A path's owner is worked out once and
 * remembered: every request asks, and a match tries every pattern.
 */
export function resolveRoute(router: Router<ApiState>): Step {
  const owners = new Map<string, Owner>();
  return function matchRoute(ctx) {
    const owner = rememberIn(owners, REMEMBERED_PATHS, ctx.path, (path) => ownerOf(router, path));
    const found = owner.byMethod.get(ctx.method.toUpperCase());
    ctx.state.route = found?.spec ?? null;
    const layer = found?.layer;
    ctx.state.params = layer && layer.paramNames.length > 0 ? layer.params(ctx.path, layer.captures(ctx.path), {}) : {};
    ctx.state.allowed = owner.allowed;
    ctx.state.crossOrigin = owner.crossOrigin;
  };
}

/** 404 for unknown paths, 405 with Allow for a known path and a wrong method; after authentication. */
export function requireRoute(ctx: ApiContext): void {
  if (!ctx.state.route) {
    if (ctx.state.allowed.length > 0) {
      throw httpError(405, `${ctx.method} is not allowed here`, { Allow: ctx.state.allowed.join(', ') });
    }
    throw httpError(404, `no such endpoint: ${redactTokens(ctx.path)}`);
  }
}

/**
 * The handler of the route resolveRoute found, with the path's parameters in ctx.params (the
 * end of the pipeline; requireRoute has answered requests without a route).
 */
export function dispatchRoute(handlers: HandlerMap): Step {
  const bySpec = new Map<RouteSpec, Handler | undefined>(ROUTES.map((r) => [r, handlers[routeKey(r)]]));
  return function dispatch(ctx) {
    const handler = ctx.state.route ? bySpec.get(ctx.state.route) : undefined;
    if (!handler) throw httpError(404, `no such endpoint: ${redactTokens(ctx.path)}`);
    ctx.params = ctx.state.params;
    return handler(ctx);
  };
}

export { displayPath };
