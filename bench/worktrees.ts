// Part 5: worktree set-up and merge-back on generated repositories (real git, temp dirs):
// Braid's createWorktree (full and sparse) against a plain `git worktree add` and a full copy of
// the tracked files (`cp -r`); then commitWorktree + the change record + mergeBack of a 10-file
// change against `git diff | git apply`. Fewer repetitions at 10,000 files keep it within a minute or so.
import { execFile } from 'node:child_process';
import { appendFile, mkdir, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git, gitOk } from '../src/core/exec/git';
import { mergeBack } from '../src/core/engine/isolation/mergeBack';
import { changedFiles, dropChangeRefs, recordChange, type ChangedFile } from '../src/core/engine/records/changeRecord';
import { commitWorktree, createWorktree, removeWorktree, snapshotBase } from '../src/core/engine/isolation/worktree';
import { envInt, envList, fixed, goal, median, ms, table, timed } from './stats';

function run(file: string, args: readonly string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { cwd, maxBuffer: 1 << 26 }, (err, _out, stderr) =>
      err ? reject(new Error(`${file} ${args.join(' ')}: ${stderr || err.message}`)) : resolve(),
    );
  });
}

/** A committed repository of `files` small files in 100 directories. */
async function makeRepo(files: number): Promise<{ root: string; head: string }> {
  const root = await realpath(await mkdtemp(join(tmpdir(), `braid-bench-wt${files}-`)));
  const per = Math.ceil(files / 100);
  for (let d = 0; d < 100; d++) {
    const dir = join(root, `d${String(d).padStart(3, '0')}`);
    await mkdir(dir);
    await Promise.all(
      Array.from({ length: Math.min(per, files - d * per) }, (_, f) =>
        writeFile(join(dir, `f${f}.ts`), `// file ${d}/${f}\nexport const v${f} = ${d * per + f};\n`.repeat(4)),
      ),
    );
  }
  await gitOk(['init', '-q', '-b', 'main'], { cwd: root });
  await gitOk(['add', '-A'], { cwd: root });
  await gitOk(['commit', '-q', '-m', 'init'], { cwd: root });
  return { root, head: (await gitOk(['rev-parse', 'HEAD'], { cwd: root })).trim() };
}

interface Sample {
  snapshot: number;
  plain: number;
  copy: number;
  full: number;
  sparseAfterFull: number;
  commit: number;
  record: number;
  summary: number;
  merge: number;
  apply: number;
}

async function once(root: string, head: string, i: number): Promise<Sample> {
  const scratch = join(root, '.braid', 'bench');
  await mkdir(scratch, { recursive: true });
  const snapshot = await timed(() => snapshotBase(root));
  const plainPath = join(scratch, `plain${i}`);
  const plain = await timed(() =>
    gitOk(['worktree', 'add', '--quiet', '-b', `plain${i}`, plainPath, head], { cwd: root }),
  );
  await gitOk(['worktree', 'remove', '--force', plainPath], { cwd: root });
  await gitOk(['branch', '-D', `plain${i}`], { cwd: root });
  const tracked = (await readdir(root)).filter((e) => e !== '.git' && e !== '.braid');
  const copyPath = join(scratch, `copy${i}`);
  await mkdir(copyPath);
  const copy = await timed(() => run('cp', ['-r', ...tracked, copyPath], root));
  await rm(copyPath, { recursive: true, force: true });

  let wt: { path: string; branch: string } | undefined;
  const full = await timed(async () => {
    const r = await createWorktree({ root, runId: 'bench', stepId: `full${i}`, base: head });
    if (!r.ok) throw new Error(r.message);
    wt = r;
  });
  let sp: { path: string; branch: string } | undefined;
  const sparseAfterFull = await timed(async () => {
    const r = await createWorktree({ root, runId: 'bench', stepId: `sparse${i}`, base: head, sparse: ['d000'] });
    if (!r.ok) throw new Error(r.message);
    sp = r;
  });
  await removeWorktree({ root, ...sp! });
  const w = wt!;
  for (let f = 0; f < 10; f++)
    await appendFile(join(w.path, `d${String(f * 7).padStart(3, '0')}`, 'f0.ts'), `// change ${i}\n`);
  await writeFile(join(w.path, 'd001', `new${i}.ts`), 'export const fresh = true;\n');
  let sha = '';
  let files: ChangedFile[] = [];
  const commit = await timed(async () => {
    const c = await commitWorktree({ worktree: w.path, message: 'bench', summary: true });
    sha = c.sha;
    files = c.files!;
  });
  // The change record every worktree step keeps: its refs (recordChange, given the files), and its
  // files, which commitWorktree now reads with line counts in the diff it ran before by name only:
  // what that costs more is the numstat diff less the name-only one, each timed here on its own.
  const record = await timed(() =>
    recordChange({ root, runId: 'bench', stepId: `full${i}`, base: head, commit: sha, files }),
  );
  const numstat = await timed(() => changedFiles(w.path, head, sha));
  const nameOnly = await timed(() => gitOk(['diff', '--name-only', '-z', '--no-renames', head, sha], { cwd: w.path }));
  const summary = numstat - nameOnly;
  const merge = await timed(async () => {
    const r = await mergeBack({ root, base: head, result: sha, writes: ['**'] });
    if (!r.ok) throw new Error(r.message);
  });
  await gitOk(['checkout', '-q', '--', '.'], { cwd: root });
  await gitOk(['clean', '-fdq'], { cwd: root });
  const apply = await timed(() => run('/bin/sh', ['-c', `git diff --binary ${head} ${sha} | git apply`], root));
  await gitOk(['checkout', '-q', '--', '.'], { cwd: root });
  await gitOk(['clean', '-fdq'], { cwd: root });
  await removeWorktree({ root, path: w.path, branch: w.branch });
  await dropChangeRefs(root, 'bench');
  return { snapshot, plain, copy, full, sparseAfterFull, commit, record, summary, merge, apply };
}

/**
 * Sparse worktrees one after another, each removed before the next: what a plan of sparse steps
 * does. Measured apart from `once()` because there a sparse set-up follows a full checkout whose
 * writes the disk is still flushing, which on a slow disk more than doubles it. Each is paired
 * with the same set-up by bare git (the two commands it needs), so what is Braid's and what is
 * git's and the disk's shows in one run.
 */
async function sparseSeries(root: string, head: string, n: number): Promise<{ braid: number[]; git: number[] }> {
  const braid: number[] = [],
    bare: number[] = [];
  for (let i = 0; i <= n; i++) {
    let sp: { path: string; branch: string } | undefined;
    const t = await timed(async () => {
      const r = await createWorktree({ root, runId: 'bench', stepId: `series${i}`, base: head, sparse: ['d000'] });
      if (!r.ok) throw new Error(r.message);
      sp = r;
    });
    await removeWorktree({ root, ...sp! });
    const path = join(root, '.braid', 'bench', `bare-sparse${i}`);
    const g = await timed(async () => {
      await gitOk(['worktree', 'add', '--quiet', '--no-checkout', '-b', `bare-sparse${i}`, path, head], { cwd: root });
      const gitDir = join(root, '.git', 'worktrees', `bare-sparse${i}`);
      await mkdir(join(gitDir, 'info'), { recursive: true });
      await writeFile(join(gitDir, 'info', 'sparse-checkout'), '/*\n!/*/\n/d000/\n');
      await gitOk(
        ['-c', 'core.sparseCheckout=true', '-c', 'core.sparseCheckoutCone=true', 'read-tree', '-mu', 'HEAD'],
        { cwd: path },
      );
    });
    await gitOk(['worktree', 'remove', '--force', path], { cwd: root });
    await gitOk(['branch', '-D', `bare-sparse${i}`], { cwd: root });
    if (i > 0) {
      braid.push(t);
      bare.push(g);
    } // the first is a warm-up
  }
  return { braid, git: bare };
}

export async function benchWorktrees(): Promise<void> {
  const sizes = envList('BRAID_BENCH_WT_SIZES', [1000, 10000]);
  const rows: string[][] = [],
    mergeRows: string[][] = [];
  for (const files of sizes) {
    const reps = files >= 5000 ? envInt('BRAID_BENCH_WT_RUNS_LARGE', 3) : envInt('BRAID_BENCH_WT_RUNS', 7);
    const { root, head } = await makeRepo(files);
    try {
      await once(root, head, 0); // warm-up: page cache, git's first run
      const s: Sample[] = [];
      for (let i = 1; i <= reps; i++) s.push(await once(root, head, i));
      const m = (k: keyof Sample) => median(s.map((x) => x[k]));
      const series = await sparseSeries(root, head, 2 * reps + 1);
      const sparse = median(series.braid);
      rows.push([
        files.toLocaleString('en-US'),
        String(reps),
        ms(m('plain')),
        ms(m('copy')),
        `${ms(m('full'))} (${fixed(m('full') / m('plain'), 2)}× add)`,
        goal(`${fixed(m('full') / m('copy'), 2)}×`, m('full') <= 1.2 * m('copy'), '≤ 1.2× copy'),
        goal(ms(sparse), sparse <= 30, '≤ 30 ms'),
        ms(median(series.git)),
        ms(m('sparseAfterFull')),
        ms(m('snapshot')),
      ]);
      const share = median(s.map((x) => (x.record + Math.max(0, x.summary)) / x.merge));
      mergeRows.push([
        files.toLocaleString('en-US'),
        ms(m('commit')),
        ms(m('merge')),
        ms(m('record')),
        ms(m('summary')),
        goal(`${fixed(100 * share, 1)} %`, share <= 0.1, '≤ 10 % of mergeBack'),
        ms(m('commit') + m('record') + m('merge')),
        ms(m('apply')),
      ]);
    } finally {
      await git(['worktree', 'prune'], { cwd: root });
      await rm(root, { recursive: true, force: true });
    }
  }
  console.log(
    '\n### Worktree set-up and merge-back (real git, generated repositories of small files in 100 directories)\n',
  );
  console.log(
    'Medians after a warm-up. "full" and "sparse" are Braid\'s createWorktree (sparse: a one-directory cone, sparse index):',
  );
  console.log(
    "it registers the worktree in git's own layout and runs one `git checkout -b` (src/core/engine/isolation/worktreeRegister.ts);",
  );
  console.log('"copy" is `cp -r` of the tracked files; the snapshot of the workspace is taken once a run, not a step.');
  console.log(
    '"braid sparse" is a series of sparse set-ups one after another (2 × runs + 1), each paired with "bare git sparse",',
  );
  console.log(
    'the same set-up as git\'s own commands (worktree add --no-checkout, the cone file, read-tree); "after a full one" is each',
  );
  console.log("round's sparse set-up right after its full checkout, while the disk still writes that back.\n");
  table(
    [
      'files',
      'runs',
      'git worktree add',
      'cp -r',
      'braid full',
      'full ÷ copy',
      'braid sparse',
      'bare git sparse',
      'sparse after a full one',
      'snapshot',
    ],
    rows,
  );
  console.log(
    '\nMerge-back of a change to 10 files plus one new file (workspace clean), against `git diff | git apply`;',
  );
  console.log(
    'the change record kept for every step is "refs" (recordChange: its two refs written, given its files) and "files"',
  );
  console.log(
    "(what commitWorktree's diff costs more now that it reads line counts and renames: a numstat diff less a name-only",
  );
  console.log('one); "share" is the median over the runs of (refs + files) ÷ mergeBack, the merge-back it precedes:\n');
  table(
    ['files', 'commitWorktree', 'mergeBack', 'refs', 'files', 'share', 'together', 'git diff \\| git apply'],
    mergeRows,
  );
}
