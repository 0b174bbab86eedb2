// Every error answers JSON with a string `error` (SPEC §4.1). Domain errors carry a kind; the
// kind decides the status. Anything else is a bug: logged, answered 500 without details.
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

/** An HTTP answer decided by the pipeline (401, 403, 404, 405, 400, 413, 415). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function unauthorized(message: string, tokenRefused: boolean): HttpError {
  return new HttpError(401, message, {
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
      if (err instanceof HttpError) {
        ctx.status = err.status;
        ctx.set(err.headers);
        ctx.body = { error: err.message };
      } else if (isAppError(err)) {
        ctx.status = STATUS[err.kind];
        ctx.body = err.fields ? { error: err.message, fields: err.fields } : { error: err.message };
      } else {
        log.error({ err: scrub(err), method: ctx.method, path: ctx.path }, 'unhandled error');
        ctx.status = 500;
        ctx.body = { error: 'internal error' };
      }
    }
  };
}
