// What one run of the CLI reads from and writes to: its streams, environment, working directory
// and clock. `main(argv, io)` puts them in an AsyncLocalStorage for the run, so commands reach
// them without threading a parameter through every helper, and two runs in one process (tests)
// never see each other's. Outside a run, the process's own are used.
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
  /**
   * Where `serve` hears that it must stop ('SIGTERM' or 'SIGINT' events): the process itself, or
   * an emitter of the caller's when the daemon runs inside a process that is not its own (tests).
   */
  signals: Pick<NodeJS.EventEmitter, 'once' | 'on' | 'removeListener'>;
}

const current = new AsyncLocalStorage<CliIo>();

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

export function runWithIo<T>(io: CliIo, work: () => Promise<T>): Promise<T> {
  return current.run(io, work);
}

/** The io of the run in progress (the process's own outside of one). */
export function io(): CliIo {
  return current.getStore() ?? resolveIo();
}
