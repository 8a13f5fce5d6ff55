// What a worktree step wrote that `git add -A` would leave behind: git-ignored files inside its
// `writes` (a `build/**` the repository ignores) and changes inside a submodule. Before, the step
// ended `succeeded` and none of it landed. Ignored files the step wrote under a folder its
// `writes` name land (added with -f); the rest is named, so the user knows it did not land.
import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import picomatch from 'picomatch';
import { git, splitZ } from '../../exec/git';
import { globMatcher } from '../../paths/glob';

/** Most ignored files one step lands; past it none do, and the step says so (a build folder of node_modules size is a mistake). */
export const MAX_IGNORED_LANDED = 5000;

export interface IgnoredWrites {
  /** Git-ignored files to add with -f, so they land with the step's change. */
  readonly land: string[];
  /** What does not land, said as a sentence per cause (empty when all is well). */
  readonly notLanded: string[];
}

/**
 * Ignored files under the literal folders of `writes` (`build/**` → `build/`), matched by them and
 * written since `since` (what `copy`, `symlink` and `setup` made is older), and the submodules
 * with changes inside. A catch-all glob (`**`, `*.log`) names no folder, so it lands no ignored
 * file: `npm install` in a step without `writes` must not land node_modules.
 */
export async function ignoredWrites(
  worktree: string,
  writes: readonly string[],
  since: number,
): Promise<IgnoredWrites> {
  const notLanded: string[] = [];
  let land: string[] = [];
  const bases = [...new Set(writes.map((w) => picomatch.scan(w).base).filter((b) => b !== '' && b !== '.'))];
  if (bases.length > 0) {
    const r = await git(
      ['ls-files', '--others', '--ignored', '--exclude-standard', '-z', '--', ...bases.map((b) => `:(literal)${b}`)],
      { cwd: worktree },
    );
    if (r.code === 0) {
      const inWrites = globMatcher(writes, { dot: true });
      land = splitZ(r.stdout).filter((p) => inWrites(p) && writtenSince(join(worktree, p), since));
    }
    if (land.length > MAX_IGNORED_LANDED) {
      notLanded.push(
        `${land.length} git-ignored files in its writes (more than ${MAX_IGNORED_LANDED}), e.g. ${land.slice(0, 3).join(', ')}`,
      );
      land = [];
    }
  }
  if (existsSync(join(worktree, '.gitmodules'))) {
    const links = await git(['ls-files', '-s', '-z'], { cwd: worktree });
    const gitlinks = splitZ(links.stdout)
      .filter((l) => l.startsWith('160000 '))
      .map((l) => l.slice(l.indexOf('\t') + 1));
    const touched: string[] = [];
    for (const p of gitlinks) if (await submoduleTouched(join(worktree, p))) touched.push(p);
    if (touched.length > 0)
      notLanded.push(
        `changes inside submodule${touched.length > 1 ? 's' : ''} ${touched.join(', ')} (submodules are not merged back)`,
      );
  }
  return { land, notLanded };
}

/** A worktree's submodules are not checked out: anything in one was written there; a checked-out one has its own status. */
async function submoduleTouched(dir: string): Promise<boolean> {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    // No such directory: nothing was written there.
    return false;
  }
  if (!entries.includes('.git')) return entries.length > 0;
  const s = await git(['status', '--porcelain', '-z'], { cwd: dir });
  return s.code !== 0 || s.stdout.length > 0;
}

function writtenSince(path: string, since: number): boolean {
  try {
    return lstatSync(path).mtimeMs >= since;
  } catch {
    // Gone since the listing: not a write to report.
    return false;
  }
}
