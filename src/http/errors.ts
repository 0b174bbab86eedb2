// Every error answers JSON with a string `error` (docs/http-api.md). Domain errors carry a kind; the
// kind decides the status. Anything else is a bug: logged, answered 500 without details.
import createError from 'http-errors';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { isDatabaseUnavailable } from '../db/dialect.js';
import { errorCode, isAppError, isNoSpace, redactSecrets, redactTokens, type ErrorKind } from '../errors.js';
import { lingeringClose } from './unread-body.js';

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

/** `{"error": message}`, exposed whatever the status: a 503 says come back, a 4xx what went wrong. */
export function httpError(status: number, message: string, headers: Record<string, string> = {}): HttpError {
  return createError(status, message, { headers, expose: true });
}

export function unauthorized(message: string, tokenRefused: boolean): HttpError {
  return httpError(401, message, {
    'WWW-Authenticate': tokenRefused ? `${REALM}, error="invalid_token"` : REALM,
  });
}

/** What of an unexpected error may be logged: token-shaped runs (values, hashes in quoted SQL) cut out. */
export function scrub(err: unknown): { type: string; code?: string; message: string; stack?: string } {
  const e = err instanceof Error ? err : new Error(String(err));
  const code = (e as { code?: unknown }).code;
  return {
    type: e.name,
    ...(typeof code === 'string' ? { code } : {}),
    message: redactSecrets(e.message),
    ...(e.stack ? { stack: redactSecrets(e.stack) } : {}),
  };
}

/** Field problems with token values cut from names and texts alike; own properties, `__proto__` too. */
function redactedFields(fields: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).map(([name, text]) => [redactTokens(name), redactTokens(text)]));
}

/** Seconds a client is asked to wait when the database cannot serve (away, stalled, full). */
const UNAVAILABLE_RETRY_AFTER_S = 2;

/**
 * A failure of the environment rather than of the request, or null. A 503 never acknowledges a
 * write; only a statement sent to a server that then stalled may still be applied when it resumes.
 */
function environmentFailure(err: unknown): HttpError | null {
  if (isDatabaseUnavailable(err)) {
    return httpError(503, 'the database is unavailable; retry later', {
      'Retry-After': String(UNAVAILABLE_RETRY_AFTER_S),
    });
  }
  if (isNoSpace(errorCode(err))) return httpError(507, 'no space left to store the data');
  return null;
}

export function errorHandler(log: Logger) {
  return async function handleErrors(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } catch (caught) {
      const where = { method: ctx.method, path: ctx.path, request_id: (ctx.state as { requestId?: string }).requestId };
      // Only an error the pipeline did not decide can be the environment's: the database check
      // reads messages, and a refusal's message may quote what the client sent.
      const decided = (createError.isHttpError(caught) && caught.expose) || isAppError(caught);
      const environment = decided ? null : environmentFailure(caught);
      if (environment) log.warn({ err: scrub(caught), ...where }, environment.message);
      const err = environment ?? caught;
      // An answer passes the logs' redaction (README "Token values stay secret"): a refusal may
      // quote what the client sent, a field's name included (a value sent as a key).
      if (createError.isHttpError(err) && err.expose) {
        ctx.status = err.status;
        if (err.headers) ctx.set(err.headers);
        ctx.body = { error: redactTokens(err.message) };
      } else if (isAppError(err)) {
        ctx.status = STATUS[err.kind];
        const error = redactTokens(err.message);
        ctx.body = err.fields ? { error, fields: redactedFields(err.fields) } : { error };
      } else {
        log.error({ err: scrub(err), ...where }, 'unhandled error');
        ctx.status = 500;
        ctx.body = { error: 'internal error' };
      }
    }
    // The answer is made: one given before the body was read waits for the rest of it (unread-body.ts).
    lingeringClose(ctx);
  };
}
