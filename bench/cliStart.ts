// Part: how fast the `braid` command starts. `node -e 0` (Node's own start) beside `braid validate`
// of a one-step plan, `braid run` of a one-step `true` plan and `braid --help`, run in turns in one
// git workspace, each the median of BRAID_BENCH_CLI_RUNS (15) runs; goals as ratios to `node -e 0`.
// The code cache (src/cli/bin.ts) lives in a folder of this run: warm after the warm-up round, as
// every start but a command's first after an install is; the rows "no code cache" are that first start.
// BRAID_BENCH_CLI_BASE=other/cli.js adds another build's column, its commands in the same rounds
// (docs/decisions/cli-start.md: main's build beside this one).
// Beside the wall time, each process's own CPU time (user + system, read as it exits by a file it
// --requires, in every row alike): on a loaded machine the wall ratio swings with the scheduler,
// the CPU ratio much less; the goals stay on wall time.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { envInt, fixed, goal, median, ms, table } from './stats';

interface Row {
  readonly name: string;
  readonly args: readonly string[];
  readonly goal?: number;
  readonly env?: Readonly<Record<string, string>>;
}

const CPU_HOOK = `process.on('exit', () => { const u = process.cpuUsage(); require('node:fs').writeSync(2, 'braid-bench-cpu ' + (u.user + u.system) / 1000 + '\\n'); });\n`;

/** One run: its wall time and its own CPU time, in ms. */
function timeOnce(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv, hook: string) {
  const t = performance.now();
  const r = spawnSync(process.execPath, ['--require', hook, ...args], {
    cwd,
    stdio: ['ignore', 'ignore', 'pipe'],
    env,
    encoding: 'utf8',
  });
  const took = performance.now() - t;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { wall: took, cpu: Number(/^braid-bench-cpu (\S+)$/m.exec(r.stderr)?.[1]) };
}

export async function benchCliStart(): Promise<void> {
  const root = resolve(__dirname, '..');
  if (spawnSync(process.execPath, ['esbuild.mjs'], { cwd: root, stdio: 'ignore' }).status !== 0)
    throw new Error('esbuild failed');
  const cli = join(root, 'out/cli.js');
  const runs = envInt('BRAID_BENCH_CLI_RUNS', 15);
  const base = process.env.BRAID_BENCH_CLI_BASE;
  if (base !== undefined && !existsSync(base)) throw new Error(`BRAID_BENCH_CLI_BASE: ${base} is missing`);
  const dir = mkdtempSync(join(tmpdir(), 'braid-bench-cli-'));
  try {
    execFileSync('git', ['init', '-q'], { cwd: dir });
    writeFileSync(join(dir, 'p.braid.yaml'), 'version: 1\nname: one\nsteps:\n  a:\n    run: "true"\n');
    const hook = join(dir, 'cpu-hook.js');
    writeFileSync(hook, CPU_HOOK);
    const noCache = { BRAID_CODE_CACHE: 'off' };
    const commands = (c: string, label: string): Row[] => [
      { name: `\`braid validate\` (one step)${label}`, args: [c, 'validate', 'p.braid.yaml'], goal: 1.5 },
      { name: `\`braid run\` (one \`true\` step)${label}`, args: [c, 'run', 'p.braid.yaml'], goal: 2.5 },
      { name: `\`braid --help\`${label}`, args: [c, '--help'] },
    ];
    const rows: Row[] = [
      { name: '`node -e 0`', args: ['-e', '0'] },
      ...commands(cli, ''),
      {
        name: '`braid validate`, no code cache (a first start)',
        args: [cli, 'validate', 'p.braid.yaml'],
        env: noCache,
      },
      { name: '`braid run`, no code cache (a first start)', args: [cli, 'run', 'p.braid.yaml'], env: noCache },
      ...(base === undefined ? [] : commands(base, ' — base build')),
    ];
    const env = { ...process.env, BRAID_CODE_CACHE_DIR: join(dir, 'code-cache') };
    // In turns, so that the machine's load weighs on every row alike; one warm-up round first.
    const times = rows.map(() => [] as number[]);
    const cpus = rows.map(() => [] as number[]);
    for (let round = -1; round < runs; round++) {
      rows.forEach((r, i) => {
        const t = timeOnce(r.args, dir, { ...env, ...r.env }, hook);
        if (round >= 0) times[i]!.push(t.wall);
        if (round >= 0) cpus[i]!.push(t.cpu);
      });
    }
    // Each round's command over that round's `node -e 0`, then the median: the load swings within
    // seconds here, and a ratio of neighbours follows it better than a ratio of two medians.
    const ratios = (i: number) => times[i]!.map((t, round) => t / times[0]![round]!);
    console.log(
      `\n### CLI start (${runs} rounds, each command once a round; ratio: median of each round's command ÷ its \`node -e 0\`; own CPU: the process's user + system time, the same ratio)\n`,
    );
    const cpuRatio = (i: number) => median(cpus[i]!.map((c, round) => c / cpus[0]![round]!));
    table(
      ['command', 'median', 'min', '÷ node -e 0', 'own CPU', 'CPU ÷ node -e 0'],
      rows.map((r, i) => {
        const ratio = median(ratios(i));
        return [
          r.name,
          ms(median(times[i]!)),
          ms(Math.min(...times[i]!)),
          r.goal === undefined ? fixed(ratio, 2) : goal(fixed(ratio, 2), ratio <= r.goal, `≤ ${r.goal}`),
          ms(median(cpus[i]!)),
          fixed(cpuRatio(i), 2),
        ];
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
