// BENCH_ONLY=scale npm run bench: the catalogue read path at archive scale (issue 11). Builds
// catalogues of 1,000, 100,000 and 1,000,000 actors with `archivectl catalog load` (cached in
// bench/.cache/scale between runs: the SQLite files, and PostgreSQL databases named
// archivectl_bench_<DATA>_<n>), then measures through HTTP on 127.0.0.1, one request at a time:
// the default list, sortField=name, searches for a word in 1 % and in 10 % of the names and a
// rare one, the last page, format=select2 and a reconciliation query (median, p99 and max). Then GET /api/actors?perPage=25 with 1,000 actors
// against a reference endpoint on each database (bench/reference-server.js: Koa with sqlite3 or
// pg prepared statements, the same answer byte for byte) in alternating autocannon rounds. Both servers run as processes
// of their own with the same environment; where the machine allows (daemon.js pinningOf) they
// share one CPU and the load generator has another.
//
//   BENCH_SCALE_SIZES=1000,100000   the sizes to build and measure (default all three)
//   BENCH_PG_URL / ARCHIVE_TEST_PG_URL   a PostgreSQL server (its `postgres` database is used
//                                    to create the bench databases); without one, SQLite only
//   BENCH_SAMPLES=200                requests per query
//   BENCH_SCALE_PART=queries|throughput|load   one part only (`load` runs only when asked)
//   BENCH_VARIANTS=before=path/to/bin,…   other builds of archivectl (a bin/archivectl beside
//                                    its dist/) run in the same throughput rounds, and the same
//                                    catalogue loads, to measure what a change bought side by side
//
// The load part (BENCH_SCALE_PART=load, sizes BENCH_SCALE_SIZES, default 100,000 and 1,000,000):
// `catalog load` of n actors into a new database (SQLite, and PostgreSQL when given; or
// BENCH_SCALE_DIALECTS=pg; PostgreSQL's is <BENCH_LOAD_DATABASE>_<n>, by default
// archivectl_bench_load_<n>), by each build in turn: seconds, µs per
// actor and the command's peak RSS (node's own maxRSS, written as it exits); then the same file a
// second time by this checkout's build (every actor already there: skipped).
import { execFile, execFileSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { get, median, memoryOf, ms, percentile, pinningOf, startDaemon, startServer } from './daemon.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'archivectl');
const CACHE = path.join(ROOT, 'bench', '.cache', 'scale');
const SIZES = (process.env.BENCH_SCALE_SIZES ?? '1000,100000,1000000').split(',').map(Number);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const PG_URL = process.env.BENCH_PG_URL ?? process.env.ARCHIVE_TEST_PG_URL ?? null;
const ROUND_SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const PART = process.env.BENCH_SCALE_PART ?? 'all';
/** The catalogues' generation: a change to nameOf() must change it, or old caches are reused. */
const DATA = 'v2';
const VARIANTS = (process.env.BENCH_VARIANTS ?? '')
  .split(',')
  .filter(Boolean)
  .map((v) => v.split('='));

/**
 * The names: one of 40 first names and one of 400 family names, a number; one in 50,000 rare.
 * The family names' stems by share of the catalogue: müller 1 % (10,000 rows at 1M), meier 10 %,
 * schmid 20 %, keller 30 % (sharing müller's trigrams `lle` and `ler`: the index must read past
 * them), weber 39 %.
 */
const FIRST = 'anna beat carla dora emil fritz greta hans ida jakob karl lena max nina otto paul rosa sara theo'
  .split(' ')
  .concat('ursula vera walter xaver yvonne zoe adrian bruno cäcilie dölf elsa franz gerda heidi ivo'.split(' '))
  .concat('jürg kurt lotte marta noah'.split(' '));
const stemOf = (j) => {
  const p = j % 100;
  return p < 1 ? 'müller' : p < 11 ? 'meier' : p < 31 ? 'schmid' : p < 61 ? 'keller' : 'weber';
};
const FAMILY = Array.from({ length: 400 }, (_, j) => `${stemOf(j)}${j}`);
const WORDS = [
  ['müller', '1 %'],
  ['meier', '10 %'],
];
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

/** The PostgreSQL database of the catalogue of n actors. */
const pgDatabase = (n) => `archivectl_bench_${DATA}_${n}`;

/** A catalogue of n actors on a dialect: built once (timed), reused after. */
async function catalogue(n, dialect) {
  mkdirSync(CACHE, { recursive: true });
  const base = path.join(CACHE, `${DATA}-${dialect}-${n}`);
  const config = `${base}.json`;
  const database =
    dialect === 'pg'
      ? { client: 'pg', url: `${PG_URL.replace(/\/[^/]*$/, '')}/${pgDatabase(n)}` }
      : { client: 'sqlite3', filename: `./${DATA}-${dialect}-${n}.sqlite3` };
  writeFileSync(
    config,
    JSON.stringify({ database, dataDir: `./data-${DATA}-${dialect}-${n}`, log: { level: 'info' } }),
  );
  const done = `${base}.built`;
  if (existsSync(done)) return { config, loadSeconds: null };
  if (dialect === 'pg') {
    const { default: pg } = await import('pg');
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${pgDatabase(n)}`);
    await admin.query(`CREATE DATABASE ${pgDatabase(n)}`);
    await admin.end();
  } else rmSync(`${base}.sqlite3`, { force: true });
  cli(config, ['migrate']);
  cli(config, ['account', 'create', 'root', '--role', 'superuser'], { ARCHIVECTL_AS: '' });
  cli(config, ['settings', 'set', 'public_access', 'on']);
  const file = path.join(CACHE, `catalog-${DATA}-${n}.json`);
  if (!existsSync(file)) await writeCatalog(file, n);
  const t0 = process.hrtime.bigint();
  cli(config, ['catalog', 'load', file, '--json']);
  const loadSeconds = ms(t0) / 1000;
  writeFileSync(done, `${loadSeconds}\n`);
  return { config, loadSeconds };
}

async function measure(url) {
  for (let i = 0; i < 10; i++) await get(url);
  const times = [];
  for (let i = 0; i < SAMPLES; i++) {
    const r = await get(url);
    if (r.status !== 200) throw new Error(`${url}: ${r.status} ${r.body.slice(0, 200)}`);
    times.push(r.ms);
  }
  return { median: median(times), p99: percentile(times, 99), max: Math.max(...times) };
}

function queries(n) {
  const reconcile = encodeURIComponent(JSON.stringify({ q0: { query: `anna ${FAMILY[3]}`, limit: 5 } }));
  return {
    'default list': '/api/actors?perPage=25',
    'sortField=name': '/api/actors?perPage=25&sortField=name',
    ...Object.fromEntries(
      WORDS.map(([w, share]) => [`search=${w} (${share})`, `/api/actors?perPage=25&search=${encodeURIComponent(w)}`]),
    ),
    [`search=${RARE} (rare)`]: `/api/actors?perPage=25&search=${RARE}`,
    'last page': `/api/actors?perPage=25&page=${Math.ceil(n / 25)}`,
    'format=select2': '/api/actors?format=select2',
    'reconcile query': `/api/actors/reconcile?queries=${reconcile}`,
  };
}

/**
 * One autocannon round against `url` in a process of its own, on the load generator's CPU where
 * the servers are pinned (the bench's own event loop would otherwise share their core).
 */
function pinnedCannon(url) {
  const bin = path.join(ROOT, 'node_modules', 'autocannon', 'autocannon.js');
  const args = [bin, '-c', '16', '-d', String(ROUND_SECONDS), '-j', url];
  const pinned = pinningOf();
  const [cmd, argv] = pinned ? ['taskset', ['-c', pinned.load, process.execPath, ...args]] : [process.execPath, args];
  return new Promise((resolve, reject) => {
    execFile(cmd, argv, { maxBuffer: 16 * 1024 * 1024 }, (err, stdout) =>
      err ? reject(new Error(`autocannon: ${err.message}`)) : resolve(JSON.parse(stdout)),
    );
  });
}

/** The body of one GET, as text. */
async function bodyOf(url) {
  const r = await get(url);
  if (r.status !== 200) throw new Error(`${url}: ${r.status}`);
  return r.body;
}

export async function runScale() {
  if (PART === 'load') return runLoads();
  if (PART !== 'throughput') await runQueries();
  if (PART !== 'queries' && SIZES.includes(1000)) await runThroughput();
}

/**
 * `catalog load <file>` with `bin` on `config`: seconds, CPU seconds (user and system, which the
 * disk's and other processes' waits leave out) and the command's peak RSS in MB.
 */
function timedLoad(bin, config, file) {
  const usageFile = path.join(CACHE, 'load-usage');
  const preload = path.join(CACHE, 'load-usage.cjs');
  writeFileSync(
    preload,
    `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(usageFile)}, JSON.stringify(process.resourceUsage())));\n`,
  );
  rmSync(usageFile, { force: true });
  const t0 = process.hrtime.bigint();
  const out = execFileSync(process.execPath, [bin, '--config', config, 'catalog', 'load', file, '--json'], {
    // MALLOC_ARENA_MAX=2: as bin/archivectl's interpreter line runs it.
    env: {
      ...process.env,
      ARCHIVE_CONFIG: '',
      DATABASE_URL: '',
      MALLOC_ARENA_MAX: '2',
      NODE_OPTIONS: `--require ${preload}`,
    },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const seconds = ms(t0) / 1000;
  const usage = JSON.parse(readFileSync(usageFile, 'utf8'));
  const cpu = (usage.userCPUTime + usage.systemCPUTime) / 1e6;
  return { seconds, cpu, peakMb: usage.maxRSS / 1024, counts: JSON.parse(out) };
}

const figures = (r, n) => [r.seconds.toFixed(1), r.cpu.toFixed(1), ((r.cpu / n) * 1e6).toFixed(1), r.peakMb.toFixed(0)];

/** A new database for the load of n actors on `dialect`, migrated by `bin`: its config file and how to drop it. */
async function loadTarget(n, dialect, bin) {
  const base = path.join(CACHE, `load-${dialect}-${n}`);
  const config = `${base}.json`;
  const pgName = `${process.env.BENCH_LOAD_DATABASE ?? 'archivectl_bench_load'}_${n}`;
  const admin = async (sql) => {
    const { default: pg } = await import('pg');
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  const database =
    dialect === 'pg'
      ? { client: 'pg', url: `${PG_URL.replace(/\/[^/]*$/, '')}/${pgName}` }
      : { filename: `./load-${dialect}-${n}.sqlite3` };
  const drop = async () => {
    if (dialect === 'pg') await admin(`DROP DATABASE IF EXISTS ${pgName}`);
    else rmSync(`${base}.sqlite3`, { force: true });
  };
  await drop();
  if (dialect === 'pg') await admin(`CREATE DATABASE ${pgName}`);
  writeFileSync(config, JSON.stringify({ database, dataDir: `./load-data-${dialect}-${n}` }));
  execFileSync(process.execPath, [bin, '--config', config, 'migrate'], {
    env: { ...process.env, ARCHIVE_CONFIG: '', DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { config, drop };
}

async function runLoads() {
  const sizes = process.env.BENCH_SCALE_SIZES ? SIZES : [100_000, 1_000_000];
  const builds = [['this checkout', BIN], ...VARIANTS.map(([name, bin]) => [name, path.resolve(bin)])];
  const dialects = (process.env.BENCH_SCALE_DIALECTS ?? (PG_URL ? 'sqlite,pg' : 'sqlite')).split(',');
  const rows = [];
  mkdirSync(CACHE, { recursive: true });
  for (const n of sizes) {
    const file = path.join(CACHE, `catalog-${DATA}-${n}.json`);
    if (!existsSync(file)) await writeCatalog(file, n);
    const mb = statSync(file).size / 1024 / 1024;
    for (const dialect of dialects)
      for (const [name, bin] of builds) {
        const { config, drop } = await loadTarget(n, dialect, bin);
        try {
          const first = timedLoad(bin, config, file);
          if (first.counts.actors !== n) throw new Error(`${name}: loaded ${first.counts.actors} of ${n} actors`);
          rows.push([n, mb.toFixed(0), dialect, name, 'new database', ...figures(first, n)]);
          console.error(
            `${dialect} ${name} ${n}: ${first.seconds.toFixed(1)} s, CPU ${first.cpu.toFixed(1)} s, peak ${first.peakMb.toFixed(0)} MB`,
          );
          if (bin === BIN) {
            const again = timedLoad(bin, config, file);
            if (again.counts.skipped?.actors !== n)
              throw new Error(`the second load skipped ${again.counts.skipped?.actors} of ${n}`);
            rows.push([n, mb.toFixed(0), dialect, name, 'same file again (all skipped)', ...figures(again, n)]);
          }
        } finally {
          await drop();
        }
      }
  }
  console.log(
    '\n| actors | file MB | database | build | load | s | CPU s | CPU µs per actor | peak RSS MB |\n|---|---|---|---|---|---|---|---|---|',
  );
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
}

async function runQueries() {
  const table = [];
  const dialects = PG_URL ? ['sqlite', 'pg'] : ['sqlite'];
  for (const dialect of dialects) {
    for (const n of SIZES) {
      const { config, loadSeconds } = await catalogue(n, dialect);
      const { proc, url } = await startDaemon(config, { ...process.env, ARCHIVE_CONFIG: '', DATABASE_URL: '' });
      if (loadSeconds !== null) table.push([dialect, n, 'catalog load (built now), s', loadSeconds.toFixed(1), '', '']);
      for (const [what, q] of Object.entries(queries(n))) {
        const r = await measure(url + q);
        table.push([dialect, n, what, r.median.toFixed(2), r.p99.toFixed(2), r.max.toFixed(2)]);
        console.error(`${dialect} ${n} ${what}: ${r.median.toFixed(2)} / ${r.p99.toFixed(2)} / ${r.max.toFixed(2)} ms`);
      }
      const { hwm } = memoryOf(proc.pid);
      table.push([dialect, n, 'daemon peak RSS through these queries, MB', hwm.toFixed(1), '', '']);
      proc.kill('SIGTERM');
      await new Promise((r) => proc.on('exit', r));
    }
  }
  console.log('\n| db | actors | query | median ms | p99 ms | max ms |\n|---|---|---|---|---|---|');
  for (const r of table) console.log(`| ${r.join(' | ')} |`);
}

/**
 * GET /api/actors?perPage=25 with 1,000 actors: this checkout's daemon, the variants and the
 * reference, one after the other in each round, the order rotated from round to round.
 */
async function runThroughput() {
  const dialects = PG_URL ? ['sqlite', 'pg'] : ['sqlite'];
  const pinned = pinningOf();
  console.log(
    pinned
      ? `\nservers on CPU ${pinned.server}, load generator on CPU ${pinned.load}`
      : '\nservers and load generator not pinned (one CPU, or no taskset)',
  );
  for (const dialect of dialects) await throughputOn(dialect);
}

/** The daemon (and the variants) against the reference of `dialect`, with 1,000 actors. */
async function throughputOn(dialect) {
  const { config } = await catalogue(1000, dialect);
  const env = { ...process.env, ARCHIVE_CONFIG: '', DATABASE_URL: '' };
  const servers = [];
  for (const [name, bin] of [['daemon'], ...VARIANTS]) {
    const { proc, url } = await startDaemon(config, env, bin && path.resolve(bin), { pin: true });
    servers.push({ name, url: `${url}/api/actors?perPage=25`, proc, total: 0 });
  }
  const database =
    dialect === 'pg'
      ? `${PG_URL.replace(/\/[^/]*$/, '')}/${pgDatabase(1000)}`
      : path.join(CACHE, `${DATA}-sqlite-1000.sqlite3`);
  const ref = await startServer([path.join(ROOT, 'bench', 'reference-server.js'), database], env, { pin: true });
  servers.push({ name: 'reference', url: `${ref.url}/`, proc: ref.proc, total: 0 });
  // The same answer, or the comparison means nothing.
  const expected = await bodyOf(servers.at(-1).url);
  for (const s of servers.slice(0, -1)) {
    if ((await bodyOf(s.url)) !== expected)
      throw new Error(`${dialect}: ${s.name} and the reference answer differently`);
  }
  for (const s of servers) await pinnedCannon(s.url);
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    const order = servers.map((_, i) => servers[(i + r) % servers.length]);
    const line = {};
    for (const s of order) {
      const res = await pinnedCannon(s.url);
      if (res.non2xx || res.errors) throw new Error(`${dialect}: errors during the throughput rounds (${s.name})`);
      s.total += res.requests.average;
      line[s.name] = Math.round(res.requests.average);
    }
    rounds.push(servers.map((s) => line[s.name]).join('/'));
  }
  for (const s of servers) s.proc.kill('SIGTERM');
  await Promise.all(servers.map((s) => new Promise((r) => (s.proc.exitCode !== null ? r() : s.proc.on('exit', r)))));
  const reference = servers.at(-1).total;
  console.log(
    `${dialect}: GET /api/actors?perPage=25, 1,000 actors, req/s per round (${servers.map((s) => s.name).join('/')}): ` +
      `${rounds.join(' ')}`,
  );
  for (const s of servers.slice(0, -1))
    console.log(
      `${dialect}: ${s.name}: ${Math.round(s.total / ROUNDS)} req/s, ratio to the reference ` +
        `${(s.total / reference).toFixed(2)} (target >= 0.65)`,
    );
  console.log(`${dialect}: reference: ${Math.round(reference / ROUNDS)} req/s`);
}
