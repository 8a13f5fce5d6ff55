// `braid clean RUN-ID`: the user discards what a run kept for them (failed and conflicted steps'
// worktrees and branches, every step's recorded change). Never touches a run that is still going.
import { rm } from 'node:fs/promises';
import { git, gitOk } from '../../exec/git';
import { RunStore } from '../records/runStore';
import { isGitRepo, listBraidWorktrees, removeWorktree } from './worktree';
import { withWorktreeLock } from './worktreeLock';
import { dropChangeRefs } from '../records/changeRecord';
import { worktreesDir } from '../records/braidLayout';

export type CleanResult = { ok: true; removed: string[] } | { ok: false; message: string };

/** Removes a run's kept worktrees and `braid/<run>/*` branches; returns the steps cleaned. */
export async function cleanRun(root: string, runId: string): Promise<CleanResult> {
  const store = new RunStore(root);
  await store.markInterrupted();
  const record = await store.load(runId);
  if (!record) return { ok: false, message: `unknown run ${runId}` };
  if (record.status === 'running') return { ok: false, message: `run ${runId} is still running; cancel it first` };
  const removed = new Set<string>();
  if (await isGitRepo(root)) {
    for (const w of await listBraidWorktrees(root)) {
      if (w.runId !== runId) continue;
      await removeWorktree({ root, path: w.path, branch: w.branch });
      removed.add(w.stepId);
    }
    // Branches whose worktree directory is already gone (deleted by hand, or pruned).
    const prefix = `refs/heads/braid/${runId}/`;
    const refs = (await gitOk(['for-each-ref', '--format=%(refname)', prefix], { cwd: root }))
      .split('\n')
      .filter((r) => r.startsWith(prefix));
    await withWorktreeLock(root, async () => {
      for (const ref of refs) {
        const branch = ref.slice('refs/heads/'.length);
        if ((await git(['branch', '-D', branch], { cwd: root })).code === 0) removed.add(ref.slice(prefix.length));
      }
    });
    // The steps' recorded changes (refs/braid/runs/<run>/…): kept until now.
    await dropChangeRefs(root, runId);
  }
  await rm(worktreesDir(root, runId), { recursive: true, force: true });
  let changed = false;
  for (const step of Object.values(record.steps)) {
    if (step.worktree === undefined) continue;
    removed.add(step.id);
    delete step.worktree;
    changed = true;
  }
  if (changed) {
    const saved = store.save(record);
    await store.flush();
    await saved;
  }
  return { ok: true, removed: [...removed].sort() };
}
