// "Resolve in Merge Editor", the one path that writes conflict markers into the workspace, and only
// because the user asked: each file of a `conflict` step's change is merged 3-way (the workspace
// as it is, the change's base, the change) with `git merge-file`; clean ones are written merged,
// the others with markers, and what the workspace held before each is kept for the merge editor.
import { mkdir, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { gitBuffer } from '../../exec/git';
import type { ChangeRecord } from '../records/changeRecord';
import { ensureBraidDir } from '../isolation/worktreeSetup';
import { tmpDir } from '../records/braidLayout';

export interface HandMerge {
  /** Written with conflict markers; `before`: a copy of what the workspace held. */
  readonly conflicted: Array<{ path: string; before: string }>;
  /** Written merged (no markers). */
  readonly merged: string[];
  /** Not touched, and why (a deletion of a file edited since, a binary file). */
  readonly skipped: Array<{ path: string; why: string }>;
}

async function blob(root: string, rev: string, path: string): Promise<Buffer | undefined> {
  const r = await gitBuffer(['show', `${rev}:${path}`], { cwd: root });
  return r.code === 0 ? r.stdout : undefined;
}

async function readOrUndefined(file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(file);
  } catch {
    // Absent on this side of the conflict (added or deleted).
    return undefined;
  }
}

/** Writes the change into the workspace file by file, conflicts as markers (see the file comment). */
export async function writeConflictMarkers(root: string, stepId: string, change: ChangeRecord): Promise<HandMerge> {
  await ensureBraidDir(root);
  await mkdir(tmpDir(root), { recursive: true });
  const keep = await mkdtemp(join(tmpDir(root), `resolve-${stepId}-`));
  const scratch = await mkdtemp(join(tmpDir(root), 'merge-file-'));
  const out: HandMerge = { conflicted: [], merged: [], skipped: [] };
  try {
    for (const [i, f] of change.files.entries()) {
      const target = join(root, f.path);
      const mine = await readOrUndefined(target);
      const base = await blob(root, change.base, f.from ?? f.path);
      const theirs = f.status === 'deleted' ? undefined : await blob(root, change.commit, f.path);
      if (f.binary) {
        out.skipped.push({ path: f.path, why: 'a binary file' });
        continue;
      }
      if (theirs === undefined) {
        if (mine !== undefined && base !== undefined && mine.equals(base)) {
          await unlink(target);
          out.merged.push(f.path);
        } else if (mine !== undefined)
          out.skipped.push({ path: f.path, why: 'deleted by the step, edited in the workspace' });
        continue;
      }
      const p = (n: string) => join(scratch, `${i}.${n}`);
      await writeFile(p('ours'), mine ?? '');
      await writeFile(p('base'), base ?? '');
      await writeFile(p('theirs'), theirs);
      const r = await gitBuffer(
        ['merge-file', '-p', '-L', 'workspace', '-L', 'base', '-L', stepId, p('ours'), p('base'), p('theirs')],
        { cwd: root },
      );
      if (r.code < 0 || r.code > 127) {
        out.skipped.push({ path: f.path, why: 'git merge-file failed' });
        continue;
      }
      await mkdir(dirname(target), { recursive: true });
      if (r.code === 0) {
        await writeFile(target, r.stdout);
        out.merged.push(f.path);
        continue;
      }
      const before = join(keep, `${i}-${f.path.replace(/[/\\]/g, '_')}`);
      await writeFile(before, mine ?? '');
      await writeFile(target, r.stdout);
      out.conflicted.push({ path: f.path, before });
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return out;
}
