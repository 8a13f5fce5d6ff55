// Part 4: load and validate a 5,000-step plan: YAML text made in memory from a random DAG, then
// compilePlan (parse with ranges, zod schema, expansion, graph checks, templates, warnings, Graph).
import { compilePlan } from '../src/core/plan/compile';
import { randomDag } from './scheduler';
import { envInt, goal, median, ms, quantile, table } from './stats';

/** A plan with a random DAG's needs, a `run`, an env template and a write set a step. */
export function planYaml(n: number, seed: number): string {
  const { graph } = randomDag(n, seed);
  const lines = ['version: 1', `name: load-${n}`, 'concurrency: 8', 'env:', '  GREETING: hello', 'steps:'];
  for (const id of graph.order) {
    const step = graph.steps.get(id)!;
    lines.push(`  ${id}:`, `    run: echo "$GREETING" ${id}`, `    writes: [out/${id}/**]`);
    if (step.needs.length > 0) lines.push(`    needs: [${step.needs.join(', ')}]`);
  }
  return lines.join('\n') + '\n';
}

export async function benchPlanLoad(): Promise<void> {
  const n = envInt('BRAID_BENCH_LOAD_STEPS', 5000);
  const runs = envInt('BRAID_BENCH_LOAD_RUNS', 5);
  const text = planYaml(n, 31337);
  const first = compilePlan('bench.braid.yaml', text); // also the warm-up
  const errors = first.diagnostics.filter((d) => d.severity === 'error');
  if (!first.graph || errors.length > 0) throw new Error(`generated plan is invalid: ${errors[0]?.message}`);
  const xs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    compilePlan('bench.braid.yaml', text);
    xs.push(performance.now() - t);
  }
  const m = median(xs);
  console.log(
    `\n### Load and validate a ${n.toLocaleString('en-US')}-step plan (${(text.length / 1024).toFixed(0)} KiB of YAML, compilePlan, ${runs} runs after a warm-up)\n`,
  );
  table(
    ['steps', 'median', 'max', 'goal'],
    [[n.toLocaleString('en-US'), ms(m), ms(quantile(xs, 1)), goal(ms(m), m < 1000, '< 1 s')]],
  );
}
