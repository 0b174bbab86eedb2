// Dates in TEI attributes. Year 0000 (ISO 8601's 1 BCE), which XML Schema dates lack, goes as given into -iso.

const W3C_DATE = /^(-?\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/;

function isCalendarDate(year: number, mo: string | undefined, d: string | undefined): boolean {
  if (mo === undefined) return true;
  const month = Number(mo);
  if (month < 1 || month > 12) return false;
  if (d === undefined) return true;
  const probe = new Date(0);
  probe.setUTCFullYear(year, month, 0); // day 0 of the next month: the last day of this one
  const day = Number(d);
  return day >= 1 && day <= probe.getUTCDate();
}

/** Whether `s` is an xsd:gYear, xsd:gYearMonth or xsd:date (what TEI's @when/@from/@to take): no year zero. */
export function isW3cDate(s: string): boolean {
  const m = W3C_DATE.exec(s);
  if (!m) return false;
  const [, y, mo, d] = m;
  if (/^-?0000$/.test(y as string)) return false;
  return isCalendarDate(Number(y), mo, d);
}

/** Whether `s` is a date the API accepts in year 0000 (ISO 8601 year zero), for the -iso attributes. */
export function isIsoYearZeroDate(s: string): boolean {
  const m = /^0000(?:-(\d{2})(?:-(\d{2}))?)?$/.exec(s);
  return m !== null && isCalendarDate(0, m[1], m[2]);
}

const dateKind = (v: string) => (isW3cDate(v) ? 'w3c' : isIsoYearZeroDate(v) ? 'iso' : 'text');

/** A trimmed value, or null when there is nothing. */
export const clean = (s: string | null | undefined): string | null => (s && s.trim() !== '' ? s.trim() : null);

/** An element's date attributes and the free text of values that fit none; ISO form for all if one needs it. */
export function dateAttributes(values: readonly (readonly [name: string, value: string | null])[]) {
  const present = values
    .map(([name, v]) => [name, clean(v)] as const)
    .filter((p): p is readonly [string, string] => p[1] !== null);
  const iso = present.some(([, v]) => dateKind(v) === 'iso');
  const attrs: [string, string | null][] = [];
  const free: string[] = [];
  for (const [name, v] of present) {
    if (dateKind(v) === 'text') free.push(v);
    else attrs.push([iso ? `${name}-iso` : name, v]);
  }
  return { attrs, free };
}
