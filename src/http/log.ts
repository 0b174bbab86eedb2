// Logs: JSON lines on stdout (systemd and journald take them as they are). One line per request:
// method, path (api_token values replaced by [REDACTED]), status, duration, the token's public
// id. Never a token value, never the Authorization header, never a body.
import type { Next } from 'koa';
import type { Logger } from 'pino';
import { redactQuery } from './api-token.js';
import type { ApiContext } from './types.js';

export async function createLogger(level: string, destination?: NodeJS.WritableStream): Promise<Logger> {
  const { pino } = await import('pino');
  return pino(
    { level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime },
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
