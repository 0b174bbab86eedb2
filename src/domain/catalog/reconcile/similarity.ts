// Name similarity for reconciliation, as a score from 0 to 100 (scoreName). Pure code, no I/O.

/** Case-insensitive, NFKC, whitespace-collapsed: the sense of "exact" here. */
export function normalise(s: string): string {
  return s.normalize('NFKC').toLowerCase().trim().replace(/\s+/g, ' ');
}

/** Also without accents and punctuation: the sense of "the same apart from spelling details". */
export function fold(s: string): string {
  return normalise(s)
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

function bigrams(s: string): Map<string, number> {
  const chars = [...` ${s} `];
  const out = new Map<string, number>();
  for (let i = 0; i + 1 < chars.length; i++) {
    const g = `${chars[i]}${chars[i + 1]}`;
    out.set(g, (out.get(g) ?? 0) + 1);
  }
  return out;
}

/** Sørensen–Dice coefficient of character bigrams (0..1). */
export function dice(a: string, b: string): number {
  const A = bigrams(a);
  const B = bigrams(b);
  let common = 0;
  for (const [g, n] of A) common += Math.min(n, B.get(g) ?? 0);
  // A string of n characters, padded with a space at each end, has n + 1 bigrams.
  return (2 * common) / ([...a].length + [...b].length + 2);
}

/** Jaccard index of the word sets (0..1): "Hans Müller" and "Müller, Hans" score 1. */
export function wordJaccard(a: string, b: string): number {
  const A = new Set(a.split(' ').filter(Boolean));
  const B = new Set(b.split(' ').filter(Boolean));
  if (A.size === 0 || B.size === 0) return 0;
  const common = [...A].filter((w) => B.has(w)).length;
  return common / (A.size + B.size - common);
}

/**
 * 100 for the same name (normalise), 98 apart from spelling details (fold: "Muller Hans" /
 * "Müller, Hans"), else the better of Dice and 0.95 × word Jaccard as a percentage, at most 97.
 */
export function scoreName(query: string, candidate: string): number {
  if (normalise(query) === normalise(candidate)) return 100;
  const fq = fold(query);
  const fc = fold(candidate);
  if (fq !== '' && fq === fc) return 98;
  const similarity = Math.max(dice(fq, fc), 0.95 * wordJaccard(fq, fc));
  return Math.min(97, Math.round(100 * similarity));
}
