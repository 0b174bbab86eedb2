// The shapes shared by the HTTP layer: what the pipeline leaves on ctx.state for handlers.
import type { ParameterizedContext } from 'koa';
import type { Config } from '../config.js';
import type { RouteSpec } from '../domain/access.js';
import type { Ctx } from '../domain/context.js';
import type { Settings } from '../domain/settings.js';
import type { ForeignToken, Principal, Refusal } from '../domain/tokens/authenticate.js';
import type { LiveCheck } from '../domain/tokens/report.js';
import type { Logger } from 'pino';

/** A multipart file part, already streamed to a temporary file under dataDir. */
export interface UploadedFile {
  field: string;
  filename: string;
  /** Absolute path of the temporary file; the pipeline deletes it after the response unless a handler moved it. */
  path: string;
  size: number;
  sha256: string;
}

export type ParsedBody =
  | { kind: 'none' }
  | { kind: 'json'; data: unknown }
  /** `apiToken`: the raw form names an api_token parameter (also past the parsed ones). */
  | { kind: 'form'; data: Record<string, unknown>; apiToken: boolean }
  /** `names`: every part's name, files included (kept or discarded), for the api_token rule. */
  | { kind: 'multipart'; fields: Record<string, string>; files: UploadedFile[]; names: string[] }
  /** Unreadable (malformed JSON, truncated multipart, unsupported type): answered after authentication. */
  | { kind: 'invalid'; status: 400 | 413 | 415; message: string }
  /** The upload could not be written under dataDir (`code`: the system's error code, for the log). */
  | { kind: 'invalid'; status: 500 | 507; message: string; code: string };

export type Deps = Ctx & { config: Config };

/** What a leaked-token report needs beyond the request (routes/token-reports.ts), made once in app.ts. */
export interface TokenReportDeps {
  /** Counts a report of the client's address (its RateLimit fields on the answer); throws the 429. */
  admit(ctx: ParameterizedContext<ApiState>): Promise<void>;
  /** The live tokens among a report's values, its KDF runs in `client`'s turns. */
  isLive(client: string): LiveCheck;
  log: Logger;
}

export interface ApiState {
  deps: Deps;
  reports: TokenReportDeps;
  route: RouteSpec | null;
  /** Methods allowed on the path when the method is not (for 405). */
  allowed: readonly string[];
  /** Whether the path's routes are cross-origin services (src/http/cors.ts). */
  crossOrigin: boolean;
  principal: Principal | null;
  /** The presented token's public id, for the access log (never its value). */
  tokenId?: string;
  settings: Settings;
  /** A refusal of the header, answered after step 1; the pause counts from `answerAt` (0: none). */
  refusal: { error: Error; answerAt: number } | null;
  /** Why authentication refused this request, for the metrics. */
  authRefusal?: Refusal | 'header' | 'api_token' | 'missing' | 'scope';
  /** The 429 of a spent request limit, decided before the body (http/limits/rate-limits.ts). */
  rateRefusal?: Error;
  /** A right token presented from outside its allow_from (http/allow-from.ts). */
  foreignToken?: ForeignToken;
  /** Answered by /healthz, /readyz or /metrics (kept out of the access log unless `log.probes`). */
  probe?: boolean;
  /** This request's id (X-Request-Id), in its answer and its log lines. */
  requestId: string;
  /** A trusted proxy forwarded a client "address" that is no IP address (answered 400). */
  forwardedRefused: boolean;
  /** The caller's budget unit (its address, an IPv6 /64), behind trusted proxies the client's. */
  client: string;
  body: ParsedBody;
}

/** `params`: the path's parameters for the route (`:id`), set by the router. */
export type ApiContext = ParameterizedContext<ApiState> & { params: Record<string, string> };
export type Handler = (ctx: ApiContext) => Promise<void>;
/** A step of the request pipeline (app.ts): plain Koa middleware; one that answers does not call `next`. */
export type ApiMiddleware = (ctx: ApiContext, next: ApiNext) => Promise<void>;
export type ApiNext = () => Promise<void>;
