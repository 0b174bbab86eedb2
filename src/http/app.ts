// The Koa application: the whole request pipeline, in order, in one place.
import path from 'node:path';
import Koa from 'koa';
import type { Logger } from 'pino';
import type { AccessState } from '../domain/access-state.js';
import type { Authenticator } from '../domain/tokens/authenticate.js';
import {
  answerAuthorization,
  enforceAccess,
  judgeAuthorization,
  refuseApiTokenInBody,
  refuseApiTokenInQuery,
  willBeRefused,
} from './auth.js';
import { atLeast } from '../domain/roles.js';
import { readBody } from './body.js';
import { cacheControl } from './conditional.js';
import { corsHeaders, corsPreflight } from './cors.js';
import { redactTokens } from '../errors.js';
import { errorHandler, httpError } from './errors.js';
import { accessLog } from './observe/log.js';
import { budgetKey, clientAddress, type TrustFn } from './client-address.js';
import { requireRoute, routeRequests } from './router.js';
import { readinessAnswer, type ReadinessProbe } from './observe/health.js';
import { countRequests, mayReadMetrics, type DaemonMetrics } from './observe/metrics.js';
import { REQUEST_ID_HEADER, requestIdFor } from './observe/request-id.js';
import { HeavyRequestLimiter, limitHeavyRequests } from './limits/heavy-requests.js';
import { refuseForeignAddress } from './allow-from.js';
import { enforceScopes, missingScope } from './scopes.js';
import { answerRateLimit, limitRequests, reportLimit, type RequestLimits } from './limits/rate-limits.js';
import { ROUTES } from './routes/index.js';
import type { ApiContext, ApiMiddleware, ApiState, Deps, ApiNext, TokenReportDeps } from './types.js';

interface AppParts {
  deps: Deps;
  log: Logger;
  access: AccessState;
  authenticator: Authenticator;
  /** Which peers are trusted proxies (compiled once from `trustProxy`, shared with the connection limits). */
  trust: TrustFn;
  readiness: ReadinessProbe;
  metrics: DaemonMetrics;
  /** The rate limits' counts, made by the caller, which closes them at shutdown. */
  requestLimits: RequestLimits;
}

const PROBES = new Set(['/healthz', '/readyz', '/metrics']);
const isProbe = (ctx: ApiContext) => PROBES.has(ctx.path) && (ctx.method === 'GET' || ctx.method === 'HEAD');

/** The probes; other methods, or /metrics where `metrics` says no, get an unknown path's 404. */
function serveProbes(
  readiness: ReadinessProbe,
  metrics: DaemonMetrics,
  access: Deps['config']['metrics'],
): ApiMiddleware {
  return async function probes(ctx, next) {
    if (!isProbe(ctx) || (ctx.path === '/metrics' && !mayReadMetrics(access, ctx.ip))) return next();
    ctx.state.probe = true;
    ctx.set('Cache-Control', 'no-store');
    if (ctx.path === '/healthz') {
      ctx.body = { status: 'ok' };
    } else if (ctx.path === '/readyz') {
      const { status, body } = readinessAnswer(await readiness.check());
      ctx.status = status;
      ctx.body = body;
    } else {
      const { contentType, body } = await metrics.text();
      ctx.type = contentType;
      ctx.body = body;
    }
  };
}

/** A trusted proxy that forwards something other than IP addresses as the client's is answered 400. */
async function refuseForwarded(ctx: ApiContext, next: ApiNext): Promise<void> {
  if (ctx.state.forwardedRefused)
    throw httpError(400, 'X-Forwarded-For must list IP addresses only (it is set by the proxy named in trustProxy)');
  await next();
}

/** Body problems (400/413/415, or an upload not stored) are answered after the access rule. */
function rejectUnreadableBody(log: Logger): ApiMiddleware {
  return async function unreadableBody(ctx, next) {
    const body = ctx.state.body;
    if (body.kind === 'invalid') {
      if ('code' in body)
        log.error({ request_id: ctx.state.requestId, code: body.code }, 'an upload could not be written to dataDir');
      throw httpError(body.status, body.message, body.status === 413 ? { Connection: 'close' } : {});
    }
    await next();
  };
}

/** What every request under /api starts with; anything else is no endpoint. */
function beginApiRequest(deps: Deps, reports: TokenReportDeps): ApiMiddleware {
  return async function begin(ctx, next) {
    ctx.state.deps = deps;
    ctx.state.reports = reports;
    ctx.state.principal = null;
    ctx.state.body = { kind: 'none' };
    // Token-shaped parts of the path are cut out: a value pasted into a URL must not come back.
    if (ctx.path !== '/api' && !ctx.path.startsWith('/api/'))
      throw httpError(404, `no such endpoint: ${redactTokens(ctx.path)}`);
    await next();
  };
}

export function createApp(parts: AppParts): Koa<ApiState> {
  const { deps, log, access, authenticator, trust, readiness, metrics, requestLimits } = parts;
  // Forwarded headers reach Koa only from trusted proxies (clientAddress strips the others).
  const app = new Koa<ApiState>({ proxy: deps.config.trustProxy !== false });
  const { limits } = deps.config;
  const heavy = new HeavyRequestLimiter(limits.heavyRequests, limits.heavyQueue);
  const reports: TokenReportDeps = {
    admit: reportLimit(requestLimits, limits.reportRate),
    isLive: (client) => (values) => authenticator.liveRows(values, client),
    log,
  };

  app.use(async (ctx: ApiContext, next: ApiNext) => {
    const client = clientAddress(ctx.req, trust);
    ctx.request.ip = client.address;
    ctx.state.forwardedRefused = client.forwardedRefused;
    ctx.state.client = budgetKey(ctx.request.ip);
    ctx.state.requestId = requestIdFor(ctx.req, trust);
    ctx.set(REQUEST_ID_HEADER, ctx.state.requestId);
    await next();
    // Once the answer is made (errors too): who may keep it, so a cache in front never hands one
    // client's answer to another.
    cacheControl(ctx);
  });
  app.use(accessLog(log, (ctx) => ctx.state.probe === true && !deps.config.log.probes));
  app.use(countRequests(metrics));
  app.use(errorHandler(log));
  // Every request: a forwarded address refused, the probes, then only /api.
  app.use(refuseForwarded);
  app.use(serveProbes(readiness, metrics, deps.config.metrics));
  app.use(beginApiRequest(deps, reports));
  // The rest runs in the route's chain (router.ts), found before anything of the request is read,
  // in three phases; a step that answers calls no `next`, a refusal is thrown to errorHandler.
  const pipeline: ApiMiddleware[] = [
    // Before the body: what the path, the query and the Authorization header already decide.
    corsHeaders, // CORS on every answer of the reconciliation services, errors included
    refuseApiTokenInQuery(log), // 1. api_token in the query
    corsPreflight, // CORS preflights carry no token: answered before authentication
    judgeAuthorization(access, authenticator), // 2. the Authorization header, judged
    refuseForeignAddress(deps, log), // … and a token bound to other addresses refused (allow-from.ts)
    limitRequests(requestLimits, limits), // the token's or the address's rate, counted (429 below)
    // The body: read (as far as the refusals need); unclaimed uploads removed after the answer.
    readBody({
      jsonBytes: limits.jsonBytes,
      formBytes: limits.formBytes,
      uploadBytes: limits.sipUploadBytes,
      // Files are written to disk only for an editor's upload; anyone else's are discarded.
      keepFiles: (ctx) =>
        ctx.state.route?.upload === true &&
        ctx.state.principal !== null &&
        atLeast(ctx.state.principal.role, 'editor') &&
        ctx.state.rateRefusal === undefined &&
        missingScope(ctx) === null,
      // A request already known to be refused is answered at its first file part, the rest unread.
      refused: (ctx) => willBeRefused(ctx) || ctx.state.rateRefusal !== undefined || missingScope(ctx) !== null,
      refusedBodyMs: deps.config.timeouts.headersMs,
      tmpDir: path.join(deps.config.dataDir, 'tmp'),
    }),
    // The refusals, in the order of docs/http-api.md, then the handler's place.
    refuseApiTokenInBody(log), // 1. api_token in a form or JSON body
    answerAuthorization(limits.failedAuthDelayMs), // 2. … and answered
    answerRateLimit, // the rate's 429
    requireRoute, // 404 / 405, only once the header has been judged
    enforceAccess, // 3. the route's rule
    enforceScopes, // … narrowed by the token's scopes (scopes.ts)
    rejectUnreadableBody(log), // 4. then validation
    limitHeavyRequests(heavy), // a place for an export, a dump, a large batch (or 503)
  ];
  app.use(routeRequests(ROUTES, pipeline));
  return app;
}
