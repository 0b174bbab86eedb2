#!/usr/bin/env node
// Builds dist/vendor/: commander and knex, each bundled into one CommonJS file, and a V8 code
// cache for each (why, and how they are loaded: src/vendor.ts). Runs after tsc, from
// `npm run build`, npm's prepare and the tests' global setup, each in a process of its own.
//
// The cache holds the functions compiled when it is taken. So the CLI's own commands run first,
// in this process, on a scratch database: `--help`, `token list` and `account list`, the runs
// an operator waits for. A cache taken right after loading would hold only the module bodies.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { rolldown } from 'rolldown';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const vendorDir = path.join(root, 'dist', 'vendor');

// knex requires its database drivers when a client is made: they stay packages of their own
// (sqlite3 is native), found from dist/vendor/ in node_modules as before. The dialects this
// product does not offer stay out of the bundle: config accepts sqlite3 and pg only.
const DRIVERS = ['sqlite3', 'pg', 'pg-native', 'pg-query-stream', 'mysql', 'mysql2', 'mariadb', 'oracledb', 'tedious'];
const UNOFFERED_DIALECT = /^\.\/(better-sqlite3|cockroachdb|mssql|mysql2?|mariadb|oracle|oracledb|pgnative|redshift)$/;

function external(id, importer) {
  if (DRIVERS.some((d) => id === d || id.startsWith(`${d}/`))) return true;
  return Boolean(importer?.endsWith(path.join('knex', 'lib', 'dialects', 'index.js')) && UNOFFERED_DIALECT.test(id));
}

/** Writes a file whole or not at all: a CLI started meanwhile reads the old one or the new one. */
function writeAtomically(file, data) {
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, data);
  renameSync(partial, file);
}

async function bundle(name) {
  const build = await rolldown({ input: name, platform: 'node', external, logLevel: 'silent', cwd: root });
  const { output } = await build.generate({ format: 'cjs' });
  await build.close();
  if (output.length !== 1) throw new Error(`${name}: expected one bundled file, got ${output.length}`);
  writeAtomically(path.join(vendorDir, `${name}.cjs`), output[0].code);
}

/** Runs the CLI's commands in this process, output discarded; throws when one fails. */
async function train() {
  const scratch = mkdtempSync(path.join(tmpdir(), 'archivectl-build-'));
  try {
    const config = path.join(scratch, 'config.json');
    const database = { client: 'sqlite3', filename: path.join(scratch, 'archive.sqlite3') };
    writeFileSync(config, JSON.stringify({ database, dataDir: scratch }));
    const env = { PATH: process.env.PATH ?? '' };
    // The schema, made by another process: migrating here would fill the cache with migrations.
    execFileSync(process.execPath, [path.join(root, 'bin', 'archivectl'), '--config', config, 'migrate'], {
      env,
      stdio: 'ignore',
    });
    const { main } = await import(pathToFileURL(path.join(root, 'dist', 'cli', 'main.js')).href);
    const sink = () => new Writable({ write: (_chunk, _enc, done) => done() });
    for (const args of [['--help'], ['token', 'list'], ['account', 'list']]) {
      const io = { stdout: sink(), stderr: sink(), env, cwd: scratch };
      const status = await main(['node', 'archivectl', '--config', config, ...args], io);
      if (status !== 0) throw new Error(`archivectl ${args.join(' ')} exited with ${status}`);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const names = ['commander', 'knex'];
for (const name of names) {
  rmSync(path.join(vendorDir, `${name}.cjs.cache`), { force: true }); // the training compiles from source
}
mkdirSync(vendorDir, { recursive: true });
await Promise.all(names.map(bundle));
await train();
// The same module instance the commands loaded the bundles through.
const { loadedBundle } = await import(pathToFileURL(path.join(root, 'dist', 'vendor', 'bundles.js')).href);
for (const name of names) writeAtomically(path.join(vendorDir, `${name}.cjs.cache`), loadedBundle(name).codeCache());
