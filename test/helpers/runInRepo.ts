// runPlan in a test repository, as the engine runs it (its own isolator, locks and prepare-ahead),
// with the events kept; and the repository as its user sees it.
import { strict as assert } from 'node:assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runPlan, type RunRequest } from '../../src/core/engine/runPlan';
import type { RunRecord } from '../../src/core/engine/records/runRecord';
import type { EngineEvent } from '../../src/core/engine/types';
import { workspaceState, type TestRepo } from './gitRepo';

export async function runInRepo(
  r: TestRepo,
  plan: string,
  extra: Partial<RunRequest> = {},
): Promise<{ record: RunRecord; events: EngineEvent[] }> {
  const events: EngineEvent[] = [];
  const outcome = await runPlan({
    planFile: plan,
    workspace: r.dir,
    graceMs: 200,
    ...extra,
    onEvent: (e) => {
      events.push(e);
      extra.onEvent?.(e);
    },
  });
  assert.ok(outcome.ok, JSON.stringify(outcome));
  return { record: outcome.record, events };
}

/** The workspace as the user sees it, Braid's own `.braid/` left out. */
export function userState(r: TestRepo): ReturnType<typeof workspaceState> {
  const s = workspaceState(r);
  for (const k of [...s.files.keys()]) if (k === '.braid' || k.startsWith('.braid/')) s.files.delete(k);
  return s;
}

/** The repository's worktree registrations (`worktree PATH` lines) and Braid's branches. */
export const worktrees = (r: TestRepo): string[] =>
  r
    .git(['worktree', 'list', '--porcelain'])
    .split('\n')
    .filter((l) => l.startsWith('worktree '));
export const braidBranches = (r: TestRepo): string =>
  r.git(['for-each-ref', '--format=%(refname:short)', 'refs/heads/braid/']).trim();

/** Nothing of Braid's left in git: no stale index.lock, worktree, branch or prunable registration. */
export function assertNoLeftovers(r: TestRepo): void {
  assert.equal(existsSync(join(r.dir, '.git', 'index.lock')), false, 'no stale index.lock');
  assert.deepEqual(worktrees(r), [`worktree ${r.dir}`], 'no worktree registrations left');
  assert.equal(braidBranches(r), '');
  assert.doesNotMatch(r.git(['worktree', 'prune', '--dry-run', '--verbose']), /\S/, 'nothing for prune to do');
}
