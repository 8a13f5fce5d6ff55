// Part `fuzz`: the unit suite's fuzz corpus (test/helpers/planFuzz.ts, 2,000 seeded plans) through
// `braid validate`, timed: in this process (main(), as the unit test runs it) for every plan, and
// through the built CLI (`node out/cli.js validate`, its own process, maxRSS from getrusage) for
// the known attacks. Part `starve`: the inputs that starved validation (#32: deep nesting closed by
// a dedent, error-dense text, a JSON plan written twice, 250,000 needs, 5 MB valid, empty mappings,
// blank lines), each at full size in its own CLI process. Goals (#22, #32): no crash, every plan
// up to 5 MB under 2 s, peak memory under 300 MB.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import {
  FUZZ_COUNT,
  FUZZ_SEED,
  fuzzPlans,
  starvingPlans,
  validateInProcess,
  validateOutputProblems,
} from '../test/helpers/planFuzz';
import { envInt, goal, median, ms, quantile, table } from './stats';

const CLI = resolve(__dirname, '../out/cli.js');

export async function benchPlanFuzz(): Promise<void> {
  const build = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: resolve(__dirname, '..'), stdio: 'ignore' });
  if (build.status !== 0) throw new Error('esbuild failed');
  const dir = mkdtempSync(join(tmpdir(), 'braid-bench-fuzz-'));
  try {
    const plans = fuzzPlans(FUZZ_SEED, FUZZ_COUNT);
    const times: { name: string; ms: number }[] = [];
    let crashes = 0,
      problems = 0,
      valid = 0;
    for (const p of plans) {
      const file = join(dir, p.name);
      writeFileSync(file, p.text);
      const t = performance.now();
      try {
        const r = await validateInProcess(file);
        times.push({ name: p.name, ms: performance.now() - t });
        if (r.code === 0) valid++;
        problems += validateOutputProblems(file, p.text, r.code, r.stdout, r.stderr).length;
      } catch {
        crashes++;
      }
    }
    const xs = times.map((x) => x.ms);
    const slowest = times.reduce((a, b) => (b.ms > a.ms ? b : a));
    const rss = process.resourceUsage().maxRSS / 1024;
    console.log(
      `\n### Fuzz corpus through braid validate (${plans.length} plans, seed ${FUZZ_SEED}; ${valid} valid)\n`,
    );
    // This process's peak also holds tsx, the bench and garbage from earlier plans: shown, not the goal.
    table(
      [
        'where',
        'plans',
        'crashes',
        'unlocated or bad output',
        'median',
        'p99',
        'slowest',
        'peak RSS of the whole bench process',
      ],
      [
        [
          'in process',
          String(plans.length),
          goal(String(crashes), crashes === 0, '0'),
          goal(String(problems), problems === 0, '0'),
          ms(quantile(xs, 0.5)),
          ms(quantile(xs, 0.99)),
          goal(`${ms(slowest.ms)} (${slowest.name})`, slowest.ms < 2000, '< 2 s'),
          `${rss.toFixed(0)} MB`,
        ],
      ],
    );
    // The attacks and every 20th other plan, each in a fresh CLI process: wall time and its peak RSS.
    const attacks = plans.filter((p, i) => p.name.startsWith('attack-') || i % 20 === 0);
    const rows: { name: string; wall: number; rss: number; code: number | null }[] = [];
    for (const p of attacks) rows.push(validateInChild(join(dir, p.name), p.name));
    const worstWall = rows.reduce((a, b) => (b.wall > a.wall ? b : a));
    const worstRss = rows.reduce((a, b) => (b.rss > a.rss ? b : a));
    const bad = rows.filter((r) => r.code !== 0 && r.code !== 1).length;
    table(
      ['where', 'plans', 'exit other than 0/1', 'slowest (process wall, Node start included)', 'peak RSS'],
      [
        [
          'node out/cli.js validate: the attacks, every 20th other plan',
          String(rows.length),
          goal(String(bad), bad === 0, '0'),
          goal(`${ms(worstWall.wall)} (${worstWall.name})`, worstWall.wall < 2000, '< 2 s'),
          goal(`${worstRss.rss.toFixed(0)} MB (${worstRss.name})`, worstRss.rss < 300, '< 300 MB'),
        ],
      ],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Part `starve` (#32): the inputs that starved validation, at full size, each through the built
 * CLI in its own process, `runs` times in turn with `node -e 0` (Node starting and doing nothing):
 * medians side by side, against the goals (≤ 2 s, ≤ 300 MB, exit 0 or 1). On a loaded machine the
 * wall is read against that idle process, and the CPU time (user + system, from getrusage) beside
 * it, which waiting for a core does not inflate.
 */
export async function benchPlanStarve(): Promise<void> {
  const build = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: resolve(__dirname, '..'), stdio: 'ignore' });
  if (build.status !== 0) throw new Error('esbuild failed');
  const dir = mkdtempSync(join(tmpdir(), 'braid-bench-starve-'));
  try {
    // Text of nothing but `]`: two million top-level syntax errors (690 MB before yaml's own errors were capped).
    const runs = envInt('BRAID_BENCH_FUZZ_RUNS', 3);
    const inputs = [...starvingPlans(1), { name: 'starve-only-brackets.braid.yaml', text: ']'.repeat(2_000_000) }];
    for (const p of inputs) writeFileSync(join(dir, p.name), p.text);
    const samples = new Map<string, ReturnType<typeof validateInChild>[]>();
    const sample = (r: ReturnType<typeof validateInChild>) =>
      (samples.get(r.name) ?? samples.set(r.name, []).get(r.name)!).push(r);
    for (let i = 0; i < runs; i++) {
      sample(validateInChild(join(dir, 'none'), 'node -e 0', ['-e', '0']));
      for (const p of inputs) sample(validateInChild(join(dir, p.name), p.name));
    }
    const summary = (name: string) => {
      const rs = samples.get(name)!;
      return {
        name,
        wall: median(rs.map((r) => r.wall)),
        cpu: median(rs.map((r) => r.cpu)),
        rss: quantile(
          rs.map((r) => r.rss),
          1,
        ),
        codes: [...new Set(rs.map((r) => r.code))],
      };
    };
    const idle = summary('node -e 0');
    console.log(
      `\n#### The inputs that starved validation (#32), each through \`node out/cli.js validate\` in its own process (medians of ${runs}, in turn with \`node -e 0\`)\n`,
    );
    table(
      [
        'plan',
        'size',
        'exit',
        'wall (Node start included)',
        'wall ÷ `node -e 0`',
        'CPU (user + system)',
        'peak RSS (max)',
      ],
      [
        ...inputs.map((p) => {
          const r = summary(p.name);
          const ok = r.codes.every((c) => c === 0 || c === 1);
          return [
            r.name,
            `${(Buffer.byteLength(p.text) / 1e6).toFixed(1)} MB`,
            goal(r.codes.join(', '), ok, '0 or 1'),
            goal(ms(r.wall), r.wall <= 2000, '≤ 2 s'),
            `${(r.wall / idle.wall).toFixed(1)}×`,
            goal(ms(r.cpu), r.cpu <= 2000, '≤ 2 s'),
            goal(`${r.rss.toFixed(0)} MB`, r.rss <= 300, '≤ 300 MB'),
          ];
        }),
        [idle.name, '', idle.codes.join(', '), ms(idle.wall), '1.0×', ms(idle.cpu), `${idle.rss.toFixed(0)} MB`],
      ],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `braid validate FILE` in a fresh process: its wall time, its own CPU time and peak RSS (getrusage) and exit code. */
function validateInChild(
  file: string,
  name: string,
  args = [CLI, 'validate', file],
): { name: string; wall: number; cpu: number; rss: number; code: number | null } {
  // The CLI runs only as the main module (a require() from `-e` loaded it and ran nothing), so
  // the peak is read by a preloaded exit hook.
  const hook = join(dirname(file), 'rss-hook.cjs');
  writeFileSync(
    hook,
    "process.on('exit', () => { const u = process.resourceUsage(); process.stderr.write('\\nRSS ' + u.maxRSS + ' CPU ' + (u.userCPUTime + u.systemCPUTime) + '\\n'); });\n",
  );
  const t = performance.now();
  const r = spawnSync(process.execPath, ['--require', hook, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const wall = performance.now() - t;
  const m = /RSS (\d+) CPU (\d+)/.exec(r.stderr);
  return { name, wall, cpu: Number(m?.[2] ?? NaN) / 1000, rss: Number(m?.[1] ?? NaN) / 1024, code: r.status };
}
