// Part: steps left behind by a killed engine. A real `braid run` (the built bundle) with steps
// that ignore TERM, half spawned and half from warm launchers; `kill -9` of the engine, then the
// time until no step process is alive (polled every 10 ms; zombies count as gone).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { engineWithSteps, survivors } from '../test/helpers/engineKill';
import { envInt, fixed, goal, median, quantile, table } from './stats';

export async function benchOrphans(): Promise<void> {
  const root = resolve(__dirname, '..');
  if (spawnSync(process.execPath, ['esbuild.mjs'], { cwd: root, stdio: 'ignore' }).status !== 0)
    throw new Error('esbuild failed');
  const rounds = envInt('BRAID_BENCH_ORPHAN_ROUNDS', 5);
  const steps = 4;
  const times: number[] = [];
  let left = 0;
  for (let i = 0; i < rounds; i++) {
    const dir = mkdtempSync(join(tmpdir(), 'braid-bench-orphans-'));
    try {
      const { engine, pids } = await engineWithSteps(dir, steps);
      const t = performance.now();
      engine.kill('SIGKILL');
      const alive = await survivors(pids, 10_000);
      times.push(performance.now() - t);
      left += alive.length;
      for (const p of alive)
        try {
          process.kill(p, 'SIGKILL');
        } catch {
          /* gone */
        }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const worst = Math.max(...times);
  console.log(`\n### Orphans: kill -9 of the engine with ${steps} TERM-ignoring steps running, ${rounds} rounds`);
  table(
    ['measure', 'value'],
    [
      ['steps alive 10 s after the kill', goal(String(left), left === 0, '0')],
      [
        'time until none is alive, median (p90)',
        `${fixed(median(times) / 1000, 2)} s (${fixed(quantile(times, 0.9) / 1000, 2)} s)`,
      ],
      ['worst', goal(`${fixed(worst / 1000, 2)} s`, worst <= 2000 && left === 0, '≤ 2 s')],
    ],
  );
}
