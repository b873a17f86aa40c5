/**
 * "Did you mean": the known word closest to a mistyped one (`acount` → `account`, `lst` →
 * `list`), by edit distance with a swap of two neighbours counting as one edit (optimal string
 * alignment). Only a close one is offered: at most one edit for words up to four letters, two
 * beyond, so `frobnicate` suggests nothing.
 */

function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** The closest of `known` to `word`, when close enough to be a typo; else undefined. */
export function closest(word: string, known: readonly string[]): string | undefined {
  const typed = word.toLowerCase();
  const limit = typed.length <= 4 ? 1 : 2;
  let best: { word: string; distance: number } | undefined;
  for (const candidate of known) {
    const d = distance(typed, candidate);
    if (d <= limit && (!best || d < best.distance)) best = { word: candidate, distance: d };
  }
  return best?.word;
}
