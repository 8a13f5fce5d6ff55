// Part 2: the Scheduler's own cost a step (bench/bookkeepingRun.ts), measured on the code as
// shipped: the scheduler bundled by esbuild the way esbuild.mjs builds out/cli.js (platform node,
// target node20, no keepNames) and run by plain node. The same measurement under tsx, which wraps
// every function and class in a `__name` call, is shown beside it.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as esbuild from 'esbuild';
import { measureBookkeeping } from './bookkeepingRun';
import { envInt, envList, goal, table, us } from './stats';

/** The medians from the esbuild bundle of bench/bookkeepingChild.ts, run without tsx. */
async function bundled(sizes: readonly number[], runs: number, k: number): Promise<number[]> {
  const dir = await mkdtemp(join(tmpdir(), 'braid-bench-book-'));
  try {
    const outfile = join(dir, 'bookkeeping.cjs');
    await esbuild.build({
      entryPoints: [join(__dirname, 'bookkeepingChild.ts')],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      logLevel: 'warning',
      legalComments: 'none',
    });
    const env = { ...process.env };
    delete env.NODE_OPTIONS; // a `--import tsx` there would put the wrappers back
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [outfile, sizes.join(','), String(runs), String(k)],
      { env },
    );
    return JSON.parse(stdout) as number[];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function benchBookkeeping(): Promise<void> {
  const sizes = envList('BRAID_BENCH_BOOK_SIZES', [1000, 10000]);
  const runs = envInt('BRAID_BENCH_BOOK_RUNS', 5);
  const k = 4;
  const shipped = await bundled(sizes, runs, k);
  const underTsx = await measureBookkeeping(sizes, runs, k);
  console.log(
    `\n### Scheduler bookkeeping a step (instant fake runner, k = ${k}, median of ${runs} run${runs > 1 ? 's' : ''} a size)\n`,
  );
  console.log(
    'Measured on the esbuild bundle (as shipped, plain node); under tsx beside it. The smaller size shows how the cost grows; the goal is at 10,000 steps.\n',
  );
  const rows = sizes.map((n, i) => {
    const m = shipped[i]!;
    return [
      n.toLocaleString('en-US'),
      us(m),
      `${((m * n) / 1e6).toFixed(2)} s`,
      us(underTsx[i]!),
      n === 10000 ? goal(us(m), m <= 10, '≤ 10 µs') : '',
    ];
  });
  table(['steps', 'per step (bundle)', 'whole run', 'per step under tsx', 'goal'], rows);
}
