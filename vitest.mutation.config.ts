import { defineConfig } from 'vitest/config';

// `npm run test:mutation` (Stryker, stryker.config.json): the tests that judge src/domain/access.ts
// and src/domain/tokens/ through their exported functions, the CLI and the daemon (every
// `token-*` test file of test/domain, test/cli and test/http, so a new one is picked up), run in
// this process against the mutated source; the other HTTP tests take too long a mutant. No
// global setup: none of them spawns the built binary (the CLI and the daemon run in-process).
process.env.UV_THREADPOOL_SIZE ??= '16';

export default defineConfig({
  test: {
    include: [
      'test/domain/access-*.test.ts',
      'test/domain/authenticator*.test.ts',
      'test/domain/failure-budget.test.ts',
      'test/domain/kdf-queue.test.ts',
      'test/domain/single-flight.test.ts',
      'test/domain/token-*.test.ts',
      'test/domain/verified-cache.test.ts',
      'test/domain/verifier.test.ts',
      'test/tokens/token-*.test.ts',
      'test/cli/legacy-import.test.ts',
      // the daemon's token tests: what the unit tests of test/tokens/ leave to the HTTP doors
      'test/auth/token-*.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
