// Part: export a 1,000-step plan to a GitHub Actions workflow (src/core/export): a random DAG
// of shell steps reading their first need's output, with retries, checks, timeouts, an agent
// step every 25th, and a matrix group of 20. Times exportGithubActions on the compiled graph.
import { exportGithubActions } from '../src/core/export/githubActions';
import { compilePlan } from '../src/core/plan/compile';
import { randomDag } from './scheduler';
import { envInt, goal, median, ms, quantile, table } from './stats';

/** The plan's YAML text: `n` steps, `matrix` of them one matrix group. */
export function exportPlanYaml(n: number, seed: number, matrix = 20): string {
  const { graph } = randomDag(n - matrix + 1, seed);
  const lines = ['version: 1', `name: export-${n}`, 'concurrency: 8', 'env:', '  GREETING: hello', 'steps:'];
  graph.order.forEach((id, i) => {
    const step = graph.steps.get(id)!;
    lines.push(`  ${id}:`);
    if (step.needs.length > 0) lines.push(`    needs: [${step.needs.join(', ')}]`);
    // An instance of the matrix group, which has no output of its own.
    const from = step.needs[0] === graph.order[0] ? `${step.needs[0]}-1` : step.needs[0];
    if (i === 0) {
      lines.push(
        '    matrix:',
        `      shard: [${Array.from({ length: matrix }, (_, k) => k + 1).join(', ')}]`,
        '    run: echo "shard ${{ matrix.shard }}"',
      );
    } else if (i % 25 === 0) {
      const prompt = `Review the change of step ${id}.${from ? ` It said: \${{ steps.${from}.output }}` : ''}`;
      lines.push('    agent: claude', `    prompt: ${JSON.stringify(prompt)}`, `    writes: [src/${id}/**]`);
    } else {
      lines.push(`    run: echo "$GREETING ${id}"${from ? ` "\${{ steps.${from}.output }}"` : ''}`);
      if (i % 7 === 0) lines.push('    retries: 2', '    retry-delay: 5s');
      if (i % 11 === 0) lines.push(`    check: test -d src`, '    timeout: 10m');
    }
  });
  return lines.join('\n') + '\n';
}

export async function benchExport(): Promise<void> {
  const n = envInt('BRAID_BENCH_EXPORT_STEPS', 1000);
  const runs = envInt('BRAID_BENCH_EXPORT_RUNS', 7);
  const text = exportPlanYaml(n, 4242);
  const compiled = compilePlan('bench/export.braid.yaml', text, { isGit: true });
  if (!compiled.graph)
    throw new Error(`generated plan is invalid: ${compiled.diagnostics.find((d) => d.severity === 'error')?.message}`);
  const graph = compiled.graph;
  const first = exportGithubActions(graph, { planPath: 'bench/export.braid.yaml' }); // also the warm-up
  const xs: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const c = process.cpuUsage();
    const t = performance.now();
    const again = exportGithubActions(graph, { planPath: 'bench/export.braid.yaml' });
    xs.push(performance.now() - t);
    const used = process.cpuUsage(c);
    cpu.push((used.user + used.system) / 1000);
    if (again.yaml !== first.yaml) throw new Error('export is not stable: two exports of one plan differ');
  }
  const m = median(xs);
  // Timing is the claim here; GitHub's own limits (500 KB a file) are the export's problems to report.
  for (const p of first.problems) console.error(`[bench] export: ${p}`);
  console.log(
    `\n### Export a ${graph.order.length.toLocaleString('en-US')}-step plan to GitHub Actions (exportGithubActions on the compiled plan, ${runs} runs after a warm-up)\n`,
  );
  // The process's CPU time beside the wall clock: on a shared machine the gap is other processes' turn.
  table(
    ['steps', 'jobs', 'workflow', 'median', 'max', 'CPU time, median', 'goal'],
    [
      [
        graph.order.length.toLocaleString('en-US'),
        first.jobs.toLocaleString('en-US'),
        `${(Buffer.byteLength(first.yaml) / 1024 / 1024).toFixed(1)} MiB`,
        ms(m),
        ms(quantile(xs, 1)),
        ms(median(cpu)),
        goal(ms(m), m <= 1000, '≤ 1 s'),
      ],
    ],
  );
}
