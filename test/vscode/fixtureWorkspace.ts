// A fresh, disposable copy of test/fixtures/workspace, made a git repository with one commit, so
// tests may change files, create worktrees and runs without touching the source tree.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from './paths';

export interface FixtureWorkspace {
  readonly path: string;
  remove(): void;
}

const GIT_IDENTITY = ['-c', 'user.name=braid', '-c', 'user.email=braid@localhost', '-c', 'commit.gpgsign=false'];

/** Copies the fixture workspace to a temp folder and commits it on branch main. */
export function makeFixtureWorkspace(fixture = join(PROJECT_ROOT, 'test', 'fixtures', 'workspace')): FixtureWorkspace {
  const parent = mkdtempSync(join(tmpdir(), 'braid-ws-'));
  const path = join(parent, 'workspace');
  cpSync(fixture, path, { recursive: true });
  const git = (...args: string[]): void => {
    execFileSync('git', [...GIT_IDENTITY, ...args], {
      cwd: path,
      stdio: 'pipe',
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' },
    });
  };
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'fixture');
  return {
    path,
    remove: () => {
      if (process.env.BRAID_KEEP_TEMP !== '1') rmSync(parent, { recursive: true, force: true });
    },
  };
}
