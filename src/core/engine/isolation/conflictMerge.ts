// `on-conflict: resolve`, the merge half: what landed in the workspace meanwhile is brought into the
// step's own worktree as a 3-way merge (base: the step's start; ours: its change; theirs: the
// workspace as it is now), conflicts left as markers there for the step's agent, never in the
// workspace. Afterwards the worktree's start is the workspace's snapshot, so its next commit is
// the resolved change relative to what is there now, and lands as any change does.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { firstLine, git, gitOk, splitZ } from '../../exec/git';
import { setWorktreeStart } from './worktree';

export type WorkspaceMerge = { ok: true; files: string[]; start: string } | { ok: false; message: string };

/**
 * Merges `workspace` (a snapshot commit of the workspace now) into the worktree whose change is
 * `base` → `commit`. The worktree ends on `workspace`, its files the merge, conflicted ones (`files`)
 * with markers. git 2.39 has no `merge-tree --merge-base`, so the workspace's tree is given the
 * step's base as its parent: then a plain `git merge` finds exactly that base.
 */
export async function mergeWorkspaceIn(o: {
  worktree: string;
  base: string;
  commit: string;
  workspace: string;
}): Promise<WorkspaceMerge> {
  const cwd = o.worktree;
  const tree = (await gitOk(['rev-parse', `${o.workspace}^{tree}`], { cwd })).trim();
  const theirs = (
    await gitOk(['commit-tree', tree, '-p', o.base, '-m', 'braid: the workspace, landed meanwhile'], { cwd })
  ).trim();
  // The workspace's side is HEAD (`<<<<<<< HEAD`) and the step's change is merged into it.
  const reset = await git(['reset', '--quiet', '--hard', theirs], { cwd });
  if (reset.code !== 0) return { ok: false, message: `could not reset the worktree: ${firstLine(reset.stderr)}` };
  const m = await git(
    ['merge', '--no-commit', '--no-ff', '-s', 'ort', '--no-autostash', '--no-verify-signatures', o.commit],
    { cwd },
  );
  const files = splitZ((await git(['diff', '--name-only', '-z', '--diff-filter=U'], { cwd })).stdout);
  if (m.code !== 0 && files.length === 0) {
    await git(['merge', '--abort'], { cwd });
    return {
      ok: false,
      message: `could not merge the workspace into the worktree: ${firstLine(m.stderr || m.stdout)}`,
    };
  }
  // Forget the merge, keep its files: HEAD becomes the workspace, so the step's next commit is
  // its resolved change on top of what is there now (and markers stay where git left them).
  await gitOk(['merge', '--quit'], { cwd });
  await gitOk(['reset', '--quiet', '--mixed', o.workspace], { cwd });
  await setWorktreeStart(cwd, o.workspace);
  return { ok: true, files, start: o.workspace };
}

const MARKER = /^(<{7} |>{7} |={7}$)/m;

/** The files among `files` that still hold a conflict marker line. */
export async function filesWithMarkers(worktree: string, files: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const f of files) {
    const text = await readFile(join(worktree, f), 'utf8').catch(() => '');
    if (MARKER.test(text)) out.push(f);
  }
  return out;
}

/** Which steps landed changes to each file, from what they recorded; a file none of them touched was edited by the user. */
export function changedBy(
  files: readonly string[],
  landed: ReadonlyMap<string, { readonly files: ReadonlyArray<{ readonly path: string; readonly from?: string }> }>,
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const f of files) {
    const by = [...landed]
      .filter(([, c]) => c.files.some((x) => x.path === f || x.from === f))
      .map(([id]) => id)
      .sort();
    out.set(f, by);
  }
  return out;
}
