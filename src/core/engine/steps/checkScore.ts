// A best-of alternative's score: what its `check` says in so many words, a line `score: N`, or
// the number it writes to the file `$BRAID_SCORE_FILE` names. Never any number it happens to
// print last: `check: npx ava` ends with a test count, which scored every alternative alike.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const SCORE_LINE = /^\s*score:\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*$/gim;
const NUMBER = /^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*$/;

/** The number of the last `score: N` line in `text`; undefined when there is none. */
export function scoreLine(text: string): number | undefined {
  const all = [...text.matchAll(SCORE_LINE)];
  const n = all.length > 0 ? Number(all[all.length - 1]![1]) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

/**
 * Where a check in worktree `tree` may write its score: in the worktree's own git folder (never
 * part of its change, and writable in a sandbox), emptied before the check runs. Undefined
 * outside a worktree.
 */
export function scoreFileFor(tree: string): string | undefined {
  let gitDir: string | undefined;
  try {
    gitDir = /^gitdir: (.+)$/m.exec(readFileSync(join(tree, '.git'), 'utf8'))?.[1]?.trim();
  } catch {
    // No `.git` file: not a worktree, so no score file.
    return undefined;
  }
  if (!gitDir) return undefined;
  const file = join(resolve(tree, gitDir), 'braid-score');
  rmSync(file, { force: true });
  return file;
}

/** The check's score: the file's number when it wrote one, else its last `score: N` line. */
export function checkScore(stdout: string, file: string | undefined): number | undefined {
  if (file !== undefined && existsSync(file)) {
    const m = NUMBER.exec(readFileSync(file, 'utf8'));
    if (m && Number.isFinite(Number(m[1]))) return Number(m[1]);
  }
  return scoreLine(stdout);
}
