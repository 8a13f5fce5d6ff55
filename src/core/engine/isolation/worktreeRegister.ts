// Registers a linked worktree by writing git's own on-disk layout (gitrepository-layout(5),
// "worktrees/<id>"), so that one `git checkout -b` then makes the branch and the files. A
// `git worktree add -b` is four processes in git 2.39 (itself, `git branch`, `git symbolic-ref`,
// `git reset --hard`), and a process costs 5–9 ms on the project's machine: most of a sparse
// set-up. The admin directory is built under a temporary name beside `worktrees/` and renamed into
// it, so git (a `worktree prune`, another window's `worktree add`) never sees it half-written.
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { gitOk } from '../../exec/git';

export type Registration =
  | { ok: true; gitDir: string }
  /** A layout this module does not write (reftable refs, Windows): use `git worktree add`. */
  | { ok: false; unsupported: string };

const commonDirs = new Map<string, Promise<string>>();

/** The repository's common git dir for a workspace root, read from `.git` where it can be. */
export function commonGitDir(root: string): Promise<string> {
  const key = resolve(root);
  let found = commonDirs.get(key);
  if (!found) {
    found = findCommonDir(key);
    commonDirs.set(key, found);
    found.catch(() => commonDirs.delete(key));
  }
  return found;
}

async function findCommonDir(root: string): Promise<string> {
  const dotGit = join(root, '.git');
  const info = await stat(dotGit).catch(() => undefined);
  if (info?.isDirectory()) return dotGit;
  if (info?.isFile()) {
    // A linked worktree or a submodule: `gitdir: <dir>`, and a linked worktree's dir names the common one.
    const m = /^gitdir: (.+)$/m.exec(await readFile(dotGit, 'utf8'));
    if (m) {
      const gitDir = resolve(root, m[1]!.trim());
      const common = await readFile(join(gitDir, 'commondir'), 'utf8').catch(() => undefined);
      return common === undefined ? gitDir : resolve(gitDir, common.trim());
    }
  }
  // The root is below the top level, or GIT_DIR-style layouts: ask git once.
  return resolve(root, (await gitOk(['rev-parse', '--git-common-dir'], { cwd: root })).trim());
}

/**
 * Makes `path` (which must not exist; its parent must) a linked worktree of the repository at
 * `root` whose HEAD is the not-yet-created `branch`. The caller's `git checkout -b <branch> <base>`
 * inside it creates the branch and writes the index and files.
 */
export async function registerWorktree(
  root: string,
  path: string,
  branch: string,
  sparsePatterns?: string,
): Promise<Registration> {
  // Windows paths in these files are git's own business (drive letters, separators): let it write them.
  if (process.platform === 'win32') return { ok: false, unsupported: 'windows' };
  const common = await commonGitDir(root);
  if (await exists(join(common, 'reftable'))) return { ok: false, unsupported: 'reftable refs' };
  const worktrees = join(common, 'worktrees');
  // Built beside `worktrees/`, not in it: `git worktree prune` deletes an entry there that has no
  // `gitdir` file yet, and Braid's own clean-up of another step may run one at any moment.
  const staging = join(common, `braid-worktree-${randomBytes(6).toString('hex')}`);
  let madePath = false;
  let gitDir: string | undefined;
  try {
    await mkdir(staging);
    const info = join(staging, 'info');
    await settleAll([
      // `locked` keeps a concurrent `git worktree prune` off it until the worktree's `.git` exists.
      writeFile(join(staging, 'locked'), 'initializing\n'),
      writeFile(join(staging, 'commondir'), '../..\n'),
      writeFile(join(staging, 'HEAD'), `ref: refs/heads/${branch}\n`),
      writeFile(join(staging, 'gitdir'), `${join(path, '.git')}\n`),
      sparsePatterns === undefined
        ? undefined
        : mkdir(info).then(() => writeFile(join(info, 'sparse-checkout'), sparsePatterns)),
      // Its parent (the run's folder) goes when the run's last worktree is removed, maybe just now.
      makeDir(dirname(path), path).then(() => {
        madePath = true;
      }),
    ]);
    gitDir = await claimName(staging, worktrees, basename(resolve(path)) || 'worktree');
    // Written last: until then the worktree is not a repository of its own, and git run inside it
    // would find the user's repository above instead.
    await writeFile(join(path, '.git'), `gitdir: ${gitDir}\n`);
    await rm(join(gitDir, 'locked'));
    return { ok: true, gitDir };
  } catch (e) {
    await rm(gitDir ?? staging, { recursive: true, force: true });
    if (madePath) await rm(path, { recursive: true, force: true });
    throw e;
  }
}

/** Like Promise.all, but rejects only once every write has ended, so clean-up never races one. */
async function settleAll(work: ReadonlyArray<Promise<unknown> | undefined>): Promise<void> {
  const failed = (await Promise.allSettled(work.filter((w) => w !== undefined))).find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** `dir` in `parent`, which Braid's removal of a run's last worktree may take away in between. */
async function makeDir(parent: string, dir: string): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      // Not recursive for `dir`: it must be new. (A recursive mkdir can itself fail with ENOENT when
      // a directory on its way is removed under it.)
      await mkdir(parent, { recursive: true });
      await mkdir(dir);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || tries >= 50) throw e;
    }
  }
}

function ignoreExists(e: NodeJS.ErrnoException): void {
  if (e.code !== 'EEXIST') throw e;
}

/** Renames the staged admin dir to `<name>`, `<name>1`, `<name>2`…, as `git worktree add` names them. */
async function claimName(staging: string, worktrees: string, name: string): Promise<string> {
  for (let n = 0, tries = 0; n < 1000;) {
    const target = join(worktrees, n === 0 ? name : `${name}${n}`);
    if (await exists(target)) {
      n++;
      continue;
    }
    try {
      await rename(staging, target);
      return target;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // git removes an empty `worktrees/` (a prune, the last worktree's removal): make it again.
      if (code === 'ENOENT' && tries++ < 50) await mkdir(worktrees).catch(ignoreExists);
      else if (code === 'EEXIST' || code === 'ENOTEMPTY') n++;
      else throw e;
    }
  }
  throw new Error(`no free worktree name for ${name} in ${worktrees}`);
}

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}
