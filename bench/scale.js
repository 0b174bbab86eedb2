// BENCH_ONLY=scale npm run bench: the catalogue read path at archive scale (issue 11). Builds
// catalogues of 1,000, 100,000 and 1,000,000 actors with `archivectl catalog load` (cached in
// bench/.cache/scale between runs: the SQLite files, and PostgreSQL databases named
// archivectl_bench_<n>), then measures through HTTP on 127.0.0.1, one request at a time: the
// default list, sortField=name, a common and a rare search, the last page, format=select2 and a
// reconciliation query (median and p99). Then GET /api/actors?perPage=25 with 1,000 actors
// against a reference endpoint (Koa + sqlite3 prepared statements, the same rows and total) in
// alternating autocannon rounds.
//
//   BENCH_SCALE_SIZES=1000,100000   the sizes to build and measure (default all three)
//   BENCH_PG_URL / ARCHIVE_TEST_PG_URL   a PostgreSQL server (its `postgres` database is used
//                                    to create the bench databases); without one, SQLite only
//   BENCH_SAMPLES=200                requests per query
//   BENCH_SCALE_PART=queries|throughput   one of the two parts only
//   BENCH_VARIANTS=before=path/to/bin,…   other builds of archivectl (a bin/archivectl beside
//                                    its dist/) run in the same throughput rounds, to measure
//                                    what a change bought side by side
import { execFileSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { median, ms, percentile, startDaemon } from './daemon.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'archivectl');
const CACHE = path.join(ROOT, 'bench', '.cache', 'scale');
const SIZES = (process.env.BENCH_SCALE_SIZES ?? '1000,100000,1000000').split(',').map(Number);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const PG_URL = process.env.BENCH_PG_URL ?? process.env.ARCHIVE_TEST_PG_URL ?? null;
const ROUND_SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const PART = process.env.BENCH_SCALE_PART ?? 'all';
const VARIANTS = (process.env.BENCH_VARIANTS ?? '')
  .split(',')
  .filter(Boolean)
  .map((v) => v.split('='));

/** The names: one of 40 first names and one of 400 family names, a number; one in 50,000 rare. */
const FIRST = 'anna beat carla dora emil fritz greta hans ida jakob karl lena max nina otto paul rosa sara theo'
  .split(' ')
  .concat('ursula vera walter xaver yvonne zoe adrian bruno cäcilie dölf elsa franz gerda heidi ivo'.split(' '))
  .concat('jürg kurt lotte marta noah'.split(' '));
const FAMILY = Array.from({ length: 400 }, (_, i) => `${['müller', 'meier', 'schmid', 'keller', 'weber'][i % 5]}${i}`);
const COMMON = 'müller'; // in one name of five
const RARE = 'quetzal'; // in one name of 50,000 (and at least one)
const nameOf = (i) =>
  `${FIRST[i % FIRST.length]} ${FAMILY[(i * 7919) % FAMILY.length]}${i % 50_000 === 7 ? ` ${RARE}` : ''} ${i}`;

function cli(config, args, extraEnv = {}) {
  return execFileSync(process.execPath, [BIN, '--config', config, ...args], {
    env: { ...process.env, ARCHIVE_CONFIG: '', DATABASE_URL: '', ARCHIVECTL_AS: 'root', ...extraEnv },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** Writes the catalogue file without holding it as one string. */
async function writeCatalog(file, n) {
  const out = createWriteStream(file);
  const write = (s) => (out.write(s) ? undefined : new Promise((r) => out.once('drain', r)));
  await write('{"actors":[');
  for (let i = 0; i < n; i++) {
    const actor = { name: nameOf(i), type: i % 3 ? 'person' : 'corporate_body' };
    if (i % 4 === 0) actor.date_start = String(1800 + (i % 200));
    await write(`${i ? ',' : ''}${JSON.stringify(actor)}`);
  }
  await write(']}');
  await new Promise((r) => out.end(r));
}

/** A catalogue of n actors on a dialect: built once (timed), reused after. */
async function catalogue(n, dialect) {
  mkdirSync(CACHE, { recursive: true });
  const base = path.join(CACHE, `${dialect}-${n}`);
  const config = `${base}.json`;
  const database =
    dialect === 'pg'
      ? { client: 'pg', url: `${PG_URL.replace(/\/[^/]*$/, '')}/archivectl_bench_${n}` }
      : { client: 'sqlite3', filename: `./${dialect}-${n}.sqlite3` };
  writeFileSync(config, JSON.stringify({ database, dataDir: `./data-${dialect}-${n}`, log: { level: 'info' } }));
  const done = `${base}.built`;
  if (existsSync(done)) return { config, loadSeconds: null };
  if (dialect === 'pg') {
    const { default: pg } = await import('pg');
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS archivectl_bench_${n}`);
    await admin.query(`CREATE DATABASE archivectl_bench_${n}`);
    await admin.end();
  } else rmSync(`${base}.sqlite3`, { force: true });
  cli(config, ['migrate']);
  cli(config, ['account', 'create', 'root', '--role', 'superuser'], { ARCHIVECTL_AS: '' });
  cli(config, ['settings', 'set', 'public_access', 'on']);
  const file = path.join(CACHE, `catalog-${n}.json`);
  if (!existsSync(file)) await writeCatalog(file, n);
  const t0 = process.hrtime.bigint();
  cli(config, ['catalog', 'load', file, '--json']);
  const loadSeconds = ms(t0) / 1000;
  writeFileSync(done, `${loadSeconds}\n`);
  return { config, loadSeconds };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function get(url) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    http
      .get(url, { agent }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, ms: ms(t0), body: Buffer.concat(chunks).toString() }));
      })
      .on('error', reject);
  });
}

async function measure(url) {
  for (let i = 0; i < 10; i++) await get(url);
  const times = [];
  for (let i = 0; i < SAMPLES; i++) {
    const r = await get(url);
    if (r.status !== 200) throw new Error(`${url}: ${r.status} ${r.body.slice(0, 200)}`);
    times.push(r.ms);
  }
  return { median: median(times), p99: percentile(times, 99) };
}

function queries(n) {
  const reconcile = encodeURIComponent(JSON.stringify({ q0: { query: `anna ${FAMILY[3]}`, limit: 5 } }));
  return {
    'default list': '/api/actors?perPage=25',
    'sortField=name': '/api/actors?perPage=25&sortField=name',
    [`search=${COMMON} (common)`]: `/api/actors?perPage=25&search=${encodeURIComponent(COMMON)}`,
    [`search=${RARE} (rare)`]: `/api/actors?perPage=25&search=${RARE}`,
    'last page': `/api/actors?perPage=25&page=${Math.ceil(n / 25)}`,
    'format=select2': '/api/actors?format=select2',
    'reconcile query': `/api/actors/reconcile?queries=${reconcile}`,
  };
}

function cannon(url) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: 16, duration: ROUND_SECONDS }, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

/** Koa + sqlite3 prepared statements: the daemon's rows and total for ?perPage=25, ORDER BY id. */
async function startReference(file) {
  const { default: Koa } = await import('koa');
  const { default: sqlite3 } = await import('sqlite3');
  const db = new sqlite3.Database(file, sqlite3.OPEN_READONLY);
  const columns =
    'id, type, name, label, alternative_names, variants, abbreviations, date_start, date_end, comment, gnd, sikart, ' +
    'created_at, updated_at';
  const rowsStmt = db.prepare(`SELECT ${columns} FROM actors ORDER BY id LIMIT 25`);
  const countStmt = db.prepare(`SELECT n FROM catalog_counts WHERE name = 'actors'`);
  const all = (stmt) => new Promise((res, rej) => stmt.all((err, rows) => (err ? rej(err) : res(rows))));
  const json = ['label', 'alternative_names', 'variants', 'abbreviations'];
  const app = new Koa();
  app.use(async (ctx) => {
    const [rows, [count]] = await Promise.all([all(rowsStmt), all(countStmt)]);
    for (const r of rows) for (const k of json) r[k] = r[k] === null ? null : JSON.parse(r[k]);
    ctx.body = { data: rows, meta: { page: 1, perPage: 25, total: count.n } };
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => server.close() };
}

export async function runScale() {
  if (PART !== 'throughput') await runQueries();
  if (PART !== 'queries' && SIZES.includes(1000)) await runThroughput();
}

async function runQueries() {
  const table = [];
  const dialects = PG_URL ? ['sqlite', 'pg'] : ['sqlite'];
  for (const dialect of dialects) {
    for (const n of SIZES) {
      const { config, loadSeconds } = await catalogue(n, dialect);
      const { proc, url } = await startDaemon(config, { ...process.env, ARCHIVE_CONFIG: '', DATABASE_URL: '' });
      if (loadSeconds !== null) table.push([dialect, n, 'catalog load (built now), s', loadSeconds.toFixed(1), '']);
      for (const [what, q] of Object.entries(queries(n))) {
        const r = await measure(url + q);
        table.push([dialect, n, what, r.median.toFixed(2), r.p99.toFixed(2)]);
        console.error(`${dialect} ${n} ${what}: ${r.median.toFixed(2)} / ${r.p99.toFixed(2)} ms`);
      }
      proc.kill('SIGTERM');
      await new Promise((r) => proc.on('exit', r));
    }
  }
  console.log('\n| db | actors | query | median ms | p99 ms |\n|---|---|---|---|---|');
  for (const r of table) console.log(`| ${r.join(' | ')} |`);
}

/**
 * GET /api/actors?perPage=25 with 1,000 actors: this checkout's daemon, the variants and the
 * reference, one after the other in each round, the order rotated from round to round.
 */
async function runThroughput() {
  const { config } = await catalogue(1000, 'sqlite');
  const env = { ...process.env, ARCHIVE_CONFIG: '', DATABASE_URL: '' };
  const servers = [];
  for (const [name, bin] of [['daemon'], ...VARIANTS]) {
    const { proc, url } = await startDaemon(config, env, bin && path.resolve(bin));
    servers.push({ name, url: `${url}/api/actors?perPage=25`, close: () => proc.kill('SIGTERM'), proc, total: 0 });
  }
  const ref = await startReference(path.join(CACHE, 'sqlite-1000.sqlite3'));
  servers.push({ name: 'reference', url: ref.url, close: ref.close, total: 0 });
  for (const s of servers) await cannon(s.url);
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order = servers.map((_, i) => servers[(i + r) % servers.length]);
    const line = {};
    for (const s of order) {
      const res = await cannon(s.url);
      if (res.non2xx) throw new Error(`errors during the throughput rounds (${s.name})`);
      s.total += res.requests.average;
      line[s.name] = Math.round(res.requests.average);
    }
    rounds.push(servers.map((s) => line[s.name]).join('/'));
  }
  for (const s of servers) s.close();
  await Promise.all(servers.filter((s) => s.proc).map((s) => new Promise((r) => s.proc.on('exit', r))));
  const reference = servers.at(-1).total;
  console.log(
    `\nGET /api/actors?perPage=25, 1,000 actors, req/s per round (${servers.map((s) => s.name).join('/')}): ` +
      `${rounds.join(' ')}`,
  );
  for (const s of servers.slice(0, -1))
    console.log(
      `${s.name}: ${Math.round(s.total / ROUNDS)} req/s, ratio to the reference ${(s.total / reference).toFixed(2)}` +
        ' (target >= 0.70)',
    );
  console.log(`reference: ${Math.round(reference / ROUNDS)} req/s`);
}
