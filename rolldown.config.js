// `npm run build`: src/ and its packages bundled into dist/bundle/, what bin/archivectl runs
// (docs/ARCHITECTURE.md, "Start-up"). Split only where src/ imports a module when it runs
// (`import()`: a command's actions), so a command loads the code it needs.
import { defineConfig } from 'rolldown';

const common = {
  platform: 'node',
  // src/ imports its own modules as `./x.js`, as node resolves them once compiled.
  resolve: { extensionAlias: { '.js': ['.ts', '.js'] } },
};

export default defineConfig([
  {
    ...common,
    input: {
      archivectl: 'src/cli/main.ts',
      // For npm's prepare, which writes man/archivectl.1 and the shell completions from the
      // command tree that ships.
      'man-page': 'src/cli/man-page.ts',
      completion: 'src/cli/completion.ts',
    },
    // Modules that both the command tree and the actions import stay in archivectl.cjs, which every
    // run loads anyway, instead of small files of their own: --help reads 2 files, not 11.
    preserveEntrySignatures: 'allow-extension',
    // Database drivers are loaded by knex and pg only when configured; sqlite3 is native.
    external: [/^(sqlite3|pg-native|pg-query-stream|mysql2?|mariadb|oracledb|tedious|better-sqlite3)(\/|$)/],
    // depd (under http-assert) builds its deprecation wrappers with eval; bundled, it works as is.
    checks: { eval: false },
    output: {
      dir: 'dist/bundle',
      cleanDir: true,
      // CommonJS: node's ES module loader holds more memory for the daemon's files, for the same
      // start-up time (bench/RESULTS.md).
      format: 'cjs',
      entryFileNames: '[name].cjs',
      chunkFileNames: '[name]-[hash].cjs',
      // Stack traces name src/*.ts lines (bin/archivectl turns source maps on).
      sourcemap: true,
      sourcemapExcludeSources: true,
      // Without a compile cache (node 20) a run's time goes mostly to parsing what it loads.
      minify: true,
      keepNames: true,
    },
  },
  // bin/archivectl turns node's compile cache on with this before it loads the program: a file of
  // its own, so that nothing of the program is compiled before the cache is on.
  {
    ...common,
    input: { 'compile-cache': 'src/config/compile-cache.ts' },
    output: { dir: 'dist/bundle', format: 'cjs', entryFileNames: '[name].cjs', sourcemap: true, minify: true },
  },
]);
