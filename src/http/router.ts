// The declared routes (routes/index.ts), dispatched by @koa/router. Where patterns overlap the most specific owns
// the path for every method; 404 and 405 are the pipeline's, as JSON, once Authorization is judged.
import { METHODS } from 'node:http';
import Router from '@koa/router';
import compose from 'koa-compose';
import type { RouteSpec } from '../domain/access.js';
import { httpError } from './errors.js';
import type { Route } from './route.js';
import type { ApiContext, ApiMiddleware, ApiState, ApiNext } from './types.js';
import { redactTokens } from '../errors.js';

const routeKey = (r: Pick<RouteSpec, 'method' | 'path'>) => `${r.method} ${r.path}`;

/** What the pipeline needs to know of a request's route: its matrix entry, its pattern's methods. */
function selectRoute(route: RouteSpec | null, allowed: readonly string[], crossOrigin: boolean): ApiMiddleware {
  return function selected(ctx, next) {
    ctx.state.route = route;
    ctx.state.allowed = allowed;
    ctx.state.crossOrigin = crossOrigin;
    return next();
  };
}

/** The shortest paths of the cross-origin routes: the roots of the services (README, "CORS"). */
function crossOriginRoots(routes: readonly Route[]): string[] {
  const paths = routes.filter((r) => r.crossOrigin).map((r) => r.path);
  return [...new Set(paths.filter((p) => !paths.some((q) => p !== q && p.startsWith(`${q}/`))))];
}

/** The request's route, found by @koa/router, then `pipeline` and the route's handler. */
export function routeRequests(routes: readonly Route[], pipeline: ApiMiddleware[]): ApiMiddleware {
  const keys = routes.map(routeKey);
  const twice = keys.filter((k, i) => keys.indexOf(k) !== i);
  if (twice.length > 0) throw new Error(`routes declared twice: ${twice.join(', ')}`);
  const rest = compose(pipeline);
  // Paths are matched exactly as written in the matrix (case-sensitive).
  const router = new Router<ApiState, ApiContext>({ sensitive: true, exclusive: 'specificity' });
  for (const path of new Set(routes.map((r) => r.path))) {
    const rows = routes.filter((r) => r.path === path);
    // GET routes answer HEAD as well (the router adds it, Koa sends no body).
    const allowed = Object.freeze([
      ...new Set(rows.flatMap((r) => (r.method === 'GET' ? ['HEAD', 'GET'] : [r.method]))),
    ]);
    const crossOrigin = rows.some((r) => r.crossOrigin === true);
    for (const route of rows)
      router.register(path, [route.method], [selectRoute(route, allowed, crossOrigin), rest, route.handler], {
        name: routeKey(route),
      });
    const others = METHODS.filter((m) => !allowed.includes(m));
    router.register(path, others, [selectRoute(null, allowed, crossOrigin), rest]);
  }
  // A path under a cross-origin service's root that is no route is its 404, readable by a page:
  // registered last, the wildcard loses to every route above (fewer or as many parameters).
  for (const root of crossOriginRoots(routes))
    router.register(`${root}/*rest`, METHODS, [selectRoute(null, [], true), rest]);
  return compose([router.routes() as ApiMiddleware, selectRoute(null, [], false), rest]);
}

/** 404 for unknown paths, 405 with Allow for a known path and a wrong method; after authentication. */
export async function requireRoute(ctx: ApiContext, next: ApiNext): Promise<void> {
  if (ctx.state.route) return next();
  if (ctx.state.allowed.length > 0) {
    throw httpError(405, `${ctx.method} is not allowed here`, { Allow: ctx.state.allowed.join(', ') });
  }
  throw httpError(404, `no such endpoint: ${redactTokens(ctx.path)}`);
}
