import { defineConfig } from 'vitest/config';

// libuv's thread pool (4 threads unless told) runs scrypt, sqlite3 queries and file I/O; a test
// file's in-process daemon and CLI runs share it. Set here, before vitest forks its workers,
// since each worker's pool starts with its first use.
process.env.UV_THREADPOOL_SIZE ??= '16';

// Tests call the CLI's main() and the daemon in the worker; a few spawn the built binary, which
// test/global-setup.ts compiles first. Files run in separate processes so temporary databases
// and ports never meet. Most of a file's time is spent waiting (sockets, SQLite, timers), so
// more files run at once than there are cores (vitest's default is one less than the cores).
// A worker process runs its files one after another and keeps the modules it has loaded
// (isolate: false): every file builds its own daemons, databases and metrics registries, so
// nothing it needs lives in module state, and loading src/ and its libraries once per worker
// instead of once per file takes about a third off the suite's CPU time.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 3,
    isolate: false,
  },
});
