// Logs: JSON lines on stdout (systemd and journald take them as they are). One line per request:
// method, path (api_token values replaced by [REDACTED]), status, duration, the token's public
// id. Never the Authorization header, never a body.
//
// Token values reach log lines anyway when clients put them where they do not belong: a query
// parameter of another name (`?access_token=`, `?API_TOKEN=`), a path segment, a User-Agent, an
// error text. So every line, once serialised and before it is written, goes through one rule
// (redactTokens in src/errors.ts): token-shaped values keep `arc_` and their public id, other
// long runs of token characters are replaced whole. It sees the finished line, so it covers every
// field at any depth, the message, bindings of child loggers and serialised errors alike.
import type { Next } from 'koa';
import type { Logger } from 'pino';
import { redactTokens } from '../errors.js';
import { redactQuery } from './api-token.js';
import type { ApiContext } from './types.js';

export async function createLogger(level: string, destination?: NodeJS.WritableStream): Promise<Logger> {
  const { pino } = await import('pino');
  return pino(
    {
      level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      hooks: { streamWrite: redactTokens },
    },
    (destination as never) ?? pino.destination({ dest: 1, sync: false }),
  );
}

export function accessLog(log: Logger) {
  return async function logRequest(ctx: ApiContext, next: Next): Promise<void> {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      log.info(
        {
          method: ctx.method,
          path: ctx.querystring ? `${ctx.path}?${redactQuery(ctx.querystring)}` : ctx.path,
          status: ctx.status,
          duration_ms: Math.round(ms * 100) / 100,
          token: ctx.state.tokenId ?? null,
        },
        'request',
      );
    }
  };
}
