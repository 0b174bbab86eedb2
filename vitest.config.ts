import { defineConfig } from 'vitest/config';

// Tests drive the built CLI and a listening daemon as child processes: give them time, and run
// files in separate processes so temporary databases and ports never meet.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
