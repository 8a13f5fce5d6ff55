// Context keys that keep run commands out of the palette when no run could take them (no vscode
// here, so the rules are unit-tested; extension.ts sets the keys whenever the runs change).

export interface RunLike {
  readonly status: string;
  readonly budget?: unknown;
  readonly steps: ReadonlyMap<string, { readonly status: string }>;
}

/** `braid.<key>` → whether some run lets the commands that key guards apply. */
export function paletteContext(runs: readonly RunLike[], retryable: ReadonlySet<string>): Record<string, boolean> {
  const active = (r: RunLike): boolean => r.status === 'running';
  return {
    'braid.anyRunActive': runs.some(active),
    'braid.anyRunAtBudget': runs.some((r) => r.budget !== undefined),
    'braid.anyRunInterrupted': runs.some((r) => r.status === 'interrupted'),
    'braid.anyRunEnded': runs.some((r) => !active(r)),
    'braid.anyRunRetryable': runs.some((r) => !active(r) && [...r.steps.values()].some((s) => retryable.has(s.status))),
  };
}
