// What one CLI run reads and writes (streams, environment, cwd, clock, signals), kept per run in an
// AsyncLocalStorage, so two runs in one process (tests) never see each other's.
import { AsyncLocalStorage } from 'node:async_hooks';
import { systemClock, type Clock } from '../clock.js';

export type OutStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

export interface CliIo {
  stdout: OutStream;
  stderr: OutStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
  clock: Clock;
  /** Where `serve` hears SIGTERM or SIGINT: the process, or an emitter of the caller's (tests). */
  signals: Pick<NodeJS.EventEmitter, 'once' | 'on' | 'removeListener'>;
}

/** The io of the run in progress, set by main(argv, io). */
export const currentIo = new AsyncLocalStorage<CliIo>();

/** The io of a run: what was given, the process's own for the rest. */
export function resolveIo(given: Partial<CliIo> = {}): CliIo {
  return {
    stdout: given.stdout ?? process.stdout,
    stderr: given.stderr ?? process.stderr,
    stdin: given.stdin ?? process.stdin,
    env: given.env ?? process.env,
    cwd: given.cwd ?? process.cwd(),
    clock: given.clock ?? systemClock,
    signals: given.signals ?? process,
  };
}

/** The io of the run in progress (the process's own outside of one). */
export function io(): CliIo {
  return currentIo.getStore() ?? resolveIo();
}
