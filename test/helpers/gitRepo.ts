// Throwaway git repositories for tests, in os.tmpdir(), with their own identity (never the
// user's global config).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface TestRepo {
  readonly dir: string;
  /** Runs git in the repo (or `cwd`) and returns stdout; throws on a non-zero exit. */
  git(args: readonly string[], cwd?: string): string;
  write(path: string, content: string | Buffer): void;
  read(path: string): string;
  commitAll(message: string): string;
  cleanup(): void;
}

// Worktrees live in the user's cache (worktreeHome.ts): tests keep theirs in a folder of their own.
if (!process.env.BRAID_CACHE_DIR) {
  const cache = mkdtempSync(join(tmpdir(), 'braid-test-cache-'));
  process.env.BRAID_CACHE_DIR = cache;
  process.on('exit', () => rmSync(cache, { recursive: true, force: true }));
}

const ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'test',
  GIT_AUTHOR_EMAIL: 'test@localhost',
  GIT_COMMITTER_NAME: 'test',
  GIT_COMMITTER_EMAIL: 'test@localhost',
  GIT_CONFIG_NOSYSTEM: '1',
  LC_ALL: 'C',
};

/** A new repository whose first commit holds `files` (none: an unborn HEAD). */
export function makeRepo(files: Record<string, string | Buffer> = {}): TestRepo {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'braid-test-repo-')));
  const run = (args: readonly string[], cwd = dir) =>
    execFileSync('git', ['-c', 'commit.gpgsign=false', ...args], {
      cwd,
      env: ENV,
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
  const repo: TestRepo = {
    dir,
    git: run,
    write(path, content) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    },
    read: (path) => readFileSync(join(dir, path), 'utf8'),
    commitAll(message) {
      run(['add', '-A']);
      run(['commit', '-q', '-m', message]);
      return run(['rev-parse', 'HEAD']).trim();
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
  run(['init', '-q', '-b', 'main']);
  for (const [p, c] of Object.entries(files)) repo.write(p, c);
  if (Object.keys(files).length > 0) repo.commitAll('initial');
  return repo;
}

/** `n` small text files spread over a few directories: `d<k>/f<i>.txt`. */
export function manyFiles(n: number, dirs = 10): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) files[`d${i % dirs}/f${i}.txt`] = `file ${i}\n`.repeat(5);
  return files;
}

/** Every entry under `dir` except the top `.git`: kind, mode and a hash of the bytes. */
export function treeSnapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel))) {
      const r = rel ? `${rel}/${name}` : name;
      if (r === '.git') continue;
      const s = lstatSync(join(dir, r));
      if (s.isSymbolicLink()) out.set(r, `link ${readlinkSync(join(dir, r))}`);
      else if (s.isDirectory()) {
        out.set(r, 'dir');
        walk(r);
      } else
        out.set(
          r,
          `file ${s.mode.toString(8)} ${createHash('sha256')
            .update(readFileSync(join(dir, r)))
            .digest('hex')}`,
        );
    }
  };
  walk('');
  return out;
}

/**
 * The workspace as the user sees it: every file's bytes, `git status`, and the index file's hash
 * (status without optional locks, so taking the snapshot does not itself rewrite the index).
 */
export function workspaceState(repo: TestRepo): { files: Map<string, string>; status: string; index: string } {
  const index = createHash('sha256')
    .update(readFileSync(join(repo.dir, '.git', 'index')))
    .digest('hex');
  return {
    files: treeSnapshot(repo.dir),
    status: repo.git(['--no-optional-locks', 'status', '--porcelain', '--untracked-files=all']),
    index,
  };
}
