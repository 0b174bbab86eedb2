// The reference endpoint of the throughput comparison (bench/scale.js): GET ?perPage=25 of the
// actors list written directly — Koa with sqlite3 prepared statements, or with pg prepared
// (named) statements — the daemon's rows and total, with a fitting ORDER BY, and Anton's derived
// fields added as the daemon adds them, so its answer is byte for byte the daemon's (scale.js
// checks that before measuring). It runs in a process of its own, started like the daemon, and
// prints {"url": …} once listening.
//
//   node bench/reference-server.js <database.sqlite3 | postgres://…> [slug]
import Koa from 'koa';

const [where, slug = 'archive'] = process.argv.slice(2);
const COLUMNS =
  'id, type, name, label, alternative_names, variants, abbreviations, date_start, date_end, comment, gnd, sikart, ' +
  'created_at, updated_at';
const ROWS = `SELECT ${COLUMNS} FROM actors ORDER BY id LIMIT 25`;
const COUNT = `SELECT n FROM catalog_counts WHERE name = 'actors'`;
const JSON_COLUMNS = ['label', 'alternative_names', 'variants', 'abbreviations'];

/** [rows, total] of one request, and how to close the database. */
async function database() {
  if (/^postgres(ql)?:/.test(where)) {
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({ connectionString: where, max: 10 });
    const rows = { name: 'reference_rows', text: ROWS };
    const count = { name: 'reference_count', text: COUNT };
    return {
      read: async () => {
        const [r, c] = await Promise.all([pool.query(rows), pool.query(count)]);
        return [r.rows, Number(c.rows[0].n)];
      },
      close: () => pool.end(),
    };
  }
  const { default: sqlite3 } = await import('sqlite3');
  const db = new sqlite3.Database(where, sqlite3.OPEN_READONLY);
  const rows = db.prepare(ROWS);
  const count = db.prepare(COUNT);
  const all = (stmt) => new Promise((res, rej) => stmt.all((err, r) => (err ? rej(err) : res(r))));
  return {
    read: async () => {
      const [r, c] = await Promise.all([all(rows), all(count)]);
      return [r, c[0].n];
    },
    close: () => new Promise((res) => db.close(res)),
  };
}

const db = await database();
const app = new Koa();
app.use(async (ctx) => {
  const [rows, total] = await db.read();
  for (const r of rows) {
    for (const k of JSON_COLUMNS) r[k] = r[k] === null ? null : JSON.parse(r[k]);
    r.full_id = `${slug}-actors-${r.id}`;
    r.fullname = r.name;
    r.authority_type = r.type;
  }
  ctx.body = { data: rows, meta: { page: 1, perPage: 25, total } };
});
const server = app.listen(0, '127.0.0.1', () =>
  console.log(JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })),
);
process.on('SIGTERM', () => {
  server.close(() => {
    void db.close().then(() => process.exit(0));
  });
});
