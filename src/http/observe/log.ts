// Logs: JSON lines on stdout, levels as words, one line per request; never the Authorization
// header, never a body. Token values reach log lines anyway when clients put them where they do
// not belong (`?access_token=`, a path segment, a User-Agent, an error text), so every finished
// line goes through redactTokens (src/errors.ts): every field at any depth, the message, child
// loggers' bindings and serialised errors alike.
import type { Next } from 'koa';
import type { Logger } from 'pino';
import { isJournalStream } from '../../journal-stream.js';
import { escapeUnsafe } from '../../unsafe-text.js';
import { errorCode, redactTokens } from '../../errors.js';
import { scrub } from '../errors.js';
import { redactQuery } from '../api-token.js';
import type { ApiContext } from '../types.js';

// syslog priorities (sd-daemon(3)) of pino's levels: on the journal stream a line starts with its
// own (`<6>`), which journald strips and keeps as the entry's: `journalctl -p warning` works.
const PRIORITY: Record<string, number> = { trace: 7, debug: 7, info: 6, warn: 4, error: 3, fatal: 2 };

/** Prefixes a finished line with its priority; the level is the line's first key. */
function withPriority(line: string): string {
  const level = /^\{"level":"([a-z]+)"/.exec(line)?.[1];
  return `<${PRIORITY[level ?? 'info'] ?? 6}>${line}`;
}

// pino's `isoTime`, made once per millisecond: a busy daemon writes several lines within one, and
// formatting the date was much of a line's cost (bench/RESULTS.md).
function isoTimeOncePerMs(): () => string {
  let at = Number.NaN;
  let text = '';
  return () => {
    const now = Date.now();
    if (now !== at) {
      at = now;
      text = `,"time":"${new Date(now).toISOString()}"`;
    }
    return text;
  };
}

// stdout's lines are gathered by sonic-boom (pino.destination), written once GATHER_BYTES wait and
// at least every FLUSH_EVERY_MS (a quiet daemon's lines reach the journal soon): each write to the
// pipe (a hop to the thread pool, a wake-up of the reader) costs more than the line itself.
const GATHER_BYTES = 8192;
const FLUSH_EVERY_MS = 100;

/** `destination`: where lines go (default: stdout, gathered, priorities on the journal stream). */
export async function createLogger(level: string, destination?: NodeJS.WritableStream): Promise<Logger> {
  const { pino } = await import('pino');
  const journal = destination === undefined && isJournalStream(1);
  return pino(
    {
      level,
      base: { pid: process.pid },
      timestamp: isoTimeOncePerMs(),
      formatters: { level: (label) => ({ level: label }) },
      hooks: { streamWrite: journal ? (line) => withPriority(redactTokens(line)) : redactTokens },
    },
    // pino writes lines still gathered at any exit (a fatal line's too); the daemon on shutdown.
    (destination as never) ??
      pino.destination({ dest: 1, sync: false, minLength: GATHER_BYTES, periodicFlush: FLUSH_EVERY_MS }),
  );
}

/** A user agent as logged: at most 256 characters, control and bidi characters escaped. */
function userAgentForLog(value: string | undefined): string | null {
  if (!value) return null;
  return escapeUnsafe(value.length > 256 ? `${value.slice(0, 256)}…` : value);
}

/** `skip`: requests that get no line (the probes, unless `log.probes`). */
export function accessLog(log: Logger, skip: (ctx: ApiContext) => boolean = () => false) {
  return async function logRequest(ctx: ApiContext, next: Next): Promise<void> {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (!skip(ctx))
        log.info(
          {
            request_id: ctx.state.requestId,
            method: ctx.method,
            path: ctx.querystring ? `${ctx.path}?${redactQuery(ctx.querystring)}` : ctx.path,
            status: ctx.status,
            duration_ms: Math.round(ms * 100) / 100,
            token: ctx.state.tokenId ?? null,
            ip: ctx.ip,
            user_agent: userAgentForLog(ctx.get('User-Agent')),
          },
          'request',
        );
    }
  };
}

/** Codes of a connection ended by its client: the client's doing, not the daemon's. */
const CLIENT_GONE = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE']);

// The Koa app's 'error' listener (in place of Koa's printer on stderr): what fails outside the
// error handler. A client gone mid-answer is a debug line; anything else a scrubbed error line.
export function logAppErrors(log: Logger) {
  return (err: unknown, ctx?: ApiContext): void => {
    const where = ctx ? { request_id: ctx.state.requestId, method: ctx.method, path: ctx.path } : {};
    const code = errorCode(err);
    if (CLIENT_GONE.has(code))
      log.debug({ ...where, code }, 'the client closed the connection before the answer was complete');
    else log.error({ err: scrub(err), ...where }, 'error outside the request pipeline');
  };
}
