// "Is a among b's transitive needs?" for the checks that ask it many times (templates naming a
// step's output, pairs of steps that may run at once). One pass over the topological order builds,
// for every step, a bitset of the *relevant* steps above it, so a 5,000-step plan costs
// steps × relevant / 32 words, and each query is one bit test.

export interface Reach {
  /** True when `ancestor` is among `step`'s needs, directly or not. */
  isAncestor(ancestor: string, step: string): boolean;
}

/**
 * Bitset reachability over an acyclic graph given in topological order. Only ids in `relevant`
 * can be asked about as ancestors (others answer through the slow path).
 */
export function reachability(
  order: readonly string[],
  needs: ReadonlyMap<string, readonly string[]>,
  relevant: Iterable<string>,
): Reach {
  const bit = new Map<string, number>();
  for (const id of relevant) if (!bit.has(id)) bit.set(id, bit.size);
  const words = Math.ceil(bit.size / 32);
  const sets = new Map<string, Uint32Array>();
  // Steps with no relevant ancestor share one empty set, so a mostly-unrelated plan stays small.
  const empty = new Uint32Array(words);
  for (const id of order) {
    let own: Uint32Array | undefined;
    for (const n of needs.get(id) ?? []) {
      const above = sets.get(n) ?? empty;
      const b = bit.get(n);
      if (above === empty && b === undefined) continue;
      own ??= new Uint32Array(words);
      if (above !== empty) for (let w = 0; w < words; w++) own[w]! |= above[w]!;
      if (b !== undefined) own[b >>> 5]! |= 1 << (b & 31);
    }
    sets.set(id, own ?? empty);
  }
  const slow = slowReach(needs);
  return {
    isAncestor(ancestor, step) {
      const b = bit.get(ancestor);
      const set = sets.get(step);
      if (b === undefined || set === undefined) return slow.isAncestor(ancestor, step);
      return ((set[b >>> 5] ?? 0) & (1 << (b & 31))) !== 0;
    },
  };
}

/** Reachability by search, memoised per step: for graphs with cycles, or ids outside the relevant set. */
export function slowReach(needs: ReadonlyMap<string, readonly string[]>): Reach {
  const memo = new Map<string, Set<string>>();
  const ancestors = (step: string): Set<string> => {
    let seen = memo.get(step);
    if (seen) return seen;
    seen = new Set<string>();
    const stack = [...(needs.get(step) ?? [])];
    while (stack.length > 0) {
      const id = stack.pop() as string;
      if (seen.has(id)) continue;
      seen.add(id);
      for (const n of needs.get(id) ?? []) if (!seen.has(n)) stack.push(n);
    }
    memo.set(step, seen);
    return seen;
  };
  return { isAncestor: (ancestor, step) => ancestors(step).has(ancestor) };
}
