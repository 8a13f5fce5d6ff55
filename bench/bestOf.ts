// Best-of with pick: first, real processes and real git: alternatives of 0.5 s, 3 s and 3 s race
// in their own worktrees; the step should end with the fastest (killing the two slow ones), not
// with the slowest. Beside it: the fastest alternative alone, as a plain worktree step.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runPlan } from '../src/core/engine/runPlan';
import type { EngineEvent } from '../src/core/engine/types';
import { envInt, fixed, goal, median, ms, table } from './stats';

const PLANS = {
  'best-of 3 (0.5 s, 3 s, 3 s)': [
    'version: 1',
    'steps:',
    '  race:',
    '    best-of: 3',
    '    isolation: worktree',
    '    run: if [ "$BRAID_ALTERNATIVE" = 1 ]; then sleep 0.5; else sleep 3; fi; echo "alt $BRAID_ALTERNATIVE" > out.txt',
    '',
  ],
  'the fastest alone (0.5 s)': [
    'version: 1',
    'steps:',
    '  race:',
    '    isolation: worktree',
    '    run: sleep 0.5; echo one > out.txt',
    '',
  ],
};

/** Step time (its `running` event to its end event) of one run of `plan` in a fresh repository. */
async function stepTime(lines: readonly string[]): Promise<number> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'braid-bench-bestof-')));
  const git = (args: string[]) =>
    execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@localhost', '-c', 'commit.gpgsign=false', ...args], {
      cwd: dir,
    });
  try {
    git(['init', '-q']);
    writeFileSync(join(dir, 'p.braid.yaml'), lines.join('\n'));
    git(['add', '.']);
    git(['commit', '-qm', 'plan']);
    let start = 0,
      end = 0;
    const onEvent = (e: EngineEvent) => {
      if (e.type !== 'step') return;
      if (e.status === 'running' && start === 0) start = performance.now();
      if (e.status === 'succeeded') end = performance.now();
    };
    const r = await runPlan({ planFile: join(dir, 'p.braid.yaml'), workspace: dir, graceMs: 500, onEvent });
    if (!r.ok || r.result.status !== 'succeeded')
      throw new Error(`bench run failed: ${JSON.stringify(r.ok ? r.record.steps : r)}`);
    return end - start;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchBestOf(): Promise<void> {
  const runs = envInt('BRAID_BENCH_BESTOF_RUNS', 3);
  console.log(`\n### Best of N, pick first (real processes and worktrees, median of ${runs} runs)\n`);
  console.log(
    'The step from its start to its end (worktrees made, the winner merged back, the two 3 s losers killed),',
  );
  console.log(
    'beside the fastest alternative run alone as a plain worktree step. Goal: best-of ≤ 1.2 × the fastest alone.\n',
  );
  const times: Record<string, number[]> = {};
  for (let i = 0; i < runs; i++) {
    for (const [name, lines] of Object.entries(PLANS)) (times[name] ??= []).push(await stepTime(lines));
  }
  const [raced, alone] = Object.values(times).map(median) as [number, number];
  table(
    ['step', 'time (median)'],
    Object.entries(times).map(([name, xs]) => [name, ms(median(xs))]),
  );
  console.log(`\nbest-of ÷ fastest alone: ${goal(fixed(raced / alone, 2), raced <= 1.2 * alone, '≤ 1.2')}`);
}
