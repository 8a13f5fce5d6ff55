// What a user weighs when choosing between drafts of one goal, from each plan's compiled graph:
// how many steps, the longest chain (the critical path, in steps: what bounds the run however many
// run at once), and how many steps run at once on average when steps take equal time.
import { formatUsd } from '../format';
import type { Graph } from '../plan/types';
import { DEFAULT_CONCURRENCY } from '../engine/scheduling/schedulerOptions';

export interface DraftShape {
  readonly steps: number;
  /** The longest chain of needs, counted in steps (the largest step depth). */
  readonly criticalPath: number;
  /** Steps ÷ critical path, at most the plan's concurrency: the average width of the run. */
  readonly parallelism: number;
  /** The agents the plan's steps use, in plan order (none: shell steps only). */
  readonly agents: readonly string[];
}

/** The shape of a valid draft's graph. */
export function draftShape(graph: Graph): DraftShape {
  const steps = graph.order.length;
  let criticalPath = 0;
  const agents: string[] = [];
  for (const id of graph.order) {
    const s = graph.steps.get(id)!;
    criticalPath = Math.max(criticalPath, s.depth);
    if (s.agent !== undefined && !agents.includes(s.agent)) agents.push(s.agent);
  }
  const cap = graph.plan.concurrency ?? DEFAULT_CONCURRENCY;
  const parallelism = criticalPath === 0 ? 0 : Math.min(cap, steps / criticalPath);
  return { steps, criticalPath, parallelism: Math.round(parallelism * 10) / 10, agents };
}

/** One draft in a comparison: its number (1-based, as drafted), who drafted it, and how it came out. */
export interface ComparedDraft {
  readonly index: number;
  readonly agent: string;
  readonly file: string;
  readonly ok: boolean;
  /** Present when ok. */
  readonly shape?: DraftShape;
  /** Why it is not valid: its first problem. */
  readonly problem?: string;
  /** What drafting it cost, when its agent reports cost (claude does; codex and gemini do not). */
  readonly costUsd?: number;
}

const pad = (s: string, n: number): string => s + ' '.repeat(Math.max(0, n - s.length));

/** The drafts side by side as text: one row a draft, columns aligned; an invalid draft's first problem on the line below it. */
export function comparisonTable(
  drafts: readonly ComparedDraft[],
  showFile: (file: string) => string = (f) => f,
): string {
  // Drafting costs N sessions: the cost column shows when an agent reported one.
  const costs = drafts.some((d) => d.costUsd !== undefined);
  const header = ['#', 'agent', 'steps', 'critical path', 'parallel', 'valid', ...(costs ? ['cost'] : []), 'file'];
  const rows = drafts.map((d) => [
    String(d.index),
    d.agent,
    d.shape ? String(d.shape.steps) : '–',
    d.shape ? String(d.shape.criticalPath) : '–',
    d.shape ? `≈ ${d.shape.parallelism.toFixed(1)}` : '–',
    d.ok ? 'yes' : 'no',
    ...(costs ? [d.costUsd !== undefined ? formatUsd(d.costUsd) : '–'] : []),
    showFile(d.file),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => pad(c, widths[i]!))
      .join('  ')
      .trimEnd();
  const out = [line(header)];
  drafts.forEach((d, i) => {
    out.push(line(rows[i]!));
    if (!d.ok && d.problem) out.push(`   └ ${d.problem}`);
  });
  return out.join('\n') + '\n';
}
