// Calendar dates (YYYY-MM-DD, UTC) as the CLI takes them.

/** The midnight UTC instant of a real calendar date, or null (`2038-02-30`, `tomorrow`, …). */
export function parseDate(text: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const at = new Date(Date.UTC(y, mo - 1, d));
  // Date.UTC rolls 02-30 over to 03-02; a real date survives the round trip unchanged.
  if (at.getUTCFullYear() !== y || at.getUTCMonth() !== mo - 1 || at.getUTCDate() !== d) return null;
  return at;
}

export function addDays(at: Date, days: number): Date {
  return new Date(at.getTime() + days * 86_400_000);
}
