// A cap on the problems built for one file. Past it a problem is only counted: no range looked up,
// no message worded, no did-you-mean computed. The lists stay plain Diagnostic arrays; what each
// left unbuilt is kept beside it, for the last line that says how many more there were.
import type { Diagnostic, Severity } from './types';

/**
 * Most problems built (located, worded) for one file; past it they are only counted. Only the
 * first MAX_DIAGNOSTICS are shown, but the list is sorted by position first, so a few times more
 * are kept to sort from. Error-dense text made 562,000 problems and 1.27 GB before this.
 */
export const MAX_BUILT_DIAGNOSTICS = 2_000;

/**
 * The code of the problem at the place where the parse stopped reading (past MAX_BUILT_DIAGNOSTICS
 * syntax errors): listed last whatever the cut, since it says why the list ends there.
 */
export const UNREAD = 'yaml-unread';

export interface Unbuilt {
  errors: number;
  total: number;
}
// What each list left unbuilt, for tidy's last line: the lists stay plain Diagnostic arrays.
const unbuiltOf = new WeakMap<readonly Diagnostic[], Unbuilt>();

/** Counts a problem left unbuilt because `out` is full; returns whether `out` is full. */
export function overCap(out: readonly Diagnostic[], severity: Severity): boolean {
  if (out.length < MAX_BUILT_DIAGNOSTICS) return false;
  let u = unbuiltOf.get(out);
  if (!u) unbuiltOf.set(out, (u = { errors: 0, total: 0 }));
  u.total++;
  if (severity === 'error') u.errors++;
  return true;
}

/** Counts problems another part left unbuilt (yaml's, past parseCapped's cap) against `out`. */
export function countUnbuilt(out: readonly Diagnostic[], errors: number, warnings: number): void {
  if (errors + warnings === 0) return;
  let u = unbuiltOf.get(out);
  if (!u) unbuiltOf.set(out, (u = { errors: 0, total: 0 }));
  u.errors += errors;
  u.total += errors + warnings;
}

/** `lists` joined into one, its unbuilt counts carried over. */
export function joinDiagnostics(...lists: readonly (readonly Diagnostic[])[]): Diagnostic[] {
  const out = lists.flat();
  const sum: Unbuilt = { errors: 0, total: 0 };
  for (const l of lists) {
    const u = unbuiltOf.get(l);
    if (u) {
      sum.errors += u.errors;
      sum.total += u.total;
    }
  }
  if (sum.total > 0) unbuiltOf.set(out, sum);
  return out;
}

/** What `list` left unbuilt. */
export const unbuilt = (list: readonly Diagnostic[]): Unbuilt => unbuiltOf.get(list) ?? { errors: 0, total: 0 };
