// `on-conflict: resolve`, what the resolution itself costs beyond its agent, with real git in a
// repository of 1,000 files: a step's change of 10 files conflicts in one of them with an edit
// landed meanwhile. Today's path is the landing that finds the conflict and gives up
// (mergeBack: the step ends `conflict`). The resolution's own part is everything around its
// agent: the workspace snapshot, the 3-way merge into the step's worktree (markers left there),
// the marker scan, its `check` (`true`, one process), the commit and its record, and the landing
// that now succeeds. The agent (here: a function dropping the marker lines) is not timed.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { changedBy, filesWithMarkers, mergeWorkspaceIn } from '../src/core/engine/isolation/conflictMerge';
import { recordChange } from '../src/core/engine/records/changeRecord';
import { mergeBack } from '../src/core/engine/isolation/mergeBack';
import {
  commitWorktree,
  createWorktree,
  removeWorktree,
  snapshotBase,
  worktreeBranch,
  worktreePath,
} from '../src/core/engine/isolation/worktree';
import { envInt, fixed, median, ms, table } from './stats';

const FILES = 1000;
const CHANGED = 10;
const lines = (tag: string) => Array.from({ length: 20 }, (_, i) => `${tag} line ${i + 1}`).join('\n') + '\n';

interface Round {
  today: number;
  resolution: number;
  merge: number;
  land: number;
}

async function round(i: number): Promise<Round> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'braid-bench-resolve-')));
  const git = (args: string[]) =>
    execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@localhost', '-c', 'commit.gpgsign=false', ...args], {
      cwd: root,
    });
  try {
    git(['init', '-q']);
    for (let f = 0; f < FILES; f++) {
      if (f % 100 === 0) execFileSync('mkdir', ['-p', join(root, `d${f / 100}`)]);
      writeFileSync(join(root, `d${Math.floor(f / 100)}`, `f${f}.txt`), lines(`f${f}`));
    }
    git(['add', '-A']);
    git(['commit', '-qm', 'files']);
    const base = await snapshotBase(root);
    if (!base.ok) throw new Error(base.message);
    const runId = `bench${i}`;
    const stepId = 'a';
    const wt = await createWorktree({ root, runId, stepId, base: base.sha });
    if (!wt.ok) throw new Error(wt.message);
    // The step's change: line 2 of 10 files.
    const paths = Array.from({ length: CHANGED }, (_, k) => `d${k}/f${k * 100}.txt`);
    for (const p of paths)
      writeFileSync(
        join(wt.path, p),
        readFileSync(join(wt.path, p), 'utf8').replace(/line 2\n/, 'line 2 by the step\n'),
      );
    const c = await commitWorktree({ worktree: wt.path, message: 'step', summary: true });
    // Meanwhile the same line of the first file changed in the workspace.
    writeFileSync(
      join(root, paths[0]!),
      readFileSync(join(root, paths[0]!), 'utf8').replace(/line 2\n/, 'line 2 by the user\n'),
    );

    let t = performance.now();
    const first = await mergeBack({ root, base: base.sha, result: c.sha, writes: ['**'] });
    const today = performance.now() - t;
    if (first.ok) throw new Error('expected a conflict');

    t = performance.now();
    const now = await snapshotBase(root);
    if (!now.ok) throw new Error(now.message);
    const m = await mergeWorkspaceIn({ worktree: wt.path, base: base.sha, commit: c.sha, workspace: now.sha });
    if (!m.ok) throw new Error(m.message);
    changedBy(m.files, new Map());
    const merge = performance.now() - t;
    // The agent: not timed.
    for (const f of m.files)
      writeFileSync(
        join(wt.path, f),
        readFileSync(join(wt.path, f), 'utf8')
          .split('\n')
          .filter((l) => !/^(<{7}|={7}|>{7})/.test(l))
          .join('\n'),
      );
    t = performance.now();
    if ((await filesWithMarkers(wt.path, m.files)).length > 0) throw new Error('markers left');
    spawnSync('/bin/sh', ['-c', 'true'], { cwd: wt.path });
    const resolved = await commitWorktree({ worktree: wt.path, message: 'resolved', summary: true });
    await recordChange({
      root,
      runId,
      stepId,
      base: m.start,
      commit: resolved.sha,
      ...(resolved.files ? { files: resolved.files } : {}),
    });
    const landed = await mergeBack({ root, base: m.start, result: resolved.sha, writes: ['**'] });
    const land = performance.now() - t;
    if (!landed.ok) throw new Error(landed.message);
    await removeWorktree({ root, path: worktreePath(root, runId, stepId), branch: worktreeBranch(runId, stepId) });
    return { today, merge, land, resolution: merge + land };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export async function benchResolveConflict(): Promise<void> {
  const runs = envInt('BRAID_BENCH_RESOLVE_RUNS', 7);
  console.log(
    `\n### A conflict resolved by the agent: its cost beyond the agent (real git, ${FILES} files, a change of ${CHANGED} files conflicting in 1; median of ${runs} after a warm-up)\n`,
  );
  await round(0);
  const rs: Round[] = [];
  for (let i = 1; i <= runs; i++) rs.push(await round(i));
  const med = (k: keyof Round) => median(rs.map((r) => r[k]));
  table(
    ['path', 'time (median)', "÷ today's conflict"],
    [
      ['today: the landing finds the conflict, the step ends `conflict`', ms(med('today')), '1.00 ×'],
      [
        'resolve: snapshot + 3-way merge into the worktree (markers)',
        ms(med('merge')),
        `${fixed(med('merge') / med('today'), 2)} ×`,
      ],
      [
        'resolve: marker scan + check (`true`) + commit + record + landing',
        ms(med('land')),
        `${fixed(med('land') / med('today'), 2)} ×`,
      ],
      ['resolve: all of it beyond the agent', ms(med('resolution')), `${fixed(med('resolution') / med('today'), 2)} ×`],
    ],
  );
}
