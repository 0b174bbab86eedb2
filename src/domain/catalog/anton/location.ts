/**
 * Swiss LV95 or LV03 coordinates (Anton's PlaceInput `location`), in either order, as WGS84 degrees to 6
 * decimals (swisstopo's approximate formulas, about a metre); null for anything else.
 */
export function swissToWgs84(raw: string): string | null {
  const parts = raw
    .trim()
    .split(/\s*[,;/]\s*|\s+/)
    .map((p) => p.replace(/['’]/g, ''));
  if (parts.length !== 2 || !parts.every((p) => /^\d{5,7}(?:\.\d{1,3})?$/.test(p))) return null;
  const [a, b] = parts.map(Number) as [number, number];
  const within = (n: number, lo: number, hi: number) => n >= lo && n <= hi;
  let y: number; // easting, relative to Bern, in 1000 km
  let x: number; // northing
  if (within(a, 2_480_000, 2_840_000) && within(b, 1_070_000, 1_300_000)) [y, x] = [a - 2_600_000, b - 1_200_000];
  else if (within(b, 2_480_000, 2_840_000) && within(a, 1_070_000, 1_300_000)) [y, x] = [b - 2_600_000, a - 1_200_000];
  else if (within(a, 480_000, 840_000) && within(b, 70_000, 300_000)) [y, x] = [a - 600_000, b - 200_000];
  else if (within(b, 480_000, 840_000) && within(a, 70_000, 300_000)) [y, x] = [b - 600_000, a - 200_000];
  else return null;
  y /= 1_000_000;
  x /= 1_000_000;
  const lon = 2.6779094 + 4.728982 * y + 0.791484 * y * x + 0.1306 * y * x * x - 0.0436 * y * y * y;
  const lat = 16.9023892 + 3.238272 * x - 0.270978 * y * y - 0.002528 * x * x - 0.0447 * y * y * x - 0.014 * x * x * x;
  const fixed = (n: number) => String(Number(((n * 100) / 36).toFixed(6)));
  return `${fixed(lat)} ${fixed(lon)}`;
}
