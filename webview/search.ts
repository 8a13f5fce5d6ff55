// Finding a step in a big graph by name or id. Pure: unit-tested in Node.

export interface Searchable {
  readonly stepId: string;
  readonly name: string;
  readonly agent?: string | undefined;
  readonly group?: string | undefined;
}

/** Step ids matching `query` (case-insensitive), best first: exact, then prefix, then substring; ties in graph order. */
export function findSteps(items: readonly Searchable[], query: string): string[] {
  const q = query.trim().toLowerCase();
  if (q === '') return [];
  const ranked: { id: string; rank: number; order: number }[] = [];
  items.forEach((it, order) => {
    const fields = [it.stepId, it.name, it.group ?? '', it.agent ?? ''].map((f) => f.toLowerCase());
    let rank = Infinity;
    for (const f of fields) {
      if (f === q) rank = Math.min(rank, 0);
      else if (f.startsWith(q)) rank = Math.min(rank, 1);
      else if (f.includes(q)) rank = Math.min(rank, 2);
    }
    if (rank !== Infinity) ranked.push({ id: it.stepId, rank, order });
  });
  ranked.sort((a, b) => a.rank - b.rank || a.order - b.order);
  return ranked.map((r) => r.id);
}

/** The match after `current` (wrapping), or the first: Enter in the search box steps through them. */
export function nextMatch(matches: readonly string[], current: string | undefined): string | undefined {
  if (matches.length === 0) return undefined;
  const i = current === undefined ? -1 : matches.indexOf(current);
  return matches[(i + 1) % matches.length];
}
