// Steps of the request pipeline that act only before what follows them, run in order by one Koa
// middleware: a middleware is an async layer every request passes twice, and thirteen of them
// cost a catalogue list about 3 % of its CPU (bench/RESULTS.md, "Request path, fifth pass"). A
// step that needs no await costs a plain call.
import type { Next } from 'koa';
import type { ApiContext } from './types.js';

/** Returned by a step that has answered the request: the steps after it do not run. */
export const ANSWERED = Symbol('answered');

type Outcome = void | typeof ANSWERED;

/** Nothing (go on), ANSWERED (stop), a promise of either, or an exception (the error handler's). */
export type Step = (ctx: ApiContext) => Outcome | Promise<Outcome>;

/** Whether a value that may be a promise is one (any thenable, not only native promises). */
export function isPromise<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

/** Runs `steps` in order, then the next middleware; the first step that answers ends the request. */
export function gate(steps: readonly Step[]) {
  return async function runSteps(ctx: ApiContext, next: Next): Promise<void> {
    for (const step of steps) {
      let outcome = step(ctx);
      if (isPromise(outcome)) outcome = await outcome;
      if (outcome === ANSWERED) return;
    }
    await next();
  };
}
