// The Outline and breadcrumbs: one symbol a step, named by its id, with what it runs.
import type { PlanSnapshot } from './planSnapshot';
import type { DocumentSymbol } from './types';

/** Every step of the plan, in file order. */
export function documentSymbols(snap: PlanSnapshot): DocumentSymbol[] {
  const fallbackAgent = snap.declared().defaultAgent ?? 'claude';
  return snap.steps.map(({ facts: f, piece }) => {
    const base = f.kind === 'agent' ? `agent ${f.agent ?? fallbackAgent}` : 'run';
    return {
      name: f.id,
      kind: f.kind,
      detail: f.matrix
        ? `${base} · matrix ×${String(Object.values(f.matrix).reduce((n, v) => n * v.length, 1))}`
        : base,
      range: snap.range(piece, f.span),
      selectionRange: snap.range(piece, f.keySpan),
    };
  });
}
