// Requests whose cost grows with the catalogue hold one of `limits.heavyRequests` places or wait in
// `limits.heavyQueue` (at most WAIT_MS), else 503 with Retry-After; nothing else waits here.
import { httpError } from '../errors.js';
import { isPlainObject } from '../../domain/catalog/json-values.js';
import type { ApiContext, ApiMiddleware, ParsedBody } from '../types.js';

const WAIT_MS = 10_000;
const RETRY_AFTER_S = 2;
/** Reconciliation batches larger than OpenRefine's default (10 queries) are heavy. */
const LIGHT_BATCH = 10;
/** A batch given as text longer than this is heavy without being read. */
const BATCH_TEXT_BYTES = 64 * 1024;

/** How many queries (`queries`) or entities (`extend.ids`) a reconciliation parameter holds. */
function batchSize(ctx: ApiContext, field: 'queries' | 'extend'): number {
  let value = param(ctx, field);
  if (typeof value === 'string') {
    if (value.length > BATCH_TEXT_BYTES) return Infinity;
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      return 0; // refused by the service as it is
    }
  }
  if (!isPlainObject(value)) return 0;
  if (field === 'queries') return Object.keys(value).length;
  return Array.isArray(value.ids) ? value.ids.length : 0;
}

const jsonField = (body: ParsedBody, name: string): unknown =>
  body.kind === 'json' && isPlainObject(body.data) ? body.data[name] : undefined;

function bodyArrayLength(ctx: ApiContext, name: string): number {
  const value = jsonField(ctx.state.body, name);
  return Array.isArray(value) ? value.length : 0;
}

/** A parameter of the request: from its body (JSON or form) first, else from its query. */
function param(ctx: ApiContext, name: string): unknown {
  const body = ctx.state.body;
  return (body.kind === 'form' ? body.data[name] : jsonField(body, name)) ?? ctx.query[name];
}

/** Whether a request (already allowed, its body read) is one whose cost grows with the catalogue. */
function isHeavy(ctx: ApiContext): boolean {
  switch (ctx.state.route?.heavy) {
    case undefined:
      return false;
    case 'export':
      return true;
    case 'beacon':
      return ctx.query.format === 'beacon';
    case 'batch':
      return batchSize(ctx, 'queries') > LIGHT_BATCH || batchSize(ctx, 'extend') > LIGHT_BATCH;
    // Reconciliation 1.0-draft takes its batches as a JSON body: `{"queries": [...]}` to match,
    // `{"ids": [...], ...}` to extend (domain/catalog/reconcile/v1/).
    case 'draft-match':
      return bodyArrayLength(ctx, 'queries') > LIGHT_BATCH;
    case 'draft-extend':
      return bodyArrayLength(ctx, 'ids') > LIGHT_BATCH;
  }
}

/** `places` at once, `waiting` more in a queue (first come, first served). */
export class HeavyRequestLimiter {
  private running = 0;
  private readonly queue: ((release: (() => void) | null) => void)[] = [];

  constructor(
    private readonly places: number,
    private readonly waiting: number,
  ) {}

  /** The release of a place, at once or after a wait; null when none was free in time. */
  async take(gone: Promise<void>): Promise<(() => void) | null> {
    if (this.running < this.places) {
      this.running++;
      return this.release();
    }
    if (this.queue.length >= this.waiting) return null;
    return new Promise((resolve) => {
      const turn = (release: (() => void) | null) => {
        clearTimeout(timer);
        resolve(release);
      };
      const leave = () => {
        const at = this.queue.indexOf(turn);
        if (at === -1) return;
        this.queue.splice(at, 1);
        turn(null);
      };
      const timer = setTimeout(leave, WAIT_MS);
      void gone.then(leave); // its client went away while it waited
      this.queue.push(turn);
    });
  }

  /** A release function that gives the place once, to the next in the queue or back. */
  private release(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.queue.shift();
      if (next) next(this.release());
      else this.running--;
    };
  }
}

/** A heavy request holds a place until its answer is sent or its connection closes (else 503). */
export function limitHeavyRequests(limiter: HeavyRequestLimiter): ApiMiddleware {
  const refuse = () =>
    httpError(503, 'too many exports and other heavy requests at once; retry later', {
      'Retry-After': String(RETRY_AFTER_S),
    });
  return async function heavy(ctx, next) {
    if (!isHeavy(ctx)) return next();
    // One 'close' listener for both uses: a streamed answer gathers many on its response
    // (Koa's pipeline, on-finished, the send timeout), and node warns past ten.
    let isClosed = false;
    let held: (() => void) | null = null;
    const closed = new Promise<void>((resolve) =>
      ctx.res.once('close', () => {
        isClosed = true;
        held?.();
        resolve();
      }),
    );
    const release = await limiter.take(closed);
    if (release === null) throw refuse();
    if (isClosed) release();
    else held = release;
    await next();
  };
}
