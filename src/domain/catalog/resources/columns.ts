// How a record's values are stored: each column reads its row value into the record's type and
// writes a checked value back. JSON columns hold text on both dialects; a lower-cased copy of a
// column (`name_lower`) gives case-insensitive search and sort the same meaning on both.
import { parseJsonAs } from '../json-values.js';

export interface Column<T> {
  read(raw: unknown): T;
  /** The stored form of a checked value (identity when absent). */
  write?(value: T): unknown;
  /** A column kept as this one lower-cased, for search and sort. */
  lower?: string;
  /** Whether the stored value may be NULL (a list sorted by it puts NULLs last ascending). */
  nullable?: boolean;
}

/** JSON text column → value; a damaged value reads as null rather than failing the request. */
export const parseJsonColumn = parseJsonAs;

export const idColumn: Column<number> = { read: (raw) => Number(raw) };

/** A column that always holds text (names, timestamps, enums). */
export const textColumn = <T extends string = string>(): Column<T> => ({ read: (raw) => String(raw) as T });

export const optionalText: Column<string | null> = {
  read: (raw) => (typeof raw === 'string' ? raw : null),
  nullable: true,
};

/** A JSON column holding what `guard` accepts (null stays null). */
export const jsonOf = <T>(guard: (v: unknown) => v is T): Column<T | null> => ({
  read: (raw) => parseJsonColumn(raw, guard),
  write: (value) => (value === null ? null : JSON.stringify(value)),
});

export const lowered = <T extends string | null>(column: Column<T>, lower: string): Column<T> => ({ ...column, lower });
