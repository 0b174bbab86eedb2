// The routes of the access matrix, each bound to its handler. @koa/router matches and
// dispatches; the matrix entry of the matched route travels on ctx.state for the access step.
import Router from '@koa/router';
import type { Next } from 'koa';
import { ROUTES, displayPath, type RouteSpec } from '../domain/access.js';
import { HttpError } from './errors.js';
import type { ApiContext, ApiState, HandlerMap } from './types.js';
import { redactTokens } from '../errors.js';

export const routeKey = (r: Pick<RouteSpec, 'method' | 'path'>) => `${r.method} ${r.path}`;

export function buildRouter(handlers: HandlerMap): Router<ApiState> {
  // Paths are matched exactly as written in the matrix (case-sensitive).
  const router = new Router<ApiState>({ sensitive: true });
  for (const spec of ROUTES) {
    const key = routeKey(spec);
    const handler = handlers[key];
    // Every row of the matrix is served: a missing handler is a build error, not a 404.
    if (!handler) throw new Error(`no handler for ${key}`);
    router.register(spec.path, [spec.method], (ctx) => handler(ctx as ApiContext), { name: key });
  }
  const unknown = Object.keys(handlers).filter((k) => !ROUTES.some((r) => routeKey(r) === k));
  if (unknown.length > 0) throw new Error(`handlers without a route in the matrix: ${unknown.join(', ')}`);
  return router;
}

const SPECS = new Map(ROUTES.map((r) => [routeKey(r), r]));

/** Finds the matrix entry of the request (or the methods the path allows) before the body is read. */
export function resolveRoute(router: Router<ApiState>) {
  return async function matchRoute(ctx: ApiContext, next: Next): Promise<void> {
    const matched = router.match(ctx.path, ctx.method);
    const layer = matched.pathAndMethod.find((l) => l.name && SPECS.has(l.name));
    ctx.state.route = layer?.name ? (SPECS.get(layer.name) ?? null) : null;
    ctx.state.allowed = [...new Set(matched.path.flatMap((l) => l.methods))];
    await next();
  };
}

/** 404 for unknown paths, 405 with Allow for a known path and a wrong method; after authentication. */
export async function requireRoute(ctx: ApiContext, next: Next): Promise<void> {
  if (!ctx.state.route) {
    if (ctx.state.allowed.length > 0) {
      throw new HttpError(405, `${ctx.method} is not allowed here`, { Allow: ctx.state.allowed.join(', ') });
    }
    throw new HttpError(404, `no such endpoint: ${redactTokens(ctx.path)}`);
  }
  await next();
}

export { displayPath };
