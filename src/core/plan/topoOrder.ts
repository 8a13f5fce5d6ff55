// Topological order of the expanded steps, ties broken by file order, so steps that could start
// together are listed (and, at equal priority, started) the way the user wrote them.

/**
 * A topological order, ties broken by file order (a min-heap of ready steps by index); steps on
 * or after a cycle are left out and returned as `cyclic`.
 */
export function topoOrder(
  ids: readonly string[],
  needs: ReadonlyMap<string, readonly string[]>,
): { order: string[]; cyclic: string[] } {
  const index = new Map(ids.map((id, i) => [id, i]));
  const remaining = new Int32Array(ids.length);
  const dependents: number[][] = ids.map(() => []);
  ids.forEach((id, i) => {
    for (const n of needs.get(id) ?? []) {
      const j = index.get(n);
      if (j === undefined) continue;
      remaining[i] = (remaining[i] ?? 0) + 1;
      dependents[j]?.push(i);
    }
  });
  const heap = new MinHeap();
  for (let i = 0; i < ids.length; i++) if (remaining[i] === 0) heap.push(i);
  const order: string[] = [];
  for (let i = heap.pop(); i !== undefined; i = heap.pop()) {
    order.push(ids[i] as string);
    for (const d of dependents[i] ?? []) if (--remaining[d]! === 0) heap.push(d);
  }
  const cyclic = ids.filter((_, i) => remaining[i]! > 0);
  return { order, cyclic };
}

class MinHeap {
  private readonly a: number[] = [];
  push(x: number): void {
    const a = this.a;
    a.push(x);
    for (let i = a.length - 1; i > 0;) {
      const p = (i - 1) >> 1;
      if (a[p]! <= x) break;
      a[i] = a[p]!;
      a[p] = x;
      i = p;
    }
  }
  pop(): number | undefined {
    const a = this.a;
    const top = a[0];
    const last = a.pop();
    if (a.length === 0 || last === undefined) return top;
    a[0] = last;
    for (let i = 0; ;) {
      const l = 2 * i + 1,
        r = l + 1;
      let m = i;
      if (l < a.length && a[l]! < a[m]!) m = l;
      if (r < a.length && a[r]! < a[m]!) m = r;
      if (m === i) break;
      [a[i], a[m]] = [a[m]!, a[i]!];
      i = m;
    }
    return top;
  }
}
