// An answer given while the request's body still arrives unread (an early 413, a refused upload): sent whole at
// once, ended only once the rest has arrived or LINGER_MS passed, so a reset cannot discard it (RFC 9112 §9.6).
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { Context } from 'koa';

/** How long an answer waits for the unread rest of its request's body before the connection closes. */
const LINGER_MS = 2_000;

const unread = new WeakSet<IncomingMessage>();

/** The rest of this request's body will not be read: the answer closes the connection. */
export function closeAfterAnswer(ctx: Context): void {
  ctx.set('Connection', 'close');
  unread.add(ctx.req);
}

/** An answer marked by closeAfterAnswer is sent now and ends with its request, or after LINGER_MS. */
export function lingeringClose(ctx: Context): void {
  const req = ctx.req;
  if (!unread.has(req) || req.complete || req.destroyed || ctx.method === 'HEAD') return;
  const body: unknown = ctx.body;
  if (body === null || body === undefined || body instanceof Readable) return;
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  const answer = new Readable({ read: () => undefined });
  answer.push(bytes);
  const end = () => {
    clearTimeout(timer);
    req.off('end', end).off('close', end);
    answer.push(null);
  };
  const timer = setTimeout(end, LINGER_MS);
  req.once('end', end).once('close', end);
  req.resume();
  ctx.body = answer; // keeps the Content-Type already set; the length is set again below
  ctx.length = bytes.length;
}
