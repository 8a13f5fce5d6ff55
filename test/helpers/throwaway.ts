// Throwaway git repositories and plan files for one test file, all removed after it: the set-up
// the worktree, change-record and review tests share. Plans live outside the repository, so they
// are no part of what a test compares.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeRepo, type TestRepo } from './gitRepo';
import { plan } from './planText';

export interface Throwaway {
  /** A new repository with these files committed. */
  repo(files: Record<string, string>): TestRepo;
  /** A plan file of this text (written with `plan`), outside any repository. */
  planFile(text: string): string;
  /** What else a test makes and wants gone after the file's tests (run in order, after theirs). */
  readonly cleanup: Array<() => void>;
}

/** Call at the top of a test file: what it makes is removed after the file's tests. */
export function throwaway(prefix: string): Throwaway {
  const cleanup: Array<() => void> = [];
  after(() => {
    for (const c of cleanup.splice(0)) c();
  });
  return {
    cleanup,
    repo(files) {
      const r = makeRepo(files);
      cleanup.push(() => r.cleanup());
      return r;
    },
    planFile(text) {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
      const file = join(dir, 'p.braid.yaml');
      writeFileSync(file, text);
      return file;
    },
  };
}

/** `n` numbered lines (`line 1` …), each ending in a newline: file contents whose edits are easy to place. */
export const numbered = (n: number, tag = 'line'): string =>
  Array.from({ length: n }, (_, i) => `${tag} ${i + 1}`).join('\n') + '\n';

/** a waits in review with its change (a.txt); b, after it, copies what a wrote: the review tests' plan. */
export const REVIEWED = plan`
  version: 1
  steps:
    a:
      isolation: worktree
      review: true
      writes: [a.txt]
      run: printf "from a\\n" > a.txt
    b:
      needs: [a]
      run: cat a.txt > b.txt
      writes: [b.txt]
  `;
