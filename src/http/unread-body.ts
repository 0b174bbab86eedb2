// An answer given while the request's body is still arriving and will not be read (an early 413,
// a refused upload, a refused body too slow to wait for). It says `Connection: close`, and after
// such an answer Node ends the connection and destroys it as soon as our side is written: what
// the client still sends then meets a closed socket, whose reset can throw the answer away before
// the client has read it (RFC 9112 §9.6; seen as a client that never got its 413). So the answer
// is sent whole at once (its Content-Length tells the client it is complete), but ends — and lets
// Node close the connection — only once the client has sent the rest, which is read and
// discarded, or LINGER_MS has passed. The connection limits count the connection meanwhile.
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

/**
 * Called once the answer is made (its status, headers and body set): an answer marked by
 * closeAfterAnswer whose request is still arriving becomes a stream that sends the whole answer
 * now and ends when the request has ended or closed, or after LINGER_MS; the request flows
 * meanwhile, into nothing (Node's parser stops reading the socket while the request's buffer is full).
 */
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
