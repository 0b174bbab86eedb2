// Guards for untrusted JSON values: what a parsed body, parameter or stored JSON column holds.

/** A JSON object (not an array, not null, not a class instance). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** JSON text as what `guard` accepts; anything else (not text, not JSON, refused) is null. */
export function parseJsonAs<T>(text: unknown, guard: (v: unknown) => v is T): T | null {
  if (typeof text !== 'string') return null;
  try {
    const v = JSON.parse(text) as unknown;
    return guard(v) ? v : null;
  } catch {
    return null;
  }
}

export const isStringRecord = (v: unknown): v is Record<string, string> =>
  isPlainObject(v) && Object.values(v).every((x) => typeof x === 'string');
export const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
