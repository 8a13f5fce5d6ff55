// "Did you mean" suggestions: only when the closest candidate is near enough that the typo is the
// likely story (a swapped pair of letters is 2 edits), never a random valid word.
import { closest, distance } from 'fastest-levenshtein';

/** The candidate closest to `word`, if it is close enough to be a likely typo. */
export function suggest(word: string, candidates: readonly string[]): string | undefined {
  if (candidates.length === 0 || word === '') return undefined;
  const lower = word.toLowerCase();
  const exactCase = candidates.find((c) => c.toLowerCase() === lower);
  if (exactCase !== undefined && exactCase !== word) return exactCase;
  const best = closest(word, candidates);
  const d = distance(word, best);
  return d > 0 && d <= Math.max(2, Math.floor(word.length / 3)) && d * 2 < Math.max(word.length, best.length)
    ? best
    : undefined;
}

/** The did-you-mean text and the suggestion itself (for a quick fix), as reporter options take it. */
export function hint(word: string, candidates: readonly string[]): { text: string; fix: { suggestion?: string } } {
  const s = suggest(word, candidates);
  return s === undefined ? { text: '', fix: {} } : { text: `; did you mean \`${s}\`?`, fix: { suggestion: s } };
}

/** `; did you mean \`x\`?` for a close candidate, else the empty string. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const s = suggest(word, candidates);
  return s === undefined ? '' : `; did you mean \`${s}\`?`;
}
