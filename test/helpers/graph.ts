// Hand-built Graphs for tests that need a compiled plan without going through the loader.
import { PRESETS } from '../../src/core/agents/presets';
import type { Graph, GraphStep, PlanInfo } from '../../src/core/plan/types';
import type { AgentDef } from '../../src/core/agents/agentDef';

export type StepSpec = Partial<GraphStep> & { id: string };

export interface MakeGraphOptions {
  readonly plan?: Partial<PlanInfo>;
  readonly agents?: Readonly<Record<string, AgentDef>>;
}

/**
 * A Graph from partial steps: defaults filled in (kind from `prompt`/`run`, agent `claude` for
 * prompts, `shared` isolation, no retries…), then dependents, depth and a topological order
 * (ties by the order given) computed as the compiler does. Given `dependents`/`depth` are
 * ignored. Throws on an unknown need or a cycle: a broken fixture is a bug in the test.
 */
export function makeGraph(specs: readonly StepSpec[], opts: MakeGraphOptions = {}): Graph {
  const index = new Map(specs.map((s, i) => [s.id, i]));
  if (index.size !== specs.length) throw new Error('makeGraph: duplicate step id');
  for (const s of specs) {
    for (const n of s.needs ?? []) if (!index.has(n)) throw new Error(`makeGraph: ${s.id} needs unknown ${n}`);
  }
  const dependents = new Map<string, string[]>(specs.map((s) => [s.id, []]));
  for (const s of specs) for (const n of s.needs ?? []) dependents.get(n)?.push(s.id);

  // Kahn's algorithm, always taking the earliest-given ready step.
  const remaining = new Map(specs.map((s) => [s.id, new Set(s.needs ?? []).size]));
  const order: string[] = [];
  while (order.length < specs.length) {
    const next = specs.find((s) => remaining.get(s.id) === 0);
    if (!next)
      throw new Error(
        `makeGraph: cycle among ${specs
          .filter((s) => !order.includes(s.id))
          .map((s) => s.id)
          .join(', ')}`,
      );
    order.push(next.id);
    remaining.set(next.id, -1);
    for (const d of new Set(dependents.get(next.id))) remaining.set(d, (remaining.get(d) ?? 0) - 1);
  }

  const depth = new Map<string, number>();
  for (const id of [...order].reverse()) {
    const ds = dependents.get(id) ?? [];
    depth.set(id, 1 + Math.max(0, ...ds.map((d) => depth.get(d) ?? 0)));
  }

  const steps = new Map<string, GraphStep>();
  specs.forEach((s, i) => {
    const kind = s.kind ?? (s.prompt !== undefined ? 'prompt' : 'run');
    const step: GraphStep = {
      name: s.id,
      env: {},
      writes: [],
      reads: [],
      isolation: 'shared',
      copy: [],
      symlink: [],
      sparse: [],
      retries: 0,
      retryDelayMs: 2000,
      continueOnError: false,
      review: false,
      if: 'success',
      range: { start: { line: i, column: 2 }, end: { line: i, column: 2 + s.id.length } },
      ...(kind === 'prompt' ? { prompt: `do ${s.id}`, agent: 'claude' } : { run: 'true' }),
      ...s,
      kind,
      needs: [...new Set(s.needs ?? [])].sort(),
      dependents: [...(dependents.get(s.id) ?? [])].sort(),
      depth: depth.get(s.id) ?? 1,
    };
    steps.set(s.id, step);
  });

  const plan: PlanInfo = { file: 'test.braid.yaml', name: 'test', version: 1, env: {}, pools: {}, ...opts.plan };
  return { plan, agents: opts.agents ?? PRESETS, steps, order };
}

/** The steps of one matrix group, ids `<group>-<value>`, for a single-key matrix. */
export function matrixSteps(
  group: string,
  key: string,
  values: readonly string[],
  extra: Partial<GraphStep> = {},
): StepSpec[] {
  return values.map((v) => ({ ...extra, id: `${group}-${v}`, matrix: { group, values: { [key]: v } } }));
}
