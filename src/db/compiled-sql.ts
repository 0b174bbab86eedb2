// SQL of a query shape built with knex once, then reused with each request's values. Building
// and compiling a knex query costs more than running a prepared statement on a small table
// (13 % of the daemon's time in a profile of GET /api/actors); the SQL of a catalogue list
// depends only on its shape (table, sort, whether it searches, which paging), not on its values.
//
// `build` gets stand-ins for the values: unique strings and numbers that cannot be real ones.
// Each binding of the compiled SQL that is a stand-in becomes a slot for that value; any other
// binding is a constant of the shape. A value that knex transformed (a stand-in inside another
// string) is refused: such a value must be computed before it is handed to `build`.
import type { Knex } from 'knex';
import { rememberIn } from '../remembered.js';

/** A query's values; null values are no stand-ins (their absence is part of the shape). */
export type Values = Readonly<Record<string, string | number | null>>;

type Slot = { name: string } | { constant: unknown };

interface Compiled {
  sql: string;
  slots: Slot[];
}

/** Shapes kept (a few dozen are in use; the bound only guards against a mistake in the keys). */
const MAX_SHAPES = 1_000;
const shapes = new Map<string, Compiled>();

// Number stand-ins: a constant of a shape (a fixed LIMIT) is never this large.
const NUMBER_BASE = 1_900_000_000_000;
const MARK = '\u0000';

/**
 * The native SQL (`?` placeholders) and bindings of the query `build` makes for `values`. The
 * same `shape` must always make the same SQL: every choice `build` makes from the values
 * (null or not, which branch) belongs in the shape's name.
 */
export function compiledSql(
  shape: string,
  values: Values,
  build: (values: Values) => Knex.QueryBuilder,
): { sql: string; bindings: unknown[] } {
  const compiled = rememberIn(shapes, MAX_SHAPES, shape, () => compile(values, build));
  return {
    sql: compiled.sql,
    bindings: compiled.slots.map((slot) => ('name' in slot ? values[slot.name] : slot.constant)),
  };
}

function compile(values: Values, build: (values: Values) => Knex.QueryBuilder): Compiled {
  const standIns: Record<string, string | number | null> = {};
  const names = new Map<unknown, string>();
  let n = 0;
  for (const [name, value] of Object.entries(values)) {
    if (value === null) {
      standIns[name] = null;
      continue;
    }
    const standIn = typeof value === 'number' ? NUMBER_BASE + n++ : `${MARK}${name}${MARK}`;
    standIns[name] = standIn;
    names.set(standIn, name);
  }
  const { sql, bindings } = build(standIns).toSQL().toNative();
  const slots = bindings.map((binding): Slot => {
    const name = names.get(binding);
    if (name !== undefined) return { name };
    if (typeof binding === 'string' && binding.includes(MARK)) {
      throw new Error(`a value was transformed while the query was built: ${JSON.stringify(binding)}`);
    }
    return { constant: binding };
  });
  return { sql, slots };
}
