// Dates in TEI attributes (issue 9), as pure functions. The API takes `YYYY`, `YYYY-MM` and
// `YYYY-MM-DD` (fields.ts, partialDate), including the year 0000 (ISO 8601's year zero, i.e.
// 1 BCE). TEI's @when/@from/@to are W3C XML Schema 1.0 dates, which have no year zero, so a
// value in year 0000 goes, as given, into the ISO 8601 attributes of the same element
// (@when-iso/@from-iso/@to-iso, att.datable.iso) instead of being reinterpreted as -0001. A value
// that is neither (free text stored before the field was checked) is kept as text.

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
  if (/^-?0000$/.test(y as string)) return false; // XSD 1.0 has no year zero
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

/**
 * The date attributes of one element, e.g. [['when', v]] or [['from', a], ['to', b]], and the
 * free text of the values that fit no attribute. When one value needs the ISO form (year 0000),
 * every value of the element uses it, so an element never mixes the two systems.
 */
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
