// `npm run build`: src/ and its packages bundled into dist/bundle/, what bin/archivectl runs
// (docs/ARCHITECTURE.md, "Start-up"). Split only where src/ imports a module when it runs
// (`import()`: a command's actions), so a command loads the code it needs.
import { defineConfig } from 'rolldown';

export default defineConfig({
  input: {
    archivectl: 'src/cli/main.ts',
    // For npm's prepare, which writes man/archivectl.1 and the shell completions from the
    // command tree that ships.
    'man-page': 'src/cli/man-page.ts',
    completion: 'src/cli/completion.ts',
  },
  platform: 'node',
  // Modules that both the command tree and the actions import stay in archivectl.cjs, which every
  // run loads anyway, instead of small files of their own: --help reads 2 files, not 11.
  preserveEntrySignatures: 'allow-extension',
  // Database drivers are loaded by knex and pg only when configured; sqlite3 is native.
  external: [/^(sqlite3|pg-native|pg-query-stream|mysql2?|mariadb|oracledb|tedious|better-sqlite3)(\/|$)/],
  // src/ imports its own modules as `./x.js`, as node resolves them once compiled.
  resolve: { extensionAlias: { '.js': ['.ts', '.js'] } },
  // depd (under http-assert) builds its deprecation wrappers with eval; bundled, it works as is.
  checks: { eval: false },
  output: {
    dir: 'dist/bundle',
    cleanDir: true,
    // CommonJS: node's ES module loader holds some 10 MB more for the daemon's files, for the same
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
});
