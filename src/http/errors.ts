// Every error answers JSON with a string `error` (SPEC §4.1). Domain errors carry a kind; the
// kind decides the status. Anything else is a bug: logged, answered 500 without details.
import createError from 'http-errors';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { isAppError, redactSecrets, type ErrorKind } from '../errors.js';

const STATUS: Record<ErrorKind, number> = {
  invalid: 422,
  not_found: 404,
  forbidden: 403,
  conflict: 409,
  usage: 400,
  config: 500,
};

export const REALM = 'Bearer realm="archive"';

export type HttpError = createError.HttpError;

/**
 * An HTTP answer decided by the pipeline (401, 403, 404, 405, 400, 413, 415, 429, 503): its
 * status, `{"error": message}` and headers. Exposed whatever the status: the 503 of a full
 * verification queue tells the client to come back, as the 4xx tell it what went wrong.
 */
export function httpError(status: number, message: string, headers: Record<string, string> = {}): HttpError {
  return createError(status, message, { headers, expose: true });
}

/** Kept for src/http/routes/reconcile.ts, which still writes `new HttpError(…)`: use httpError(). */
export const HttpError = httpError as unknown as new (
  status: number,
  message: string,
  headers?: Record<string, string>,
) => HttpError;

export function unauthorized(message: string, tokenRefused: boolean): HttpError {
  return httpError(401, message, {
    'WWW-Authenticate': tokenRefused ? `${REALM}, error="invalid_token"` : REALM,
  });
}

/**
 * What of an unexpected error may be logged. Database errors can quote SQL with bound values;
 * any long run of token-alphabet characters (a value, a hash) is cut out before it reaches a log.
 */
export function scrub(err: unknown): { type: string; code?: string; message: string; stack?: string } {
  const e = err instanceof Error ? err : new Error(String(err));
  const cut = redactSecrets;
  const code = (e as { code?: unknown }).code;
  return {
    type: e.name,
    ...(typeof code === 'string' ? { code } : {}),
    message: cut(e.message),
    ...(e.stack ? { stack: cut(e.stack) } : {}),
  };
}

export function errorHandler(log: Logger) {
  return async function handleErrors(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } catch (err) {
      if (createError.isHttpError(err) && err.expose) {
        ctx.status = err.status;
        if (err.headers) ctx.set(err.headers);
        ctx.body = { error: err.message };
      } else if (isAppError(err)) {
        ctx.status = STATUS[err.kind];
        ctx.body = err.fields ? { error: err.message, fields: err.fields } : { error: err.message };
      } else {
        const requestId = (ctx.state as { requestId?: string }).requestId;
        log.error({ err: scrub(err), method: ctx.method, path: ctx.path, request_id: requestId }, 'unhandled error');
        ctx.status = 500;
        ctx.body = { error: 'internal error' };
      }
    }
  };
}
