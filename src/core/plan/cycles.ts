// Naming the cycles a topological sort could not get past. Each strongly connected component is
// one problem, named as one closed walk in run order (`a → b → c → a`: b needs a, c needs b, a
// needs c), starting at the member the user wrote first, so the message is stable and short.

/**
 * The cycles among `cyclic` (steps a topological sort left over), one per strongly connected
 * component, each starting and ending at its first member in `fileOrder`.
 */
export function findCycles(
  cyclic: readonly string[],
  needs: ReadonlyMap<string, readonly string[]>,
  fileOrder: ReadonlyMap<string, number>,
): string[][] {
  const inSet = new Set(cyclic);
  const cycles: string[][] = [];
  for (const scc of components(cyclic, (id) => (needs.get(id) ?? []).filter((n) => inSet.has(n)))) {
    // Steps that only depend on a cycle are left over too, as components of one without a self-edge.
    if (scc.length < 2) continue;
    const members = new Set(scc);
    const start = scc.reduce((a, b) => ((fileOrder.get(a) ?? 0) <= (fileOrder.get(b) ?? 0) ? a : b));
    cycles.push(shortestLoop(start, (id) => (needs.get(id) ?? []).filter((n) => members.has(n))).reverse());
  }
  return cycles.sort((a, b) => (fileOrder.get(a[0] ?? '') ?? 0) - (fileOrder.get(b[0] ?? '') ?? 0));
}

/** Tarjan's algorithm without recursion (a 5,000-step chain would overflow the stack). */
function components(ids: readonly string[], next: (id: string) => readonly string[]): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out: string[][] = [];
  for (const root of ids) {
    if (index.has(root)) continue;
    const work: Array<{ id: string; edges: readonly string[]; at: number }> = [];
    const open = (id: string) => {
      index.set(id, index.size);
      low.set(id, index.get(id)!);
      stack.push(id);
      onStack.add(id);
      work.push({ id, edges: next(id), at: 0 });
    };
    open(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      if (frame.at < frame.edges.length) {
        const n = frame.edges[frame.at++]!;
        if (!index.has(n)) open(n);
        else if (onStack.has(n)) low.set(frame.id, Math.min(low.get(frame.id)!, index.get(n)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.id, Math.min(low.get(parent.id)!, low.get(frame.id)!));
      if (low.get(frame.id) === index.get(frame.id)) {
        const scc: string[] = [];
        for (;;) {
          const x = stack.pop()!;
          onStack.delete(x);
          scc.push(x);
          if (x === frame.id) break;
        }
        out.push(scc);
      }
    }
  }
  return out;
}

/** The shortest walk `start → … → start` along `next` (breadth first); `start` is on a cycle. */
function shortestLoop(start: string, next: (id: string) => readonly string[]): string[] {
  const parent = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const id = queue[i]!;
    for (const n of next(id)) {
      if (n === start) {
        const path = [start];
        for (let x: string | undefined = id; x !== undefined && x !== start; x = parent.get(x)) path.push(x);
        path.push(start);
        // Built backwards from the closing edge; put it in walk order.
        return [path[0]!, ...path.slice(1, -1).reverse(), start];
      }
      if (!parent.has(n) && n !== start) {
        parent.set(n, id);
        queue.push(n);
      }
    }
  }
  return [start, start];
}
