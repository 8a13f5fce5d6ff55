// Which steps the write-set locks will keep apart: pairs that may run at once (neither needs the
// other) but whose locks conflict. The graph panel draws them before a run, so the user sees which
// steps will wait for each other and why. Pairwise, so bounded like the validation warnings.
// Two worktree steps are no pair: each works in its own tree and locks only its merge-back, so
// they run at once and at most their landings take turns.
import { lockConflict } from '../paths/overlap';
import type { Graph } from './types';

export interface LockPair {
  readonly a: string;
  readonly b: string;
  /** The two globs that overlap. */
  readonly paths: readonly [string, string];
}

const MAX_LOCKERS = 400;

/** Conflicting pairs in graph order; empty past MAX_LOCKERS steps with locks (too many to draw). */
export function lockPairs(graph: Graph): LockPair[] {
  const lockers = graph.order.filter((id) => {
    const s = graph.steps.get(id)!;
    return s.writes.length > 0 || s.reads.length > 0;
  });
  if (lockers.length < 2 || lockers.length > MAX_LOCKERS) return [];
  const ancestors = new Map<string, Set<string>>();
  // graph.order is topological: a step's needs have their ancestor sets already.
  for (const id of graph.order) {
    const set = new Set<string>();
    for (const need of graph.steps.get(id)!.needs) {
      set.add(need);
      for (const a of ancestors.get(need) ?? []) set.add(a);
    }
    ancestors.set(id, set);
  }
  const out: LockPair[] = [];
  for (let i = 0; i < lockers.length; i++) {
    const a = graph.steps.get(lockers[i]!)!;
    for (let j = i + 1; j < lockers.length; j++) {
      const b = graph.steps.get(lockers[j]!)!;
      if (ancestors.get(a.id)!.has(b.id) || ancestors.get(b.id)!.has(a.id)) continue;
      if (a.isolation === 'worktree' && b.isolation === 'worktree') continue;
      const hit = lockConflict(a.writes, a.reads, b.writes, b.reads);
      if (hit) out.push({ a: a.id, b: b.id, paths: hit });
    }
  }
  return out;
}
