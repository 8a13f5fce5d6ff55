// Issue 31: the worktree base snapshot, today's (tracked files: `add -u` on a temporary index)
// beside the new one (`add -A`: untracked files that are not ignored too), on a clone of this
// repository and on a generated one with many untracked files; and `decisions`: pairs of
// `braid approve` and `braid reject` racing on live runs under load (BRAID_BENCH_DECISION_PAIRS,
// default 200), counting any pair where both won or the record and the tree disagree.
import { execFileSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { git, gitOk } from '../src/core/exec/git';
import { snapshotBase } from '../src/core/engine/isolation/worktree';
import { buildCli } from '../test/helpers/cliRun';
import { cpuLoad, racePair, RACE_PLAN } from '../test/helpers/decisionRace';
import { makeRepo } from '../test/helpers/gitRepo';
import { envInt, median, ms, table, timed } from './stats';

const ROOT = resolve(__dirname, '..');

/** The snapshot as it was before issue 31: tracked files only. */
async function trackedSnapshot(root: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'braid-snapshot-old-'));
  try {
    const env = { GIT_INDEX_FILE: join(dir, 'index') };
    await copyFile(
      resolve(root, (await gitOk(['rev-parse', '--git-path', 'index'], { cwd: root })).trim()),
      env.GIT_INDEX_FILE,
    );
    await git(['add', '-u'], { cwd: root, env });
    const tree = (await gitOk(['write-tree'], { cwd: root, env })).trim();
    return (await gitOk(['commit-tree', tree, '-p', 'HEAD', '-m', 'old'], { cwd: root })).trim();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function cloneOfThisRepository(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'braid-bench-clone-'));
  execFileSync('git', ['clone', '-q', '--local', '--no-hardlinks', ROOT, dir]);
  // What an earlier run left untracked, and a build folder the repository ignores.
  await mkdir(join(dir, 'added'), { recursive: true });
  await Promise.all(
    Array.from({ length: 200 }, (_, i) => writeFile(join(dir, 'added', `f${i}.ts`), `export const x${i} = ${i};\n`)),
  );
  await mkdir(join(dir, 'out'), { recursive: true });
  await Promise.all(Array.from({ length: 500 }, (_, i) => writeFile(join(dir, 'out', `o${i}.js`), `// built ${i}\n`)));
  return dir;
}

async function generated(tracked: number, untracked: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'braid-bench-untracked-'));
  execFileSync('git', ['init', '-q', dir]);
  for (let d = 0; d < 100; d++) await mkdir(join(dir, `d${d}`));
  await Promise.all(
    Array.from({ length: tracked }, (_, i) =>
      writeFile(join(dir, `d${i % 100}`, `t${i}.ts`), `export const t${i} = ${i};\n`),
    ),
  );
  execFileSync('git', ['add', '-A'], { cwd: dir });
  execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-qm', 'init'], { cwd: dir });
  await Promise.all(
    Array.from({ length: untracked }, (_, i) =>
      writeFile(join(dir, `d${i % 100}`, `u${i}.ts`), `export const u${i} = ${i};\n`),
    ),
  );
  return dir;
}

export async function benchLandingSnapshot(): Promise<void> {
  const runs = envInt('BRAID_BENCH_SNAPSHOT_RUNS', 7);
  const rows: string[][] = [];
  for (const [name, make] of [
    ['this repository (clone; +200 untracked, 500 ignored)', cloneOfThisRepository],
    ['generated: 10,000 tracked, 2,000 untracked', () => generated(10_000, 2_000)],
  ] as const) {
    const dir = await make();
    try {
      const files = (await gitOk(['ls-files'], { cwd: dir })).split('\n').filter(Boolean).length;
      await trackedSnapshot(dir);
      await snapshotBase(dir); // warm the index's stat data and the page cache
      const before: number[] = [];
      const now: number[] = [];
      for (let i = 0; i < runs; i++) {
        before.push(await timed(() => trackedSnapshot(dir)));
        now.push(await timed(() => snapshotBase(dir)));
      }
      rows.push([
        name,
        String(files),
        ms(median(before)),
        ms(median(now)),
        `${(median(now) / median(before)).toFixed(2)}×`,
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  console.log(
    `\n#### The worktree base snapshot: tracked files only (before issue 31) and as \`git add -A\` sees it (now), medians of ${runs} alternating runs`,
  );
  table(['repository', 'tracked files', 'tracked only (before)', 'add -A (now)', 'now ÷ before'], rows);
}

export async function benchDecisions(): Promise<void> {
  const pairs = envInt('BRAID_BENCH_DECISION_PAIRS', 200);
  if (!buildCli()) throw new Error('could not build the CLI');
  const dir = mkdtempSync(join(tmpdir(), 'braid-bench-race-'));
  const plan = join(dir, 'p.braid.yaml');
  writeFileSync(plan, ['version: 1', 'steps:', ...RACE_PLAN].join('\n') + '\n');
  const cleanup: Array<() => void> = [];
  const stop = cpuLoad();
  let bad = 0;
  let approved = 0;
  let untold = 0;
  const started = Date.now();
  try {
    for (let i = 0; i < pairs; i++) {
      const r = makeRepo({ 'f.txt': 'base\n' });
      const res = await racePair(r, plan, cleanup, true);
      if (!res.ok && res.why !== 'the loser was not told who decided') {
        bad++;
        console.error(JSON.stringify(res));
      }
      if (res.why === 'the loser was not told who decided') untold++;
      if (res.approve.code === 0) approved++;
      r.cleanup();
    }
  } finally {
    stop();
    for (const c of cleanup) c();
    await rm(dir, { recursive: true, force: true });
  }
  console.log(
    '\n#### One decision a step: `braid approve` and `braid reject` at once on a live run, two nice-19 busy loops beside',
  );
  table(
    ['pairs', 'approve won', 'reject won', 'both won or record/tree disagree', 'loser not told who decided', 'wall'],
    [
      [
        String(pairs),
        String(approved),
        String(pairs - approved),
        `${bad} ${bad === 0 ? '✓' : '✗'}`,
        String(untold),
        `${((Date.now() - started) / 1000).toFixed(0)} s`,
      ],
    ],
  );
}
